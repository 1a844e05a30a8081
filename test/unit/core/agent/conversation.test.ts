import assert from 'node:assert/strict';
import { Conversation } from '../../../../src/core/agent/conversation';
import type { AgentEvent } from '../../../../src/core/events/events';
import { agentEventSchema } from '../../../../src/core/events/events';
import { AnthropicClient } from '../../../../src/core/llm/anthropic/anthropic-client';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { loadScenario } from '../../../fixtures/fake-model-server/scenario';

describe('Conversation', () => {
  let server: FakeModelServer;
  let conversation: Conversation;
  let events: AgentEvent[];

  beforeEach(async () => {
    server = await FakeModelServer.start({ scenario: loadScenario('hello') });
    let now = 1_000;
    conversation = new Conversation({
      id: 'conv-1',
      model: {
        llm: new AnthropicClient({ apiKey: 'k', baseUrl: server.anthropicBaseUrl, maxRetries: 0 }),
        model: 'fake-model',
      },
      retry: { maxRetries: 0 },
      system: 'system prompt',
      clock: { now: () => now++ },
    });
    events = [];
    conversation.subscribe((event) => events.push(event));
  });
  afterEach(() => server.close());

  it('streams the answer as text_delta events, then usage, then done', async () => {
    await conversation.submit('hello');
    const types = events.map((event) => event.type);
    assert.equal(types[0], 'user_message');
    assert.ok(types.filter((type) => type === 'text_delta').length > 5);
    assert.deepEqual(types.slice(-2), ['usage', 'done']);
    const text = events.map((event) => (event.type === 'text_delta' ? event.text : '')).join('');
    assert.match(text, /^Hello from the \*\*fake model\*\*!/);
  });

  it('stamps every event with the conversation, the lead agent and a rising sequence number', async () => {
    await conversation.submit('hello');
    events.forEach((event, index) => {
      assert.equal(event.conversationId, 'conv-1');
      assert.equal(event.agentId, 'lead');
      assert.equal(event.seq, index);
      assert.ok(agentEventSchema.safeParse(event).success, `event ${index} fits the schema`);
    });
  });

  it('keeps the history valid across turns', async () => {
    await conversation.submit('hello');
    await conversation.submit('second question');
    assert.deepEqual(
      conversation.messages.map((message) => message.role),
      ['user', 'assistant', 'user', 'assistant'],
    );
    const secondRequest = server.modelCalls[1]?.body as { messages: unknown[]; system: Array<{ text: string }> };
    assert.equal(secondRequest.messages.length, 3, 'the second request carries the first exchange');
    assert.equal(secondRequest.system[0]?.text, 'system prompt');
    assert.match(JSON.stringify(conversation.messages[3]), /You said: second question/);
  });

  it('reports a model failure as an error event and drops the unanswered prompt from the history', async () => {
    server.setScenario({ name: 'fail', turns: [{ text: 'x', fault: { type: 'http_error', status: 500, times: 5 } }] });
    await conversation.submit('hello');
    const last = events.at(-1);
    assert.equal(last?.type, 'error');
    assert.equal(last?.type === 'error' && last.kind, 'server');
    assert.equal(conversation.messages.length, 0);
    assert.equal(conversation.isRunning, false);
  });

  it('stops at once on stop(), keeps the partial answer and says it was interrupted', async () => {
    server.setScenario({ name: 'slow', turns: [{ text: 'word '.repeat(200), chunkSize: 5, delayMs: 30 }] });
    conversation.subscribe((event) => {
      if (event.type === 'text_delta' && event.seq === 3) conversation.stop();
    });
    await conversation.submit('hello');
    assert.equal(events.at(-1)?.type, 'interrupted');
    assert.equal(conversation.messages.length, 2);
    assert.equal(conversation.messages[1]?.role, 'assistant');
    conversation.stop(); // idempotent after the run
  });

  it('refuses a second prompt while a run is in progress', async () => {
    server.setScenario({ name: 'slow', turns: [{ text: 'abc', delayMs: 50, chunkSize: 1 }] });
    const first = conversation.submit('one');
    await assert.rejects(conversation.submit('two'), /already in progress/);
    await first;
  });

  it('keeps running when a subscriber throws', async () => {
    conversation.subscribe(() => {
      throw new Error('faulty subscriber');
    });
    await conversation.submit('hello');
    assert.equal(events.at(-1)?.type, 'done');
  });
});
