/**
 * The keep / undo state machine of the edit review over real files, with the hostile cases a
 * demanding user meets: edits after the turn, two turns on one file, created files, CRLF, files
 * too big to review, undo then keep all, Ctrl+Z after an undo, a double click, a reload.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentEvent } from '../../../../src/core/events/events';
import { EditReview } from '../../../../src/core/review/edit-review';
import type { TurnEdit } from '../../../../src/core/review/turn-review';
import { reviewedFilesOf } from '../../../../src/core/review/workspace-reviewed-files';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { ReviewEvents } from '../../../fixtures/review-events';

const ORIGINAL =
  'function add(a, b) {\n  return a + b;\n}\n\nfunction sub(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add, sub };\n';
// Two hunks: add's body, and sub's body.
const EDITED = ORIGINAL.replace('return a + b;', 'return Number(a) + Number(b);').replace(
  'return a - b;',
  'return Number(a) - Number(b);',
);

function workspace(): { root: string; file: (relative: string) => string } {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-review-'));
  return { root, file: (relative) => path.join(root, relative) };
}

/** A review over `root` of turns already made: each turn's files as the agent left them. */
function reviewOf(root: string, turns: TurnEdit[][], history: AgentEvent[] = []) {
  const session = new ReviewEvents(history);
  turns.forEach((edits, index) => session.turn(index + 1, edits));
  const review = new EditReview({ session, files: reviewedFilesOf(new NodeWorkspace(root)), root: () => root });
  return { session, review, drain: () => session.drain() };
}

