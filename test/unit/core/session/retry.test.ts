/**
 * Retry belongs to its own failed prompt: the fake model server fails a request with an HTTP
 * error (as a real one does), the session's Retry for that error sends that prompt again once,
 * and a stale Retry (a newer prompt since, a second click, another conversation) sends nothing
 * and says why. Setting a key sends only the prompt that waited for it.
 */
import assert from 'node:assert/strict';
import type { AgentEvent } from '../../../../src/core/events/events';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { openStore, tempDir } from '../../store/store-helpers';
import { sessionOn } from './session-harness';
import { waitUntil } from '../../../harness/patience';

/** A request the server answers with a 400 once, then with `text`. */
const failingOnce = (match: string, text: string) => ({
  match,
  text,
  fault: { type: 'http_error' as const, status: 400, message: `bad request for ${match}` },
});

/** How many times the model was sent `prompt` as a user's words in the last request. */
function timesSent(server: FakeModelServer, prompt: string): number {
  const body = server.modelCalls.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
  return body.messages.filter((message) => message.role === 'user' && JSON.stringify(message.content).includes(prompt))
    .length;
}

function lastError(events: AgentEvent[]): Extract<AgentEvent, { type: 'error' }> {
  const error = events.findLast((event) => event.type === 'error');
  assert.ok(error?.type === 'error', 'the run failed');
  return error;
}

/** Resolves once an event of `type` (passing `test`) has been collected. */
function waitForEvent(events: AgentEvent[], test: (event: AgentEvent) => boolean, what: string): Promise<AgentEvent> {
  return waitUntil(() => events.find(test), what);
}

