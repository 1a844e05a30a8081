import assert from 'node:assert/strict';
import type { StoredMessage } from '../../../../src/core/ports';
import { restoreConversation } from '../../../../src/core/session/restore';
import { CLOSED_MID_RUN, lastFailedRun } from '../../../../src/core/session/run-ends';

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
    // An unknown event type is skipped; the run the window closed on ends as interrupted.
    assert.equal(events.length, stored.length - 1 + 1);
    assert.equal(events.filter((event) => event.type === ('future_event_type' as string)).length, 0);
    assert.deepEqual(
      events.slice(-2).map((event) => event.type),
      ['tool_call', 'interrupted'],
    );
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

  it('ends a run the window closed on as interrupted, where it stopped, and keeps the runs after it', () => {
    const stored = [
      user('write a story'),
      answer('Once upon a time there'), // the last flush before the window closed
      user('start over'),
      answer('A new story.'),
      event({ type: 'done', stopReason: 'end_turn', turns: 1 }),
      user('one more'),
      answer('And then'),
    ];
    const { events, history } = restoreConversation('c', stored);
    const shown = events.map((event) =>
      event.type === 'interrupted' ? `interrupted:${event.reason}` : 'text' in event ? event.text : event.type,
    );
    assert.deepEqual(shown, [
      'write a story',
      'Once upon a time there',
      `interrupted:${CLOSED_MID_RUN}`,
      'start over',
      'A new story.',
      'done',
      'one more',
      'And then',
      `interrupted:${CLOSED_MID_RUN}`,
    ]);
    const first = events[2]!;
    assert.equal(first.seq, events[1]!.seq, 'numbered like the event it follows: nothing is renumbered');
    assert.equal(first.agentId, 'lead');
    // The model history is what it was: the cut-off answers stay, as the user saw them.
    assert.deepEqual(
      history.map((message) => message.role),
      ['user', 'assistant', 'user', 'assistant', 'user', 'assistant'],
    );
  });

  it('drops a prompt whose run failed before any answer, as the live conversation does, so a Retry sends it once', () => {
    const stored = [
      user('hello'),
      answer('Hi.'),
      event({ type: 'done', stopReason: 'end_turn', turns: 1 }),
      user('fix the bug'),
      event({ type: 'error', message: 'Server error (500).', kind: 'server' }),
    ];
    const errorSeq = seq - 1;
    const restored = restoreConversation('c', stored);
    assert.deepEqual(restored.history, [
      { role: 'user', content: [{ type: 'text', text: 'hello' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hi.' }] },
    ]);
    const failed = lastFailedRun(restored.events);
    assert.equal(failed?.prompt.text, 'fix the bug');
    assert.equal(failed?.errorSeq, errorSeq);

    // The Retry is stored with the error it retries; the history then has the prompt once.
    const retried = restoreConversation('c', [
      ...stored,
      { ...user('fix the bug'), content: { text: 'fix the bug', retryOf: errorSeq } },
      answer('Fixed.'),
      event({ type: 'done', stopReason: 'end_turn', turns: 1 }),
    ]);
    const retry = retried.events.find((event) => event.type === 'user_message' && event.retryOf !== undefined);
    assert.equal(retry?.type === 'user_message' && retry.retryOf, errorSeq);
    assert.deepEqual(
      retried.history.map((message) => JSON.stringify(message.content)),
      [
        '[{"type":"text","text":"hello"}]',
        '[{"type":"text","text":"Hi."}]',
        '[{"type":"text","text":"fix the bug"}]',
        '[{"type":"text","text":"Fixed."}]',
      ],
    );
    assert.equal(lastFailedRun(retried.events), undefined, 'the last run did not fail');
  });

  it('keeps a failed prompt that got part of an answer (the user saw it), and offers no Retry for an old failure', () => {
    const stored = [
      user('explain'),
      answer('Part of'),
      event({ type: 'error', message: 'The stream broke.', kind: 'stream' }),
      user('next'),
      answer('Sure.'),
      event({ type: 'done', stopReason: 'end_turn', turns: 1 }),
    ];
    const restored = restoreConversation('c', stored);
    assert.deepEqual(
      restored.history.map((message) => message.role),
      ['user', 'assistant', 'user', 'assistant'],
    );
    assert.equal(lastFailedRun(restored.events), undefined);
  });

  it('offers no Retry for a failure whose prompt was never recorded (a hook blocked it)', () => {
    const stored = [
      user('hello'),
      answer('Hi.'),
      event({ type: 'done', stopReason: 'end_turn', turns: 1 }),
      event({ type: 'error', message: 'The prompt was blocked by a hook: no', kind: 'hook' }),
    ];
    assert.equal(lastFailedRun(restoreConversation('c', stored).events), undefined);
  });

  it('keeps who decided each call, and ignores a stored retryOf that is not a sequence number', () => {
    const stored = [
      { ...user('x'), content: { text: 'x', retryOf: '__proto__' } },
      call('d'),
      event({ type: 'tool_approval_result', toolCallId: 'd', approved: false, source: 'user' }),
      result('d'),
      event({ type: 'done', stopReason: 'end_turn', turns: 1 }),
    ];
    const { events } = restoreConversation('c', stored);
    assert.equal(events[0]?.type === 'user_message' && 'retryOf' in events[0], false);
    assert.ok(events.some((event) => event.type === 'tool_approval_result' && !event.approved));
  });
});