describe('edit review (keep / undo hunk by hunk)', () => {
  it('keeps one hunk and undoes the other: the file holds exactly the kept one, and the model is told once', async () => {
    const { root, file } = workspace();
    fs.writeFileSync(file('math.js'), EDITED);
    const { session, review, drain } = reviewOf(root, [[{ path: 'math.js', before: ORIGINAL, after: EDITED }]]);
    assert.equal(review.state.file(1, 'math.js')?.hunks.length, 2);

    assert.deepEqual(await review.keep({ turn: 1, path: 'math.js', hunks: [0] }), {
      status: 'done',
      kept: 1,
      undone: 0,
      refused: [],
    });
    const undone = await review.undo({ turn: 1, path: 'math.js', hunks: [1] });
    assert.deepEqual(undone, { status: 'done', kept: 0, undone: 1, refused: [] });
    assert.equal(
      fs.readFileSync(file('math.js'), 'utf8'),
      ORIGINAL.replace('return a + b;', 'return Number(a) + Number(b);'),
    );
    assert.deepEqual(
      review.state.file(1, 'math.js')?.hunks.map((hunk) => hunk.state),
      ['kept', 'undone'],
    );
    assert.deepEqual(review.pendingFiles(), []);

    const [note, ...more] = await drain();
    assert.deepEqual(more, []);
    assert.match(note!, /undid these hunks/);
    assert.match(note!, /math\.js line 6\n- {3}return Number\(a\) - Number\(b\);\n\+ {3}return a - b;/);
    assert.doesNotMatch(note!, /Number\(a\) \+/, 'a kept hunk is not mentioned');
    assert.deepEqual(await drain(), [], 'told once');
    const recorded = session.history.filter((event) => event.type === 'review_note');
    assert.equal(recorded.length, 1);
    assert.equal(recorded[0]?.type === 'review_note' && recorded[0].text, note);
  });

  it('refuses to undo a hunk the user changed since, and loses nothing', async () => {
    const { root, file } = workspace();
    const typed = EDITED.replace('Number(a) - Number(b)', 'Number(a) - Number(b) - 0 /* mine */');
    fs.writeFileSync(file('math.js'), typed);
    const { review, drain } = reviewOf(root, [[{ path: 'math.js', before: ORIGINAL, after: EDITED }]]);
    const outcome = await review.undo({ turn: 1, path: 'math.js' });
    // The untouched hunk is undone; the one the user typed into is left, with why.
    assert.equal(outcome.undone, 1);
    assert.deepEqual(outcome.refused, [
      {
        path: 'math.js',
        count: 1,
        reason: 'its lines are no longer as the agent left them (changed by you or a later turn)',
      },
    ]);
    assert.equal(
      fs.readFileSync(file('math.js'), 'utf8'),
      typed.replace('return Number(a) + Number(b);', 'return a + b;'),
    );
    assert.deepEqual(
      review.state.file(1, 'math.js')?.hunks.map((hunk) => hunk.state),
      ['undone', 'pending'],
    );
    assert.doesNotMatch((await drain())[0]!, /mine/);
  });

  it('finds the agent’s lines again after the user added lines above them', async () => {
    const { root, file } = workspace();
    const typed = `// a header the user wrote\n// and another line\n${EDITED}`;
    fs.writeFileSync(file('math.js'), typed);
    const { review, drain } = reviewOf(root, [[{ path: 'math.js', before: ORIGINAL, after: EDITED }]]);
    assert.equal((await review.undo({ turn: 1, path: 'math.js', hunks: [1] })).undone, 1);
    assert.equal(fs.readFileSync(file('math.js'), 'utf8'), typed.replace('Number(a) - Number(b)', 'a - b'));
    assert.match((await drain())[0]!, /math\.js line 8\n/, 'the line where it is now');
  });

  it('undoes two turns on one file in order, refusing the earlier hunk while a later turn sits on its lines', async () => {
    const { root, file } = workspace();
    const first = EDITED;
    const second = first.replace('Number(a) + Number(b)', 'Number(a) + Number(b) + 0');
    fs.writeFileSync(file('math.js'), second);
    const { review } = reviewOf(root, [
      [{ path: 'math.js', before: ORIGINAL, after: first }],
      [{ path: 'math.js', before: first, after: second }],
    ]);
    const early = await review.undo({ turn: 1, path: 'math.js', hunks: [0] });
    assert.equal(early.undone, 0);
    assert.match(early.refused[0]!.reason, /no longer as the agent left them/);
    assert.equal(fs.readFileSync(file('math.js'), 'utf8'), second);
    // Undo everything in the file: the later turn first, then the earlier one's hunks fit again.
    const all = await review.undo({ path: 'math.js' });
    assert.deepEqual([all.undone, all.refused], [3, []]);
    assert.equal(fs.readFileSync(file('math.js'), 'utf8'), ORIGINAL);
  });

  it('deletes a file the agent created when its only hunk is undone — not once the user changed it', async () => {
    const { root, file } = workspace();
    fs.writeFileSync(file('new.js'), 'export const x = 1;\n');
    fs.writeFileSync(file('kept.js'), 'export const y = 2;\n// the user’s line\n');
    const { review, drain } = reviewOf(root, [
      [
        { path: 'new.js', before: null, after: 'export const x = 1;\n' },
        { path: 'kept.js', before: null, after: 'export const y = 2;\n' },
      ],
    ]);
    assert.equal((await review.undo({ turn: 1, path: 'new.js' })).undone, 1);
    assert.equal(fs.existsSync(file('new.js')), false);
    const refused = await review.undo({ turn: 1, path: 'kept.js' });
    assert.equal(refused.undone, 0);
    assert.equal(fs.readFileSync(file('kept.js'), 'utf8'), 'export const y = 2;\n// the user’s line\n');
    assert.match((await drain())[0]!, /new\.js: deleted \(you had created it\)\./);
  });

  it('keeps CRLF line endings byte for byte', async () => {
    const { root, file } = workspace();
    const before = ORIGINAL.replace(/\n/g, '\r\n');
    const after = EDITED.replace(/\n/g, '\r\n');
    fs.writeFileSync(file('crlf.js'), after);
    const { review } = reviewOf(root, [[{ path: 'crlf.js', before, after }]]);
    await review.undo({ turn: 1, path: 'crlf.js', hunks: [0] });
    assert.equal(fs.readFileSync(file('crlf.js'), 'utf8'), after.replace('Number(a) + Number(b)', 'a + b'));
    await review.undo({ turn: 1, path: 'crlf.js' });
    assert.equal(fs.readFileSync(file('crlf.js'), 'utf8'), before);
  });

  it('says why a file too big to keep a copy of cannot be undone hunk by hunk', async () => {
    const { root, file } = workspace();
    fs.writeFileSync(file('big.log'), 'small now\n');
    const { review } = reviewOf(root, [
      [{ path: 'big.log', before: { tooLarge: 60 * 1_048_576 }, after: 'small now\n' }],
    ]);
    assert.equal(review.state.file(1, 'big.log')?.unreviewable, 'it was 60 MB, too large to keep a copy of');
    const outcome = await review.undo({ turn: 1 });
    assert.deepEqual(outcome.refused, [
      { path: 'big.log', count: 1, reason: 'it was 60 MB, too large to keep a copy of; use Revert This Turn' },
    ]);
    assert.equal(fs.readFileSync(file('big.log'), 'utf8'), 'small now\n');
  });

  it('undo then keep all: the undone hunk stays undone, the rest are kept', async () => {
    const { root, file } = workspace();
    fs.writeFileSync(file('math.js'), EDITED);
    const { review, drain } = reviewOf(root, [[{ path: 'math.js', before: ORIGINAL, after: EDITED }]]);
    await review.undo({ turn: 1, path: 'math.js', hunks: [0] });
    assert.equal((await review.keep({})).kept, 1);
    assert.deepEqual(
      review.state.file(1, 'math.js')?.hunks.map((hunk) => hunk.state),
      ['undone', 'kept'],
    );
    assert.equal(fs.readFileSync(file('math.js'), 'utf8'), EDITED.replace('Number(a) + Number(b)', 'a + b'));
    const [note] = await drain();
    assert.match(note!, /line 2\n- {3}return Number\(a\) \+ Number\(b\);\n\+ {3}return a \+ b;/);
    assert.doesNotMatch(note!, /Number\(a\) -/);
  });

  it('tells the model nothing of an undo the user took back with Ctrl+Z: the hunk is pending again', async () => {
    const { root, file } = workspace();
    fs.writeFileSync(file('math.js'), EDITED);
    const { review, drain } = reviewOf(root, [[{ path: 'math.js', before: ORIGINAL, after: EDITED }]]);
    await review.undo({ turn: 1, path: 'math.js', hunks: [1] });
    assert.equal(review.hasUntold('math.js'), true);
    // What the editor's Ctrl+Z does: the agent's lines are back.
    fs.writeFileSync(file('math.js'), EDITED);
    assert.deepEqual(await drain(), []);
    assert.deepEqual(
      review.state.file(1, 'math.js')?.hunks.map((hunk) => hunk.state),
      ['pending', 'pending'],
    );
    // Undone again for good: told this time.
    await review.undo({ turn: 1, path: 'math.js', hunks: [1] });
    assert.match((await drain())[0]!, /a - b/);
  });

  it('does not undo while the agent works, and a double click undoes once', async () => {
    const { root, file } = workspace();
    fs.writeFileSync(file('math.js'), EDITED);
    const { session, review } = reviewOf(root, [[{ path: 'math.js', before: ORIGINAL, after: EDITED }]]);
    session.isRunning = true;
    assert.equal((await review.undo({ turn: 1, path: 'math.js' })).status, 'busy');
    assert.equal(fs.readFileSync(file('math.js'), 'utf8'), EDITED);
    session.isRunning = false;
    const [first, second] = await Promise.all([
      review.undo({ turn: 1, path: 'math.js', hunks: [0] }),
      review.undo({ turn: 1, path: 'math.js', hunks: [0] }),
    ]);
    assert.deepEqual([first.undone, second.status], [1, 'nothing']);
    assert.equal(fs.readFileSync(file('math.js'), 'utf8'), EDITED.replace('Number(a) + Number(b)', 'a + b'));
  });

  it('refuses with a reason when the file is gone, changed mid-undo, or named outside the workspace', async () => {
    const { root, file } = workspace();
    const { review } = reviewOf(root, [[{ path: 'gone.js', before: ORIGINAL, after: EDITED }]]);
    assert.deepEqual((await review.undo({ turn: 1 })).refused, [
      { path: 'gone.js', count: 2, reason: 'the file no longer exists' },
    ]);

    // The user types between the read and the write: the write is refused, the typing kept.
    fs.writeFileSync(file('race.js'), EDITED);
    const files = reviewedFilesOf(new NodeWorkspace(root));
    const session = new ReviewEvents();
    session.turn(1, [{ path: 'race.js', before: ORIGINAL, after: EDITED }]);
    const racing = new EditReview({
      session,
      root: () => root,
      files: {
        ...files,
        read: async (absolute) => {
          const text = await files.read(absolute);
          fs.appendFileSync(absolute, '// typed meanwhile\n');
          return text;
        },
      },
    });
    const raced = await racing.undo({ turn: 1 });
    assert.match(raced.refused[0]!.reason, /changed while it was being undone; nothing was changed/);
    assert.equal(fs.readFileSync(file('race.js'), 'utf8'), `${EDITED}// typed meanwhile\n`);

    // A tampered store naming a file outside the folder: nothing outside is touched.
    const outside = path.join(path.dirname(root), `${path.basename(root)}-outside.js`);
    fs.writeFileSync(outside, EDITED);
    const tampered = reviewOf(root, [
      [{ path: `../${path.basename(outside)}`, before: ORIGINAL, after: EDITED }],
    ]).review;
    assert.match((await tampered.undo({ turn: 1 })).refused[0]!.reason, /outside the workspace/);
    assert.equal(fs.readFileSync(outside, 'utf8'), EDITED);
  });

  it('rebuilds the file as the turn found it from its hunks (Open Diff once the checkpoint is gone)', async () => {
    const { root, file } = workspace();
    fs.writeFileSync(file('math.js'), `// the user's header\n${EDITED}`);
    fs.writeFileSync(file('new.js'), 'x\n');
    const { review } = reviewOf(root, [
      [
        { path: 'math.js', before: ORIGINAL, after: EDITED },
        { path: 'new.js', before: null, after: 'x\n' },
      ],
    ]);
    await review.undo({ turn: 1, path: 'math.js', hunks: [1] });
    await review.keep({ turn: 1, path: 'math.js', hunks: [0] });
    assert.deepEqual(await review.beforeText(1, 'math.js'), {
      absolute: file('math.js'),
      text: `// the user's header\n${ORIGINAL}`,
    });
    assert.deepEqual(await review.beforeText(1, 'new.js'), { absolute: file('new.js'), text: null });
    fs.writeFileSync(file('math.js'), ORIGINAL.replace('a + b', 'a + b + 1'));
    assert.equal(await review.beforeText(1, 'math.js'), undefined, 'not when a hunk changed since');
    assert.equal(await review.beforeText(2, 'math.js'), undefined);
  });

  it('comes back as it was from the conversation’s events (a reload), decisions and what was told included', async () => {
    const { root, file } = workspace();
    fs.writeFileSync(file('math.js'), EDITED);
    const live = reviewOf(root, [[{ path: 'math.js', before: ORIGINAL, after: EDITED }]]);
    await live.review.keep({ turn: 1, path: 'math.js', hunks: [0] });
    await live.review.undo({ turn: 1, path: 'math.js', hunks: [1] });
    // Reloaded before the next prompt: the undo is still to be told.
    const reloaded = reviewOf(root, [], live.session.history);
    assert.deepEqual(
      reloaded.review.state.file(1, 'math.js')?.hunks.map((hunk) => [hunk.state, hunk.told]),
      [
        ['kept', false],
        ['undone', false],
      ],
    );
    assert.match((await reloaded.drain())[0]!, /math\.js line 6/);
    const again = reviewOf(root, [], reloaded.session.history);
    assert.deepEqual(await again.drain(), [], 'told once, across reloads');
  });
});
