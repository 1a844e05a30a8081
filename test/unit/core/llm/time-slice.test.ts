/**
 * Streams share the event loop: after a slice of work a stream waits for the next turn, every
 * stream waits for the same one, and timers (the editor's other work) run in between.
 */
import assert from 'node:assert/strict';
import { SLICE_MS, takeTurn } from '../../../../src/core/llm/time-slice';

/** Works without a break for `ms` (what a burst of stream events does). */
function busy(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // work
  }
}

describe('time slices between streams', () => {
  it('lets work go on within a slice, then gives every stream the same next turn, with timers between', async () => {
    // A fresh slice begins at a turn.
    await (takeTurn() ?? Promise.resolve());
    busy(SLICE_MS + 2);
    const first = takeTurn();
    const second = takeTurn();
    assert.ok(first, 'after a slice of work, a stream waits');
    assert.equal(first, second, 'every stream waits for the same turn');
    let timerRan = false;
    setTimeout(() => (timerRan = true), 0);
    busy(2);
    await first;
    // setImmediate comes after the timers of the same loop turn only when they are due; wait
    // for the turn after at most a few more, which gives the timer its chance.
    for (let turns = 0; !timerRan && turns < 100; turns++) {
      busy(SLICE_MS + 1);
      await takeTurn();
    }
    assert.ok(timerRan, 'a timer ran while the streams waited for their turn');
    assert.equal(takeTurn(), undefined, 'a new slice began with the turn');
  });
});
