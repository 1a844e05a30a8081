/**
 * A model answer as a recording keeps it: at most MAX_RECORDED_ANSWER_CHARS of what it streamed.
 * An answer is a few thousand tokens; one of megabytes is a hostile or broken server (a 12 MB
 * tool argument the loop refuses), and what the product refused is kept nowhere — the recording
 * included. Past the budget, texts are cut and tool arguments left out, and the step says so: a
 * replay diverges there, and says why.
 */
import type { LlmStreamPart } from '../llm/llm-client';

export const MAX_RECORDED_ANSWER_CHARS = 1_000_000;

export function boundedAnswer(
  parts: readonly LlmStreamPart[],
  budget = MAX_RECORDED_ANSWER_CHARS,
): { parts: LlmStreamPart[]; note?: string } {
  let left = budget;
  let total = 0;
  let cut = false;
  /** A string payload within what is left of the budget. */
  const take = (text: string): string => {
    total += text.length;
    if (text.length <= left) {
      left -= text.length;
      return text;
    }
    cut = true;
    const kept = text.slice(0, Math.max(0, left));
    left = 0;
    return kept;
  };
  const bounded = parts.map((part): LlmStreamPart => {
    switch (part.type) {
      case 'text_delta':
      case 'thinking_delta':
        return { ...part, text: take(part.text) };
      case 'tool_call_delta':
        return { ...part, argumentsDelta: take(part.argumentsDelta) };
      case 'tool_call_invalid':
        return { ...part, rawArguments: take(part.rawArguments) };
      case 'tool_call': {
        const size = sizeOf(part.input);
        if (size !== undefined && size <= left) {
          total += size;
          left -= size;
          return part;
        }
        cut = true;
        left = 0;
        total += size ?? 0;
        const what =
          size === undefined ? 'an input too deep to write' : `an input of ${size.toLocaleString('en-US')} characters`;
        return { ...part, input: { unrecorded: what } };
      }
      default:
        return part;
    }
  });
  if (!cut) return { parts: bounded };
  return {
    parts: bounded,
    note: `The answer streamed ${total.toLocaleString('en-US')} characters; a recording keeps ${budget.toLocaleString('en-US')} of an answer, so the rest was left out (a replay diverges here).`,
  };
}

/** A tool input's size as JSON; undefined for one too deep to write (over any budget). */
function sizeOf(input: unknown): number | undefined {
  try {
    return JSON.stringify(input)?.length ?? 0;
  } catch {
    return undefined;
  }
}
