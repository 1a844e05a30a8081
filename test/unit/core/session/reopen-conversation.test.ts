import assert from 'node:assert/strict';
import type { AgentEvent } from '../../../../src/core/events/events';
import type { ConversationStore } from '../../../../src/core/ports';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { openStore, tempDir } from '../../store/store-helpers';
import { readFileTool } from '../agent/loop-harness';
import { sessionOn } from './session-harness';

function storedSession(server: FakeModelServer, store: ConversationStore, id: string) {
  const harness = sessionOn(server, {
    // A model with a price, so runs cost something.
    readSettings: () => ({ provider: 'anthropic', model: 'claude-haiku-4-5', baseUrl: server.anthropicBaseUrl }),
    clock: { now: () => Date.now() },
    newId: () => id,
    store: async () => store,
    tools: () => [readFileTool],
  });
  // Each run is also written to the store before the test goes on.
  const run = async (prompt: string, send?: (prompt: string) => Promise<unknown>) => {
    await harness.run(prompt, send);
    await harness.session.flush();
  };
  return { ...harness, run };
}

describe('reopening a conversation from the store', () => {
  it('shows it as it was and continues it with its history, tool calls included', async () => {
    const server = await FakeModelServer.start({
      scenario: {
        name: 'reopen',
        turns: [
          { text: 'Let me look.', toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } }] },
          { text: 'It says hello.' },
          { text: 'You asked about a.txt.' },
        ],
      },
    });
    const directory = tempDir();
    try {
      const first = await openStore(directory);
      const before = storedSession(server, first.store, 'conv-1');
      await before.run('What is in a.txt?');
      await first.store.close();

      // A new window: a new store handle and a new session.
      const second = await openStore(directory);
      const after = storedSession(server, second.store, 'never-used');
      const listed = await after.session.library.list();
      assert.deepEqual(
        listed.map((conversation) => [conversation.id, conversation.title]),
        [['conv-1', 'What is in a.txt?']],
      );
      assert.equal(await after.session.open('conv-1'), true);
      assert.equal(after.session.currentId, 'conv-1');
      const shown = after.session.history
        .filter((event) => event.type !== 'usage')
        .map((event) =>
          event.type === 'user_message' || event.type === 'text_delta' ? `${event.type}:${event.text}` : event.type,
        );
      assert.deepEqual(shown, [
        'user_message:What is in a.txt?',
        'text_delta:Let me look.',
        'tool_call',
        'tool_result',
        'text_delta:It says hello.',
        'done',
      ]);
      await after.run('What did I ask?');
      const body = server.modelCalls.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
      assert.deepEqual(
        body.messages.map((message) => message.role),
        ['user', 'assistant', 'user', 'assistant', 'user'],
      );
      assert.match(JSON.stringify(body.messages[1]), /tool_use.*read_file/);
      assert.match(JSON.stringify(body.messages[2]), /tool_result/);
      assert.match(JSON.stringify(body.messages[4]), /What did I ask\?/);
      // The continued conversation is the same one in the store, not a copy.
      const stored = await second.store.listConversations();
      assert.deepEqual(
        stored.map((conversation) => conversation.id),
        ['conv-1'],
      );
      const texts = (await second.store.listMessages('conv-1')).filter((message) => message.role !== 'event');
      assert.equal(texts.length, 5, 'two prompts and three answers, none overwritten');

      await after.session.library.rename('conv-1', 'Reading a.txt');
      assert.equal((await second.store.getConversation('conv-1'))?.title, 'Reading a.txt');
      await after.session.deleteConversation('conv-1');
      assert.deepEqual(await after.session.library.list(), []);
      assert.equal(after.session.currentId, undefined, 'deleting the open conversation starts a new chat');
      await second.store.close();
    } finally {
      await server.close();
    }
  });

  it('keeps what mentions attached and what the conversation has cost', async () => {
    const server = await FakeModelServer.start({
      scenario: {
        name: 'mentions',
        turns: [
          { text: 'It exports answer.', usage: { input: 1_000, output: 100 } },
          { text: 'Still 42.', usage: { input: 1_200, output: 10 } },
        ],
      },
    });
    const directory = tempDir();
    try {
      const first = await openStore(directory);
      const before = storedSession(server, first.store, 'conv-m');
      await before.run('What does @file:src/app.ts export?', (prompt) =>
        before.session.submitWithMentions(prompt, async () => 'export const answer = 42;'),
      );
      const costBefore = usageCost(before.events);
      assert.ok(costBefore > 0, 'the first run cost something');
      await first.store.close();

      const second = await openStore(directory);
      const after = storedSession(server, second.store, 'unused');
      assert.equal(await after.session.open('conv-m'), true);
      const prompt = after.session.history.find((event) => event.type === 'user_message');
      assert.deepEqual(prompt?.type === 'user_message' && prompt.attachments, ['@file:src/app.ts']);
      assert.equal(usageCost(after.session.history), costBefore, 'the cost so far is replayed');

      await after.run('And now?');
      const body = server.modelCalls.at(-1)?.body as { messages: Array<{ content: unknown }> };
      assert.match(JSON.stringify(body.messages[0]), /export const answer = 42;/, 'the attached file is still there');
      await second.store.close();
    } finally {
      await server.close();
    }
  });
});

function usageCost(events: readonly AgentEvent[]): number {
  return events.reduce((sum, event) => sum + (event.type === 'usage' && event.scope === 'call' ? event.costUsd : 0), 0);
}