describe('Retry of a failed prompt', () => {
  let server: FakeModelServer;
  afterEach(() => server?.close());

  it('sends the failed prompt once more, marked as the retry of that error, and the model gets it once', async () => {
    server = await FakeModelServer.start({
      scenario: { name: 'retry', turns: [failingOnce('fix the bug', 'Fixed it.')] },
    });
    const { session, events, waitDone } = sessionOn(server);
    await session.submit('fix the bug');
    await waitForEvent(events, (event) => event.type === 'error', 'the error');
    const error = lastError(events);
    assert.equal(error.kind, 'bad_request');

    assert.equal(await session.retryRun({ conversationId: error.conversationId, errorSeq: error.seq }), undefined);
    await waitDone(1);
    const prompts = events.filter((event) => event.type === 'user_message');
    assert.deepEqual(
      prompts.map((event) => event.type === 'user_message' && [event.text, event.retryOf]),
      [
        ['fix the bug', undefined],
        ['fix the bug', error.seq],
      ],
    );
    assert.equal(timesSent(server, 'fix the bug'), 1, 'the failed attempt left no trace in the history');
    assert.equal(server.modelCalls.length, 2);
  });

  it('refuses a second click on the same Retry, even while the first is still on its way', async () => {
    server = await FakeModelServer.start({
      scenario: { name: 'retry-twice', turns: [failingOnce('hello', 'Hi there.')] },
    });
    const { session, events, waitDone } = sessionOn(server);
    await session.submit('hello');
    await waitForEvent(events, (event) => event.type === 'error', 'the error');
    const error = lastError(events);
    const target = { conversationId: error.conversationId, errorSeq: error.seq };
    const [first, second] = await Promise.all([session.retryRun(target), session.retryRun(target)]);
    assert.equal(first, undefined);
    assert.deepEqual(second, {
      reason: 'stale_retry',
      message: 'Not retried: this prompt was already sent again after that error.',
    });
    await waitDone(1);
    assert.deepEqual(await session.retryRun(target), second, 'and after its run too');
    assert.equal(server.modelCalls.length, 2);
  });

  it("never sends an older prompt: an old error's Retry is refused once a newer prompt was sent", async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'stale',
        turns: [
          { match: 'first', fault: { type: 'http_error', status: 400, times: 5 } },
          failingOnce('second', 'Second answered.'),
        ],
      },
    });
    const { session, events, waitDone } = sessionOn(server);
    await session.submit('first');
    await waitForEvent(events, (event) => event.type === 'error', 'the first error');
    const old = lastError(events);
    await session.submit('second');
    await waitUntil(() => events.filter((event) => event.type === 'error').length === 2, 'the second error');
    const calls = server.modelCalls.length;

    const refused = await session.retryRun({ conversationId: old.conversationId, errorSeq: old.seq });
    assert.equal(refused?.reason, 'stale_retry');
    assert.match(refused!.message, /a newer prompt has been sent since/);
    assert.equal(server.modelCalls.length, calls, 'nothing was sent');

    const latest = lastError(events);
    assert.equal(await session.retryRun({ conversationId: latest.conversationId, errorSeq: latest.seq }), undefined);
    await waitDone(1);
    const retried = events.findLast((event) => event.type === 'user_message');
    assert.equal(retried?.type === 'user_message' && retried.text, 'second', 'the Retry sent its own prompt');
    assert.equal(timesSent(server, 'first'), 0);
  });

  it("refuses a Retry of another conversation's error, and one after a new chat", async () => {
    server = await FakeModelServer.start({
      scenario: { name: 'other', turns: [{ fault: { type: 'http_error', status: 400, times: 9 } }] },
    });
    const { session, events } = sessionOn(server);
    await session.submit('hello');
    await waitForEvent(events, (event) => event.type === 'error', 'the error');
    const error = lastError(events);
    const elsewhere = await session.retryRun({ conversationId: 'another', errorSeq: error.seq });
    assert.match(elsewhere!.message, /belongs to a conversation that is no longer open/);
    session.reset();
    const afterReset = await session.retryRun({ conversationId: error.conversationId, errorSeq: error.seq });
    assert.equal(afterReset?.reason, 'stale_retry');
    assert.equal(server.modelCalls.length, 1);
  });

  it('setting a key sends the prompt refused for the missing key, and never an answered prompt', async () => {
    server = await FakeModelServer.start({
      scenario: { name: 'key', turns: [{ text: 'Hello!' }], whenExhausted: 'echo' },
    });
    const keys: Record<string, string> = {};
    const { session, waitDone } = sessionOn(server, { secrets: { getApiKey: async (provider) => keys[provider] } });
    assert.equal((await session.submit('hello'))?.reason, 'missing_api_key');
    keys.anthropic = 'sk-now-set';
    assert.equal(await session.retry(), undefined);
    await waitDone(1);
    assert.equal(server.modelCalls.length, 1);
    // Later, "Set API Key" again from the palette: nothing waits, so nothing is sent.
    assert.equal(await session.retry(), undefined);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(server.modelCalls.length, 1);
  });

  it("an authentication error's Set API Key sends that prompt again, as its retry", async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'auth',
        turns: [{ text: 'Now it works.', fault: { type: 'http_error', status: 401, message: 'invalid x-api-key' } }],
      },
    });
    const { session, events, waitDone } = sessionOn(server);
    await session.submit('hello');
    await waitForEvent(events, (event) => event.type === 'error', 'the error');
    const error = lastError(events);
    assert.equal(error.kind, 'authentication');
    await session.retry();
    await waitDone(1);
    const retried = events.findLast((event) => event.type === 'user_message');
    assert.equal(retried?.type === 'user_message' && retried.retryOf, error.seq);
  });

  it('retries the failed last run of a conversation reopened from the store, with the context it was sent with', async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'reopened',
        turns: [{ match: 'Summarise', text: 'A summary.', fault: { type: 'http_error', status: 400, times: 1 } }],
      },
    });
    const directory = tempDir();
    const first = await openStore(directory);
    const before = sessionOn(server, { store: async () => first.store, newId: () => 'conv-r' });
    await before.session.submitWithMentions('Summarise @file:notes.md', async () => 'NOTES-CONTENT');
    await waitForEvent(before.events, (event) => event.type === 'error', 'the error');
    const error = lastError(before.events);
    await before.session.flush();
    await first.store.close();

    const second = await openStore(directory);
    try {
      const after = sessionOn(server, { store: async () => second.store, newId: () => 'unused' });
      assert.equal(await after.session.open('conv-r'), true);
      assert.equal(await after.session.retryRun({ conversationId: 'conv-r', errorSeq: error.seq }), undefined);
      await after.waitDone(1);
      const sent = JSON.stringify(server.modelCalls.at(-1)?.body);
      assert.equal(timesSent(server, 'Summarise @file:notes.md'), 1);
      assert.match(sent, /NOTES-CONTENT/, 'the attached context went with it');
      const retried = after.events.findLast((event) => event.type === 'user_message');
      assert.equal(retried?.type === 'user_message' && retried.retryOf, error.seq);
      await after.session.flush();
    } finally {
      await second.store.close();
    }
  });
});
