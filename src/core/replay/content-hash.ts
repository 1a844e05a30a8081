/**
 * Canonical JSON and the content refs of recorded runs (recording.ts): the same value always
 * gives the same text (object keys sorted, no spaces, JSON's own number and string forms), so
 * the same value is kept once. Walked with a stack of its own, never by recursion: a tool input
 * nested 10,000 levels deep (which JSON.stringify cannot write) is written like any other.
 */
import { createHash } from 'node:crypto';
import type { ContentRef } from './recording';

/** A value canonical JSON cannot write (a cycle, a BigInt): said as such, never a crash. */
export class CanonicalJsonError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CanonicalJsonError';
  }
}

type Frame =
  | { kind: 'array'; items: readonly unknown[]; index: number; owner: object }
  | { kind: 'object'; keys: string[]; values: Record<string, unknown>; index: number; owner: object };

/** The canonical JSON text of `value` (undefined, functions and symbols are left out as JSON does). */
export function canonicalJson(value: unknown): string {
  const out: string[] = [];
  const stack: Frame[] = [];
  /** The objects being written (a cycle would never end). */
  const open = new Set<object>();
  // Writes a scalar, or opens a container (pushing its frame); `inArray` writes null for nothing.
  const begin = (original: unknown, inArray: boolean): boolean => {
    const node = withToJson(original);
    const json = scalar(node);
    if (json !== undefined) {
      out.push(json);
      return true;
    }
    if (typeof node !== 'object' || node === null) {
      if (inArray) out.push('null');
      return inArray;
    }
    if (open.has(node)) throw new CanonicalJsonError('The value refers to itself (a cycle): it cannot be recorded.');
    open.add(node);
    if (Array.isArray(node)) {
      out.push('[');
      stack.push({ kind: 'array', items: node, index: 0, owner: node });
    } else {
      const values = node as Record<string, unknown>;
      out.push('{');
      stack.push({ kind: 'object', keys: Object.keys(values).sort(), values, index: 0, owner: node });
    }
    return true;
  };
  if (!begin(value, false)) return 'null';
  while (stack.length > 0) {
    const frame = stack.at(-1)!;
    if (frame.kind === 'array') {
      if (frame.index >= frame.items.length) {
        out.push(']');
        open.delete(frame.owner);
        stack.pop();
        continue;
      }
      if (frame.index > 0) out.push(',');
      begin(frame.items[frame.index++], true);
      continue;
    }
    if (frame.index >= frame.keys.length) {
      out.push('}');
      open.delete(frame.owner);
      stack.pop();
      continue;
    }
    const key = frame.keys[frame.index++]!;
    const child = frame.values[key];
    if (!writable(child)) continue;
    if (out.at(-1) !== '{') out.push(',');
    out.push(JSON.stringify(key), ':');
    begin(child, false);
  }
  return out.join('');
}

/** The ref of a canonical JSON text. */
export function refOfJson(json: string): ContentRef {
  return `sha256:${createHash('sha256').update(json).digest('hex')}`;
}

/** A value's canonical JSON and its ref. */
export function contentOf(value: unknown): { ref: ContentRef; json: string } {
  const json = canonicalJson(value);
  return { ref: refOfJson(json), json };
}

const REF_SHAPE = /^sha256:[0-9a-f]{64}$/;

/** Whether `text` is a ContentRef (a ref read from a file is checked before it is used). */
export function isContentRef(text: unknown): text is ContentRef {
  return typeof text === 'string' && REF_SHAPE.test(text);
}

function scalar(node: unknown): string | undefined {
  switch (typeof node) {
    case 'string':
      return JSON.stringify(node);
    case 'number':
      return Number.isFinite(node) ? JSON.stringify(node) : 'null';
    case 'boolean':
      return node ? 'true' : 'false';
    case 'bigint':
      throw new CanonicalJsonError('The value holds a BigInt, which JSON cannot write.');
    default:
      return node === null ? 'null' : undefined;
  }
}

/** Whether an object's field is written at all (JSON leaves out undefined, functions, symbols). */
function writable(node: unknown): boolean {
  return node !== undefined && typeof node !== 'function' && typeof node !== 'symbol';
}

/** Objects that say how they are written (a Date's toJSON), as JSON.stringify reads them. */
function withToJson(node: unknown): unknown {
  if (typeof node !== 'object' || node === null) return node;
  const toJSON = (node as { toJSON?: unknown }).toJSON;
  return typeof toJSON === 'function' ? (toJSON as () => unknown).call(node) : node;
}
