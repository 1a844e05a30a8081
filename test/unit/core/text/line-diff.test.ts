import assert from 'node:assert/strict';
import { diffLines, splitLines, type LineChange } from '../../../../src/core/text/line-diff';

/** The length of the longest common subsequence, the slow sure way. */
function lcsLength(a: readonly string[], b: readonly string[]): number {
  const lengths = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--)
    for (let j = b.length - 1; j >= 0; j--)
      lengths[i]![j] = a[i] === b[j] ? lengths[i + 1]![j + 1]! + 1 : Math.max(lengths[i + 1]![j]!, lengths[i]![j + 1]!);
  return lengths[0]![0]!;
}

/** `before` with the changes applied (their lines taken from `after`). */
function apply(before: readonly string[], after: readonly string[], changes: readonly LineChange[]): string[] {
  const result: string[] = [];
  let next = 0;
  for (const change of changes) {
    result.push(...before.slice(next, change.beforeStart), ...after.slice(change.afterStart, change.afterEnd));
    next = change.beforeEnd;
  }
  return [...result, ...before.slice(next)];
}

/** A small deterministic random source, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('line diff', () => {
  it('finds a shortest edit for thousands of random pairs, in changes separated by unchanged lines', () => {
    const next = random(7);
    const lines = () => Array.from({ length: Math.floor(next() * 14) }, () => 'abcd'[Math.floor(next() * 4)]!);
    for (let round = 0; round < 3_000; round++) {
      const before = lines();
      const after = lines();
      const changes = diffLines(before, after);
      assert.deepEqual(apply(before, after, changes), after, `${before} -> ${after}`);
      const edited = changes.reduce(
        (sum, change) => sum + change.beforeEnd - change.beforeStart + change.afterEnd - change.afterStart,
        0,
      );
      assert.equal(edited, before.length + after.length - 2 * lcsLength(before, after), `${before} -> ${after}`);
      changes.slice(1).forEach((change, index) => {
        assert.ok(change.beforeStart > changes[index]!.beforeEnd, 'an unchanged line between two changes');
        assert.ok(change.afterStart > changes[index]!.afterEnd);
      });
    }
  });

  it('reports nothing for equal texts and one change for an insertion into an empty text', () => {
    assert.deepEqual(diffLines(['a', 'b'], ['a', 'b']), []);
    assert.deepEqual(diffLines([], ['x']), [{ beforeStart: 0, beforeEnd: 0, afterStart: 0, afterEnd: 1 }]);
    assert.deepEqual(diffLines(['a', 'b', 'c'], ['a', 'c']), [
      { beforeStart: 1, beforeEnd: 2, afterStart: 1, afterEnd: 1 },
    ]);
  });

  it('compares a 200,000-line file with a few changes, and gives up line by line past the limit', () => {
    const before = Array.from({ length: 200_000 }, (_, index) => `line ${index}`);
    const after = [...before];
    after[10] = 'changed';
    after.splice(150_000, 0, 'inserted');
    after.splice(199_000, 2);
    // Linear in the size for a few edits (a comparison of every line pair would not finish).
    assert.deepEqual(diffLines(before, after), [
      { beforeStart: 10, beforeEnd: 11, afterStart: 10, afterEnd: 11 },
      { beforeStart: 150_000, beforeEnd: 150_000, afterStart: 150_000, afterEnd: 150_001 },
      { beforeStart: 198_999, beforeEnd: 199_001, afterStart: 199_000, afterEnd: 199_000 },
    ]);
    // Two texts with nothing in common beyond the limit: one change covering the middle.
    const other = before.slice(0, 5_000).map((line) => `${line}!`);
    assert.deepEqual(diffLines(before.slice(0, 5_000), other, 100), [
      { beforeStart: 0, beforeEnd: 5_000, afterStart: 0, afterEnd: 5_000 },
    ]);
  });

  it('splits lines as editors do: \\r\\n, \\r and \\n, a final break ending in an empty line', () => {
    assert.deepEqual(splitLines('a\r\nb\rc\nd'), ['a', 'b', 'c', 'd']);
    assert.deepEqual(splitLines('a\n'), ['a', '']);
    assert.deepEqual(splitLines(''), ['']);
  });
});
