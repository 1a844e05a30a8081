/**
 * The review of a turn's edits as the chat shows and asks for it: the message the webview sends
 * for Review / Keep / Undo (validated like every webview message and handed to the host's
 * action), and what each changed file's line says as decisions come in.
 */
import assert from 'node:assert/strict';
import type { AgentEvent, AgentEventBody } from '../../../src/core/events/events';
import { reviewTurn } from '../../../src/core/review/turn-review';
import { parseWebviewMessage } from '../../../src/protocol/messages';
import { reviewText, ReviewStatus } from '../../../webview/chat/review-status';
import { describeEvent } from '../../../webview/panel/event-inspector';
import { fakeChatHost } from '../../fixtures/fake-chat-host';

function stamp(body: AgentEventBody, seq: number): AgentEvent {
  return { ...body, conversationId: 'c', agentId: 'lead', seq, time: 0 } as AgentEvent;
}

describe('the edit review in the chat', () => {
  it('accepts Review, Keep and Undo for a turn or one of its files, and nothing malformed', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'edits_review', action: 'undo', turn: 2, path: 'src/a.ts' }), {
      type: 'edits_review',
      action: 'undo',
      turn: 2,
      path: 'src/a.ts',
    });
    assert.deepEqual(parseWebviewMessage({ type: 'edits_review', action: 'keep', turn: 1 }), {
      type: 'edits_review',
      action: 'keep',
      turn: 1,
    });
    for (const raw of [
      { type: 'edits_review', action: 'delete', turn: 1 },
      { type: 'edits_review', action: 'undo', turn: 0 },
      { type: 'edits_review', action: 'undo', turn: 1.5 },
      { type: 'edits_review', action: 'undo', turn: 1, path: '' },
      { type: 'edits_review', action: 'undo', turn: 1, path: 'x'.repeat(5_000) },
      { type: 'edits_review', action: 'undo', turn: 1, hunks: [0] },
      JSON.parse('{"type":"edits_review","action":"undo","turn":1,"__proto__":{"x":1}}'),
    ])
      assert.equal(parseWebviewMessage(raw), undefined, JSON.stringify(raw));
  });

  it('hands a click to the host’s review action', async () => {
    const calls: unknown[][] = [];
    const { webview } = fakeChatHost(undefined, {
      reviewEdits: async (...args) => {
        calls.push(args);
      },
    });
    webview.send({ type: 'edits_review', action: 'open', turn: 3, path: 'src/a.ts' });
    webview.send({ type: 'edits_review', action: 'keep', turn: 3 });
    webview.send({ type: 'edits_review', action: 'undo', turn: 3, path: '../../etc/passwd', extra: true });
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(calls, [
      ['open', 3, 'src/a.ts'],
      ['keep', 3, undefined],
    ]);
  });

  it('says per file how many changes wait, which were kept or undone, and why one cannot be reviewed', () => {
    const status = new ReviewStatus();
    const files = reviewTurn([
      {
        path: 'a.js',
        before: 'one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n',
        after: 'ONE\ntwo\nthree\nfour\nfive\nsix\nseven\nEIGHT\n',
      },
      { path: 'new.js', before: null, after: 'x\n' },
      { path: 'big.log', before: { tooLarge: 60 * 1_048_576 }, after: 'y' },
    ]);
    let seq = 0;
    assert.deepEqual(status.apply(stamp({ type: 'review_hunks', turn: 1, files }, seq++)), [1]);
    assert.deepEqual(status.files(1).map(reviewText), [
      '2 to review',
      '1 to review',
      'not reviewable hunk by hunk: it was 60 MB, too large to keep a copy of',
    ]);
    status.apply(stamp({ type: 'review_decision', turn: 1, path: 'a.js', hunks: [0], decision: 'kept' }, seq++));
    status.apply(
      stamp({ type: 'review_decision', turn: 1, path: 'new.js', hunks: [0], decision: 'undone', deleted: true }, seq++),
    );
    assert.deepEqual(status.files(1).map(reviewText).slice(0, 2), ['1 to review · 1 kept', 'undone (deleted)']);
    status.apply(stamp({ type: 'review_decision', turn: 1, path: 'a.js', hunks: [1], decision: 'undone' }, seq++));
    assert.equal(reviewText(status.files(1)[0]!), '1 kept · 1 undone');
    // Revert This Turn: nothing is left to review in that turn.
    assert.deepEqual(
      status.apply(stamp({ type: 'turn_reverted', turn: 1, restored: [], deleted: [], failed: [] }, seq++)),
      [1],
    );
    assert.deepEqual(status.files(1), []);
    assert.deepEqual(status.apply(stamp({ type: 'text_delta', text: 'hi' }, seq)), []);
  });

  it('shows in the developer panel’s event inspector as one line each', () => {
    const files = reviewTurn([
      { path: 'a.js', before: 'one\n', after: 'two\n' },
      { path: 'big.log', before: { tooLarge: 60 * 1_048_576 }, after: 'y' },
    ]);
    assert.equal(
      describeEvent(stamp({ type: 'review_hunks', turn: 2, files }, 0)),
      'turn 2: a.js (1 hunk), big.log (not reviewable: it was 60 MB, too large to keep a copy of)',
    );
    assert.equal(
      describeEvent(stamp({ type: 'review_decision', turn: 2, path: 'a.js', hunks: [0, 2], decision: 'undone' }, 1)),
      'turn 2 a.js: undone hunk 1, 3',
    );
    assert.equal(
      describeEvent(stamp({ type: 'review_note', text: 'x', hunks: [{ turn: 2, path: 'a.js', hunk: 0 }] }, 2)),
      'told the model of 1 undone hunk',
    );
  });
});
