import assert from 'node:assert/strict';
import type { ConversationStore } from '../../../../src/core/ports';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { openStore, tempDir } from '../../store/store-helpers';
import { readFileTool } from './loop-harness';
import { sessionOn } from './session-harness';

function storedSession(server: FakeModelServer, store: ConversationStore, id: string) {
  const harness = sessionOn(server, {
    clock: { now: () => Date.now() },
    newId: () => id,
    store: async () => store,
    tools: () => [readFileTool],
  });
  // Each run is also written to the store before the test goes on.
  const run = async (prompt: string) => {
    await harness.run(prompt);
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
      const listed = await after.session.listConversations();
      assert.deepEqual(
        listed.map((conversation) => [conversation.id, conversation.title]),
        [['conv-1', 'What is in a.txt?']],
      );
      assert.equal(await after.session.open('conv-1'), true);
      assert.equal(after.session.currentId, 'conv-1');
      const shown = after.session.history.map((event) =>
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

      await after.session.renameConversation('conv-1', 'Reading a.txt');
      assert.equal((await second.store.getConversation('conv-1'))?.title, 'Reading a.txt');
      await after.session.deleteConversation('conv-1');
      assert.deepEqual(await after.session.listConversations(), []);
      assert.equal(after.session.currentId, undefined, 'deleting the open conversation starts a new chat');
      await second.store.close();
    } finally {
      await server.close();
    }
  });
});
