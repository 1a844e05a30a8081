/**
 * Where a replay (or a second run) first parts from a recording: the step, what the recording
 * had there, what happened instead, and in a few words what differs. Values are shown as short
 * previews written without recursion, since a recorded value may be nested deeper than the stack.
 */

export interface Divergence {
  /** The recorded step where the runs part (the step the replay was at, when it ran past the recording). */
  step: number;
  /** What differs, in words: "tool result differs", "policy now asks", "the run asked for another model call". */
  what: string;
  /** What the recording had there (a short preview). */
  expected: string;
  /** What happened instead (a short preview). */
  actual: string;
  /** The agent it happened in (lead, a sub-agent, a teammate). */
  agentId?: string;
}

/** Whether two values are equal as JSON (object keys in any order, undefined properties absent). */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  return canonicalJson(a) === canonicalJson(b);
}

/**
 * JSON with object keys sorted and undefined properties left out (as a stored copy has them),
 * written without recursion: a recorded value nested deeper than the stack compares like any other.
 */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const work: unknown[] = [value];
  while (work.length > 0) {
    const item = work.pop();
    if (item instanceof Token) out.push(item.text);
    else if (Array.isArray(item)) {
      work.push(new Token(']'));
      for (let index = item.length - 1; index >= 0; index--) {
        work.push(item[index] === undefined ? null : item[index]);
        if (index > 0) work.push(new Token(','));
      }
      work.push(new Token('['));
    } else if (item && typeof item === 'object') {
      const entries = Object.entries(item as Record<string, unknown>)
        .filter(([, child]) => child !== undefined)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
      work.push(new Token('}'));
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, child] = entries[index]!;
        work.push(child, new Token(`${index > 0 ? ',' : ''}${JSON.stringify(key)}:`));
      }
      work.push(new Token('{'));
    } else out.push(JSON.stringify(item) ?? 'null');
  }
  return out.join('');
}

const PREVIEW_CHARS = 240;

/** A value as one line of JSON, cut to `max` characters; never recursive, never throws. */
export function preview(value: unknown, max = PREVIEW_CHARS): string {
  if (typeof value === 'string')
    return cut(JSON.stringify(value.length > max * 2 ? value.slice(0, max * 2) : value), max);
  const out: string[] = [];
  let length = 0;
  const work: unknown[] = [value];
  while (work.length > 0 && length <= max) {
    const item = work.pop();
    let piece: string;
    if (item instanceof Token) piece = item.text;
    else if (Array.isArray(item)) {
      work.push(new Token(']'));
      for (let index = item.length - 1; index >= 0; index--) {
        work.push(item[index]);
        if (index > 0) work.push(new Token(','));
      }
      piece = '[';
    } else if (item && typeof item === 'object') {
      const entries = Object.entries(item as Record<string, unknown>);
      work.push(new Token('}'));
      for (let index = entries.length - 1; index >= 0; index--) {
        const [key, child] = entries[index]!;
        work.push(child, new Token(`${index > 0 ? ',' : ''}${JSON.stringify(key.slice(0, max))}:`));
      }
      piece = '{';
    } else if (typeof item === 'string') piece = JSON.stringify(item.slice(0, max));
    else piece = JSON.stringify(item) ?? 'null';
    out.push(piece);
    length += piece.length;
  }
  return cut(out.join(''), max);
}

class Token {
  constructor(readonly text: string) {}
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
