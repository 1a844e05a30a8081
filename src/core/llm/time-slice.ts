/**
 * Streams share the event loop. A model stream's parser hands over every event of a network
 * chunk in one go, and with several sessions streaming at once their chunks arrive together:
 * without a break, the extension host would stay busy for tens of milliseconds at a time (the
 * editor's own work — typing, the other webviews — waits meanwhile). After SLICE_MS of work
 * without a break, a stream waits for the next turn of the event loop; every stream that needs a
 * turn waits for the same one, and the first to go on uses the new slice, so one turn holds
 * about one slice however many streams there are.
 */

/** Work between breaks (ms): well under a frame, and large enough that breaks cost nothing. */
export const SLICE_MS = 4;

let sliceStart = performance.now();
let nextTurn: Promise<void> | undefined;

const breakOff: (resume: () => void) => void =
  typeof setImmediate === 'function' ? (resume) => setImmediate(resume) : (resume) => setTimeout(resume, 0);

/** Undefined while the slice lasts; else a promise of the next turn of the event loop. */
export function takeTurn(): Promise<void> | undefined {
  if (performance.now() - sliceStart < SLICE_MS) return undefined;
  return (nextTurn ??= new Promise<void>((resolve) =>
    breakOff(() => {
      nextTurn = undefined;
      sliceStart = performance.now();
      resolve();
    }),
  ));
}

const LOOP_TURNED = Symbol('the event loop turned');
let turned: Promise<typeof LOOP_TURNED> | undefined;

/**
 * A promise that settles at the next turn of the event loop (one shared by everyone asking in
 * the same turn). Raced against a stream's next part it tells whether that part was already
 * there (it wins: a microtask) or has to come from the network (the turn wins).
 */
export function loopTurned(): Promise<typeof LOOP_TURNED> {
  return (turned ??= new Promise((resolve) =>
    breakOff(() => {
      turned = undefined;
      resolve(LOOP_TURNED);
    }),
  ));
}

export function isLoopTurn(value: unknown): value is typeof LOOP_TURNED {
  return value === LOOP_TURNED;
}
