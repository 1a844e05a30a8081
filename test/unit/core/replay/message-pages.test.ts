/**
 * A recorded request names its history's messages in pages kept once: each call of a growing
 * conversation stores its new messages, its last page and a short list of pages — not a list as
 * long as the conversation. Both forms (pages, and the plain list of the first recordings) join
 * back to the request as sent.
 */
import assert from 'node:assert/strict';
import type { ModelMessage } from '../../../../src/core/llm/llm-client';
import { contentOf } from '../../../../src/core/replay/content-hash';
import {
  joinRequest,
  MESSAGE_PAGE,
  RequestSplitter,
  type RequestSnapshot,
} from '../../../../src/core/replay/recorded-request';
import type { ContentRef, RecordedRequest } from '../../../../src/core/replay/recording';

const message = (index: number): ModelMessage =>
  ({
    role: index % 2 === 0 ? 'user' : 'assistant',
    content: [{ type: 'text', text: `message ${index}` }],
  }) as ModelMessage;

const request = (messages: ModelMessage[]): RequestSnapshot => ({
  model: 'fake-model',
  system: 'You are a test.',
  tools: [],
  messages,
  maxOutputTokens: 1024,
});

describe('recorded requests name their messages in pages', () => {
  it('stores a few new things per call of a long conversation, and joins back whole', async () => {
    const store = new Map<ContentRef, unknown>();
    const splitter = new RequestSplitter((value) => value);
    const history: ModelMessage[] = [];
    let lastRef: ContentRef | undefined;
    const newPerCall: number[] = [];
    for (let call = 0; call < 300; call++) {
      history.push(message(call));
      const { ref, contents } = splitter.split(request([...history]));
      newPerCall.push(contents.filter((content) => !store.has(content.ref)).length);
      for (const content of contents) store.set(content.ref, content.value);
      lastRef = ref;
    }
    const recorded = store.get(lastRef!) as RecordedRequest;
    assert.equal(recorded.messages.length, 0);
    assert.equal(recorded.messagePages?.length, Math.ceil(300 / MESSAGE_PAGE));
    // The new message, its page, the request: never the whole history again.
    assert.ok(Math.max(...newPerCall.slice(1)) <= 4, `new contents per call: ${Math.max(...newPerCall)}`);
    const joined = await joinRequest(lastRef!, async (ref) => store.get(ref));
    assert.deepEqual(
      joined.messages.map((item) => (item.content[0] as { text: string }).text),
      history.map((item) => (item.content[0] as { text: string }).text),
    );
  });

  it('joins a request recorded with its messages as one list', async () => {
    const store = new Map<ContentRef, unknown>();
    const put = (value: unknown) => {
      const { ref } = contentOf(value);
      store.set(ref, value);
      return ref;
    };
    const old: RecordedRequest = {
      model: 'fake-model',
      system: put('You are a test.'),
      tools: [],
      messages: [put({ role: 'user', content: [{ type: 'text', text: 'hello' }] })],
      maxOutputTokens: 1024,
    };
    const joined = await joinRequest(put(old), async (ref) => store.get(ref));
    assert.equal((joined.messages[0]!.content[0] as { text: string }).text, 'hello');
  });

  it('refuses a page that is not a list of refs', async () => {
    const store = new Map<ContentRef, unknown>();
    const put = (value: unknown) => {
      const { ref } = contentOf(value);
      store.set(ref, value);
      return ref;
    };
    const bad: RecordedRequest = {
      model: 'fake-model',
      system: put('You are a test.'),
      tools: [],
      messages: [],
      messagePages: [put({ not: 'a list' })],
      maxOutputTokens: 1024,
    };
    await assert.rejects(
      joinRequest(put(bad), async (ref) => store.get(ref)),
      /not a list of refs/,
    );
  });
});
