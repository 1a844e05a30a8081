import assert from 'node:assert/strict';
import { computeHunks, minimalEdit, placeHunks, replaceLines, type Hunk } from '../../../../src/core/review/hunks';
import { splitLines } from '../../../../src/core/text/line-diff';

const BEFORE = ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', ''].join('\n');
// Line 2 changed, line 8 removed and two lines added after line 10.
const AFTER = ['one', 'TWO', 'three', 'four', 'five', 'six', 'seven', 'nine', 'ten', 'eleven', 'twelve', ''].join('\n');

/** Undoes hunks found in `text` as undo would: their lines put back where they are found. */
function undo(text: string, hunks: Hunk[]): string {
  const placed = placeHunks(
    splitLines(text),
    hunks.map((hunk) => ({ hunk, side: 'added' as const, expected: hunk.afterLine })),
  );
  return replaceLines(
    text,
    hunks.map((hunk, index) => {
      assert.notEqual(placed[index], undefined, `hunk at ${hunk.afterLine} found`);
      return { at: placed[index]!, count: hunk.added.length, lines: hunk.removed };
    }),
  );
}

describe('hunks of an edit', () => {
  it('are the changed runs with at most three unchanged lines around, never a neighbour’s lines', () => {
    const hunks = computeHunks(BEFORE, AFTER);
    assert.deepEqual(
      hunks.map((hunk) => [hunk.afterLine, hunk.removed, hunk.added, hunk.above, hunk.below, hunk.atStart, hunk.atEnd]),
      [
        [1, ['two'], ['TWO'], ['one'], ['three', 'four', 'five'], true, false],
        [7, ['eight'], [], ['five', 'six', 'seven'], ['nine', 'ten'], false, false],
        [9, [], ['eleven', 'twelve'], ['nine', 'ten'], [''], false, true],
      ],
    );
  });

  it('undone all together give back the text before, byte for byte; undone one by one too', () => {
    const hunks = computeHunks(BEFORE, AFTER);
    assert.equal(undo(AFTER, hunks), BEFORE);
    // One at a time, bottom hunk first then the top one: each found again in the changed text.
    let text = AFTER;
    for (const hunk of [hunks[2]!, hunks[0]!, hunks[1]!]) {
      const [at] = placeHunks(splitLines(text), [{ hunk, side: 'added', expected: hunk.afterLine }]);
      assert.notEqual(at, undefined);
      text = replaceLines(text, [{ at: at!, count: hunk.added.length, lines: hunk.removed }]);
    }
    assert.equal(text, BEFORE);
  });

  it('are found again after lines were added above them, not where their own lines changed', () => {
    const [first, second, third] = computeHunks(BEFORE, AFTER);
    const shifted = `header\nmore header\n${AFTER}`;
    const lines = splitLines(shifted);
    assert.deepEqual(
      placeHunks(
        lines,
        [first!, second!, third!].map((hunk) => ({ hunk, side: 'added' as const, expected: hunk.afterLine })),
      ),
      [3, 9, 11],
    );
    // A hunk with little context around it is pinned to the file's end: not found once lines follow it.
    const [thin] = computeHunks('a', 'a\nb');
    assert.deepEqual([thin!.above, thin!.below, thin!.atEnd], [['a'], [], true]);
    for (const text of ['a\nb\nc', 'h\na\nb']) {
      assert.deepEqual(placeHunks(splitLines(text), [{ hunk: thin!, side: 'added', expected: 1 }]), [undefined], text);
    }
    assert.deepEqual(placeHunks(['a', 'b'], [{ hunk: thin!, side: 'added', expected: 1 }]), [1]);
    const userEdited = AFTER.replace('eleven', 'eleven (the user’s)');
    assert.deepEqual(
      placeHunks(splitLines(userEdited), [{ hunk: third!, side: 'added', expected: third!.afterLine }]),
      [undefined],
    );
    // A changed line of the context counts too: the hunk is not "as the agent left it" there.
    const contextEdited = AFTER.replace('six', 'SIX');
    assert.deepEqual(
      placeHunks(splitLines(contextEdited), [{ hunk: second!, side: 'added', expected: second!.afterLine }]),
      [undefined],
    );
  });

  it('never give two hunks the same lines: alike hunks each keep their own, the nearer claim wins', () => {
    const copy = (middle: string) => ['p', 'q', 'r', middle, 's', 't', 'u'];
    const before = ['filler', ...copy('x'), 'w', ...copy('x'), 'end'].join('\n');
    const after = ['filler', ...copy('y'), 'w', ...copy('y'), 'end'].join('\n');
    const [top, bottom] = computeHunks(before, after);
    // Alike to the letter, context included: only where they are tells them apart.
    assert.deepEqual([top!.above, top!.added, top!.below], [bottom!.above, bottom!.added, bottom!.below]);
    const requests = [top!, bottom!].map((hunk) => ({ hunk, side: 'added' as const, expected: hunk.afterLine }));
    // A line added at the top moves both: each is found one line down, not both on the same lines.
    assert.deepEqual(placeHunks(splitLines(`new first line\n${after}`), requests), [5, 13]);
    // One copy gone: the other is claimed once. Undoing either would change the same lines the same way.
    const oneLeft = ['filler', 'w', ...copy('y'), 'end'].join('\n');
    assert.deepEqual(placeHunks(splitLines(oneLeft), requests), [5, undefined]);
  });

  it('place hundreds of hunks of a long file after the user added a line on top, and undo them all', () => {
    const before = Array.from({ length: 5_000 }, (_, index) => `line ${index}`);
    const after = before.map((line, index) => (index % 10 === 5 ? `${line} (edited)` : line));
    const hunks = computeHunks(before.join('\n'), after.join('\n'));
    assert.equal(hunks.length, 500);
    const shifted = `// the user's line\n${after.join('\n')}`;
    const placed = placeHunks(
      splitLines(shifted),
      hunks.map((hunk) => ({ hunk, side: 'added' as const, expected: hunk.afterLine })),
    );
    assert.deepEqual(
      placed,
      hunks.map((hunk) => hunk.afterLine + 1),
    );
    const replacements = hunks.map((hunk, index) => ({ at: placed[index]!, count: 1, lines: hunk.removed }));
    assert.equal(replaceLines(shifted, replacements), `// the user's line\n${before.join('\n')}`);
  });

  it('treat a created file as one hunk of all its lines, anchored to both ends', () => {
    const [created, ...rest] = computeHunks(null, 'export {};\n');
    assert.deepEqual(rest, []);
    assert.deepEqual(created?.added, ['export {};', '']);
    assert.equal(created?.atStart && created.atEnd, true);
    assert.deepEqual(placeHunks(['export {};', ''], [{ hunk: created!, side: 'added', expected: 0 }]), [0]);
    assert.deepEqual(placeHunks(['export {};', 'more', ''], [{ hunk: created!, side: 'added', expected: 0 }]), [
      undefined,
    ]);
  });

  it('keep CRLF line breaks, and the untouched lines of a mixed file keep their own', () => {
    const before = 'a\r\nb\r\nc\r\n';
    const after = 'a\r\nB\r\nc\r\nd\r\n';
    const hunks = computeHunks(before, after);
    assert.equal(undo(after, hunks), before);
    const mixed = 'a\nb\r\nc\rd';
    assert.equal(replaceLines(mixed, [{ at: 3, count: 1, lines: ['D', 'E'] }]), 'a\nb\r\nc\rD\nE');
  });

  it('put back a last line without a final line break exactly', () => {
    const before = 'a\nb';
    for (const after of ['a', 'a\nb\nc', 'a\nb\n', 'x']) {
      assert.equal(undo(after, computeHunks(before, after)), before, `undoing ${JSON.stringify(after)}`);
    }
  });

  it('make the smallest edit, never splitting \\r\\n or a surrogate pair', () => {
    assert.deepEqual(minimalEdit('abc', 'aXc'), { start: 1, end: 2, text: 'X' });
    assert.deepEqual(minimalEdit('x\r\ny', 'x\rz'), { start: 1, end: 4, text: '\rz' });
    assert.deepEqual(minimalEdit('a😀b', 'a😁b'), { start: 1, end: 3, text: '😁' });
    assert.deepEqual(minimalEdit('same', 'same'), { start: 4, end: 4, text: '' });
  });
});
