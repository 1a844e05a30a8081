/**
 * Collects streamed tool-call argument fragments and parses them once at the end.
 * Joining an array is linear in the total size; re-parsing the partial JSON on every delta
 * (as some clients do) is quadratic and freezes the host on a 400 KB argument.
 */
import type { LlmStreamPart } from './llm-client';

/**
 * Arguments larger than this are not kept. A model cannot write more in one answer (the largest
 * output limits are about 128k tokens, roughly 500k characters), no tool takes more, and a hostile
 * or broken server streaming 50 MB would otherwise cost memory many times that — and leave a
 * conversation too large to send again. Beyond it, fragments are counted, not kept.
 */
export const MAX_ARGUMENT_CHARS = 1_000_000;
/** Deeper nesting is refused: every later step (policy, hashing, estimates) walks the input. */
export const MAX_ARGUMENT_DEPTH = 64;

interface PendingCall {
  id: string;
  name: string;
  fragments: string[];
  /** Characters received, kept or not. */
  size: number;
}

export class ToolCallAccumulator {
  private readonly pending = new Map<string | number, PendingCall>();

  start(key: string | number, id: string, name: string): void {
    this.pending.set(key, { id, name, fragments: [], size: 0 });
  }

  has(key: string | number): boolean {
    return this.pending.has(key);
  }

  /** Appends a fragment; returns the call's id so callers can emit a delta part. */
  append(key: string | number, fragment: string): string | undefined {
    const call = this.pending.get(key);
    if (!call) return undefined;
    call.size += fragment.length;
    if (call.size <= MAX_ARGUMENT_CHARS) call.fragments.push(fragment);
    else call.fragments.length = 0;
    return call.id;
  }

  /** Completes one call. Empty arguments mean `{}` (models omit them for no-input tools). */
  finish(key: string | number): LlmStreamPart | undefined {
    const call = this.pending.get(key);
    if (!call) return undefined;
    this.pending.delete(key);
    const invalid = (rawArguments: string, error: string): LlmStreamPart => ({
      type: 'tool_call_invalid',
      id: call.id,
      name: call.name,
      rawArguments,
      error,
    });
    if (call.size > MAX_ARGUMENT_CHARS)
      return invalid(
        '',
        `the arguments are ${(call.size / 1e6).toFixed(1)} million characters; at most ${MAX_ARGUMENT_CHARS / 1e6} million are accepted`,
      );
    const raw = call.fragments.join('');
    if (raw.trim() === '') return { type: 'tool_call', id: call.id, name: call.name, input: {} };
    let input: unknown;
    try {
      input = JSON.parse(raw);
    } catch (error) {
      return invalid(raw, error instanceof Error ? error.message : String(error));
    }
    const depth = nestingDepth(input, MAX_ARGUMENT_DEPTH);
    if (depth > MAX_ARGUMENT_DEPTH)
      return invalid(raw.slice(0, 2_000), `the arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep`);
    return { type: 'tool_call', id: call.id, name: call.name, input };
  }

  /** Completes every call still open, in the order they started. */
  finishAll(): LlmStreamPart[] {
    return [...this.pending.keys()].map((key) => this.finish(key)).filter((part) => part !== undefined);
  }
}

/** How deeply `value` nests arrays and objects, counted without recursion; stops past `limit`. */
export function nestingDepth(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop()!;
    if (typeof current !== 'object' || current === null) continue;
    if (depth + 1 > deepest) deepest = depth + 1;
    if (deepest > limit) return deepest;
    for (const child of Object.values(current as Record<string, unknown>)) stack.push([child, depth + 1]);
  }
  return deepest;
}
