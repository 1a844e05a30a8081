import assert from 'node:assert/strict';
import type { StoredMessage } from '../../../../src/core/ports';
import { restoreConversation } from '../../../../src/core/session/restore';

let seq = 0;
const base = { conversationId: 'c', agentId: 'lead', time: 1 };
const user = (text: string): StoredMessage => ({
  id: `m${seq}`,
  conversationId: 'c',
  seq: seq++,
  role: 'user',
  content: { text },
  createdAt: 1,
});
const answer = (text: string): StoredMessage => ({
  id: `m${seq}`,
  conversationId: 'c',
  seq: seq++,
  role: 'assistant',
  content: { text },
  createdAt: 1,
});
const event = (body: Record<string, unknown>): StoredMessage => ({
  id: `m${seq}`,
  conversationId: 'c',
  seq: seq,
  role: 'event',
  content: { ...base, seq: seq++, ...body },
  createdAt: 1,
});
const call = (id: string) => event({ type: 'tool_call', toolCallId: id, toolName: 'read_file', input: { path: id } });
const result = (id: string) =>
  event({
    type: 'tool_result',
    toolCallId: id,
    toolName: 'read_file',
    output: `out ${id}`,
    isError: false,
    durationMs: 1,
  });

describe('restoring a stored conversation', () => {
  it('keeps parallel calls in one answer, their results in one message, and drops a call never answered', () => {
    const stored = [
      user('read both'),
      answer('Reading.'),
      call('a'),
      call('b'),
      result('a'),
      result('b'),
      answer('Both read.'),
      event({ type: 'done', stopReason: 'end_turn', turns: 2 }),
      user('again'),
      call('c'), // the window closed before its result
      event({ type: 'future_event_type', whatever: 1 }),
    ];
    const { history, events, nextSeq } = restoreConversation('c', stored.reverse());
    assert.equal(nextSeq, seq);
    assert.equal(events.length, stored.length - 1, 'an unknown event type is skipped');
    assert.deepEqual(history, [
      { role: 'user', content: [{ type: 'text', text: 'read both' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading.' },
          { type: 'tool_call', id: 'a', name: 'read_file', input: { path: 'a' } },
          { type: 'tool_call', id: 'b', name: 'read_file', input: { path: 'b' } },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', toolCallId: 'a', toolName: 'read_file', output: 'out a', isError: false },
          { type: 'tool_result', toolCallId: 'b', toolName: 'read_file', output: 'out b', isError: false },
        ],
      },
      { role: 'assistant', content: [{ type: 'text', text: 'Both read.' }] },
      { role: 'user', content: [{ type: 'text', text: 'again' }] },
    ]);
  });
});
