import assert from 'node:assert/strict';
import {
  auditToCsv,
  auditToJsonl,
  conversationToMarkdown,
  exportConversation,
  importConversation,
} from '../../../src/store/conversation-export';
import { openStore, tempDir } from './store-helpers';

describe('conversation export and import', () => {
  it('round-trips a conversation through JSON as a new conversation, and renders markdown', async () => {
    const { store } = await openStore(tempDir());
    await store.saveConversation({
      id: 'c1',
      title: 'Fix the build',
      createdAt: 1,
      updatedAt: 2,
      settings: { model: 'm' },
    });
    await store.putMessage({
      id: 'm0',
      conversationId: 'c1',
      seq: 0,
      role: 'user',
      content: { role: 'user', content: [{ type: 'text', text: 'Why does it fail?' }] },
      createdAt: 1,
    });
    await store.putMessage({
      id: 'm1',
      conversationId: 'c1',
      seq: 1,
      role: 'assistant',
      content: {
        role: 'assistant',
        content: [
          { type: 'text', text: 'A missing **import**.' },
          { type: 'tool_call', id: 't', name: 'read_file', input: {} },
        ],
      },
      createdAt: 2,
    });
    // As the recorder writes them: prompts and answers as { text }, tool calls as events.
    await store.putMessage({
      id: 'm2',
      conversationId: 'c1',
      seq: 2,
      role: 'user',
      content: { text: 'And now?' },
      createdAt: 3,
    });
    await store.putMessage({
      id: 'm3',
      conversationId: 'c1',
      seq: 3,
      role: 'event',
      content: { type: 'tool_call', toolCallId: 'x', toolName: 'bash', input: {} },
      createdAt: 3,
    });
    await store.putMessage({
      id: 'm4',
      conversationId: 'c1',
      seq: 4,
      role: 'assistant',
      content: { text: 'Fixed.' },
      createdAt: 4,
    });
    const exported = await exportConversation(store, 'c1');
    const imported = await importConversation(store, JSON.stringify(exported), 99);
    assert.notEqual(imported.id, 'c1');
    assert.equal(imported.title, 'Fix the build (imported)');
    assert.deepEqual(
      (await store.listMessages(imported.id)).map((message) => message.content),
      exported.messages.map((message) => message.content),
    );
    const markdown = conversationToMarkdown(exported);
    assert.match(markdown, /^# Fix the build/);
    assert.match(markdown, /## You\n\nWhy does it fail\?/);
    assert.match(markdown, /## OpenAgent\n\nA missing \*\*import\*\*\.\n\n_Used read_file_/);
    assert.match(markdown, /## You\n\nAnd now\?\n\n_Used bash_\n\n## OpenAgent\n\nFixed\./);
    await store.close();
  });

  it('refuses files that are not conversation exports, changing nothing', async () => {
    const { store } = await openStore(tempDir());
    await assert.rejects(importConversation(store, 'not json'), /not JSON/);
    await assert.rejects(importConversation(store, '{"format":"other"}'), /not an OpenAgent conversation export/);
    assert.deepEqual(await store.listConversations(), []);
    await store.close();
  });

  it('exports the audit trail as JSONL and as CSV safe to open in a spreadsheet', () => {
    const records = [
      {
        id: 'a1',
        conversationId: 'c',
        time: Date.UTC(2026, 10, 22),
        kind: 'tool_call' as const,
        data: { tool: 'bash', command: 'echo "hi", there' },
      },
      {
        id: '=HYPERLINK("x")',
        conversationId: 'c',
        time: Date.UTC(2026, 10, 22),
        kind: 'policy' as const,
        data: { note: 'deny' },
      },
    ];
    assert.deepEqual(
      auditToJsonl(records)
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
      records,
    );
    const csv = auditToCsv(records).split('\r\n');
    assert.equal(csv[0], 'id,conversation_id,time,kind,data');
    assert.equal(
      csv[1],
      'a1,c,2026-11-22T00:00:00.000Z,tool_call,"{""tool"":""bash"",""command"":""echo \\""hi\\"", there""}"',
    );
    assert.ok(csv[2]!.startsWith(`"'=HYPERLINK(""x"")",`), 'a formula-like cell is defused');
  });
});
