/**
 * Glob patterns as VS Code reads them (`**\/` any folders, `**` anything, `*` and `?` within one
 * name, `{a,b}` alternatives, `[abc]` and `[!abc]` classes), matched over `/`-separated relative
 * paths where no editor is there to match for us: the list tool's patterns (the model's), quoted
 * patterns in commands (the model's), approver path rules and instruction files' `applyTo` (a
 * repository's). All of them come from outside, and a regular expression made from `*a*a*a*a…b`
 * or `**\/**\/**\/…/x` backtracks for hours on a path of a few dozen characters, in the thread
 * that runs the conversation. So a glob is a small automaton whose states are all followed at
 * once over the path (Thompson's construction): the work grows with the glob's length times the
 * path's, never more.
 */

/** A compiled glob: only `test` is used. */
export interface PathMatcher {
  test(relative: string): boolean;
}

interface State {
  /** The characters that lead on, and where to: `to` is an index into the states. */
  steps: Array<{ accepts: (character: string) => boolean; to: number }>;
  /** Where this state leads without reading a character. */
  free: number[];
}

const notSlash = (character: string) => character !== '/';
const anything = () => true;

/** Throws on an unbalanced `{` (or a class the engine refuses), with a message saying which. */
export function compileGlob(glob: string): PathMatcher {
  const states: State[] = [];
  const add = (): number => states.push({ steps: [], free: [] }) - 1;
  const start = add();
  // Each open `{`: the state its alternatives start from, and the ends of those finished.
  const groups: Array<{ fork: number; ends: number[] }> = [];
  let current = start;
  for (let index = 0; index < glob.length; index++) {
    const character = glob[index]!;
    if (character === '*' && glob[index + 1] === '*') {
      if (glob[index + 2] === '/') {
        // `(?:[^/]+/)*`: zero or more whole folders.
        const inName = add();
        const after = add();
        states[current]!.free.push(after);
        states[current]!.steps.push({ accepts: notSlash, to: inName });
        states[inName]!.steps.push({ accepts: notSlash, to: inName }, { accepts: (c) => c === '/', to: current });
        current = after;
        index += 2;
      } else {
        const after = add();
        states[current]!.steps.push({ accepts: anything, to: current });
        states[current]!.free.push(after);
        current = after;
        index += 1;
      }
    } else if (character === '*') {
      const after = add();
      states[current]!.steps.push({ accepts: notSlash, to: current });
      states[current]!.free.push(after);
      current = after;
    } else if (character === '?') current = step(states, current, notSlash, add);
    else if (character === '{') {
      const fork = current;
      const first = add();
      states[fork]!.free.push(first);
      groups.push({ fork, ends: [] });
      current = first;
    } else if (character === ',' && groups.length > 0) {
      const group = groups[groups.length - 1]!;
      group.ends.push(current);
      const next = add();
      states[group.fork]!.free.push(next);
      current = next;
    } else if (character === '}' && groups.length > 0) {
      const group = groups.pop()!;
      const join = add();
      for (const end of [...group.ends, current]) states[end]!.free.push(join);
      current = join;
    } else if (character === '[') {
      const close = glob.indexOf(']', index + 1);
      if (close < 0) current = step(states, current, (c) => c === '[', add);
      else {
        const body = glob.slice(index + 1, close).replace(/\\/g, '\\\\');
        // One character against a class: no quantifier, so nothing to backtrack.
        const single = new RegExp(`^[${body.startsWith('!') ? `^${body.slice(1)}` : body}]$`);
        current = step(states, current, (c) => single.test(c), add);
        index = close;
      }
    } else current = step(states, current, (c) => c === character, add);
  }
  if (groups.length > 0) throw new Error(`Unbalanced { in the glob ${glob}`);
  return new GlobWalker(states, start, current);
}

function step(states: State[], from: number, accepts: (character: string) => boolean, add: () => number): number {
  const to = add();
  states[from]!.steps.push({ accepts, to });
  return to;
}

/** The states the automaton may be in at once: kept as found, each set walked from once. */
const MAX_CACHED_SETS = 4_096;
const DEAD = -1;
const UNKNOWN = -2;

/**
 * Follows every state at once (the work is the glob's length times the path's), and remembers
 * each set of states it met and where each character led from it, so a glob matched against
 * many paths (a listing of the workspace) walks most characters by one look-up. Past
 * MAX_CACHED_SETS sets (a glob whose sets multiply) it walks without remembering.
 */
class GlobWalker implements PathMatcher {
  private readonly sets: number[][] = [];
  private readonly ids = new Map<string, number>();
  private readonly moves: Array<Map<string, number>> = [];
  private readonly ascii: Int32Array[] = [];
  private readonly accepting: boolean[] = [];
  private readonly startId: number;

  constructor(
    private readonly states: State[],
    start: number,
    private readonly accept: number,
  ) {
    this.startId = this.idOf(closure(states, [start]))!;
  }

  test(relative: string): boolean {
    let id = this.startId;
    let set = this.sets[id]!;
    let remembered = true;
    for (let at = 0; at < relative.length;) {
      const code = relative.codePointAt(at)!;
      const character = code > 0xffff ? relative.slice(at, at + 2) : relative[at]!;
      at += character.length;
      if (remembered) {
        // ASCII by table, the rest by map: the common path is one array read.
        const known = code < 128 ? this.ascii[id]![code] : this.moves[id]!.get(character);
        if (known === DEAD) return false;
        if (known !== undefined && known !== UNKNOWN) {
          id = known;
          set = this.sets[id]!;
          continue;
        }
      }
      const next = this.step(set, character);
      if (remembered) {
        const nextId = next.length === 0 ? DEAD : this.idOf(next);
        if (nextId !== undefined) {
          if (code < 128) this.ascii[id]![code] = nextId;
          else this.moves[id]!.set(character, nextId);
          if (nextId === DEAD) return false;
          id = nextId;
        } else remembered = false;
      }
      if (next.length === 0) return false;
      set = next;
    }
    return remembered ? this.accepting[id]! : set.includes(this.accept);
  }

  private step(set: readonly number[], character: string): number[] {
    const next: number[] = [];
    for (const index of set)
      for (const { accepts, to } of this.states[index]!.steps) if (accepts(character)) next.push(to);
    return next.length === 0 ? next : closure(this.states, next);
  }

  /** The id of a set of states, met before or now; undefined when no more are remembered. */
  private idOf(set: number[]): number | undefined {
    const key = [...set].sort((a, b) => a - b).join(',');
    const known = this.ids.get(key);
    if (known !== undefined) return known;
    if (this.sets.length >= MAX_CACHED_SETS) return undefined;
    const id = this.sets.push(set) - 1;
    this.ids.set(key, id);
    this.moves.push(new Map());
    this.ascii.push(new Int32Array(128).fill(UNKNOWN));
    this.accepting.push(set.includes(this.accept));
    return id;
  }
}

/** The states reachable from `from` without reading, each once. */
function closure(states: State[], from: number[]): number[] {
  const seen = new Uint8Array(states.length);
  const result: number[] = [];
  const stack = [...from];
  while (stack.length > 0) {
    const index = stack.pop()!;
    if (seen[index]) continue;
    seen[index] = 1;
    result.push(index);
    stack.push(...states[index]!.free);
  }
  return result;
}
