import assert from 'node:assert/strict';
import {
  locateCode,
  shiftRange,
  shiftRangeThrough,
  type TextChange,
} from '../../../../src/core/review/comment-anchors';

/** Applies a change to text as the editor does (so the tests check ranges against real text). */
function apply(text: string, change: TextChange): string {
  const lines = text.split('\n');
  const offset = (line: number, character: number) =>
    lines.slice(0, line).reduce((sum, item) => sum + item.length + 1, 0) + character;
  const start = offset(change.startLine, change.startCharacter);
  const end = offset(change.endLine, change.endCharacter);
  return text.slice(0, start) + change.text + text.slice(end);
}

const FILE = ['a', 'b', 'c', 'target one', 'target two', 'd', 'e'].join('\n');
const CODE = ['target one', 'target two'];
const AT = { startLine: 3, endLine: 4 };

function follow(text: string, changes: TextChange[]) {
  let after = text;
  for (const change of changes) after = apply(after, change);
  const shifted = shiftRangeThrough(AT, changes);
  return { shifted, located: locateCode(after.split('\n'), shifted, CODE), after };
}

describe('review comments follow their lines', () => {
  it('lines added above move the comment down; removed above move it up', () => {
    const added = follow(FILE, [{ startLine: 1, startCharacter: 0, endLine: 1, endCharacter: 0, text: 'x\ny\n' }]);
    assert.deepEqual(added.located, { startLine: 5, endLine: 6, outdated: false });
    assert.equal(added.shifted.touched, false);
    const removed = follow(FILE, [{ startLine: 0, startCharacter: 0, endLine: 2, endCharacter: 0, text: '' }]);
    assert.deepEqual(removed.located, { startLine: 1, endLine: 2, outdated: false });
  });

  it('a line inserted right at the start of the first line moves it, below it leaves it', () => {
    const above = follow(FILE, [{ startLine: 3, startCharacter: 0, endLine: 3, endCharacter: 0, text: 'new\n' }]);
    assert.deepEqual(above.located, { startLine: 4, endLine: 5, outdated: false });
    const below = follow(FILE, [
      { startLine: 5, startCharacter: 1, endLine: 5, endCharacter: 1, text: '\nmore\nlines' },
    ]);
    assert.deepEqual(below.located, { startLine: 3, endLine: 4, outdated: false });
  });

  it('an edit inside its lines makes it outdated, on the lines that are left', () => {
    const edited = follow(FILE, [{ startLine: 4, startCharacter: 0, endLine: 4, endCharacter: 6, text: 'changed' }]);
    assert.deepEqual(edited.located, { startLine: 3, endLine: 4, outdated: true });
  });

  it('its lines deleted: outdated, where they were, within the file', () => {
    const gone = follow(FILE, [{ startLine: 2, startCharacter: 0, endLine: 6, endCharacter: 1, text: '' }]);
    assert.equal(gone.located.outdated, true);
    assert.ok(gone.located.endLine <= gone.after.split('\n').length - 1);
  });

  it('the whole file rewritten with the block moved: found again, nearest to where it was', () => {
    const rewritten = ['new header', 'target one', 'target two', 'a', 'b', 'c', 'x', 'target one', 'target two'].join(
      '\n',
    );
    const lines = FILE.split('\n');
    const whole = follow(FILE, [
      {
        startLine: 0,
        startCharacter: 0,
        endLine: lines.length - 1,
        endCharacter: lines.at(-1)!.length,
        text: rewritten,
      },
    ]);
    assert.equal(whole.shifted.touched, true);
    assert.deepEqual(whole.located, { startLine: 1, endLine: 2, outdated: false });
  });

  it('several changes in one event (bottom first, as the editor sends them) add up', () => {
    const changes: TextChange[] = [
      { startLine: 6, startCharacter: 0, endLine: 6, endCharacter: 0, text: 'z\n' },
      { startLine: 0, startCharacter: 0, endLine: 0, endCharacter: 0, text: 'p\nq\n' },
    ];
    assert.deepEqual(follow(FILE, changes).located, { startLine: 5, endLine: 6, outdated: false });
  });

  it('a line break typed inside the range stretches it', () => {
    const shifted = shiftRange(AT, { startLine: 3, startCharacter: 2, endLine: 3, endCharacter: 2, text: '\n' });
    assert.deepEqual(shifted, { startLine: 3, endLine: 5, touched: true });
  });

  it('a comment on blank lines is not moved to another blank line', () => {
    const located = locateCode(['x', '', 'y', ''], { startLine: 0, endLine: 0 }, ['']);
    assert.deepEqual(located, { startLine: 0, endLine: 0, outdated: true });
  });
});
