/**
 * Collects streamed tool-call argument fragments and parses them once at the end.
 * Joining an array is linear in the total size; re-parsing the partial JSON on every delta
 * (as some clients do) is quadratic and freezes the host on a 400 KB argument.
 */
import type { LlmStreamPart } from './llm-client';

interface PendingCall {
  id: string;
  name: string;
  fragments: string[];
}

export class ToolCallAccumulator {
  private readonly pending = new Map<string | number, PendingCall>();

  start(key: string | number, id: string, name: string): void {
    this.pending.set(key, { id, name, fragments: [] });
  }

  has(key: string | number): boolean {
    return this.pending.has(key);
  }

  /** Appends a fragment; returns the call's id so callers can emit a delta part. */
  append(key: string | number, fragment: string): string | undefined {
    const call = this.pending.get(key);
    if (!call) return undefined;
    call.fragments.push(fragment);
    return call.id;
  }

  /** Completes one call. Empty arguments mean `{}` (models omit them for no-input tools). */
  finish(key: string | number): LlmStreamPart | undefined {
    const call = this.pending.get(key);
    if (!call) return undefined;
    this.pending.delete(key);
    const raw = call.fragments.join('');
    if (raw.trim() === '') return { type: 'tool_call', id: call.id, name: call.name, input: {} };
    try {
      return { type: 'tool_call', id: call.id, name: call.name, input: JSON.parse(raw) };
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      return { type: 'tool_call_invalid', id: call.id, name: call.name, rawArguments: raw, error: reason };
    }
  }

  /** Completes every call still open, in the order they started. */
  finishAll(): LlmStreamPart[] {
    return [...this.pending.keys()].map((key) => this.finish(key)).filter((part) => part !== undefined);
  }
}
