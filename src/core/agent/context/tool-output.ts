/**
 * Caps tool output before it enters the context. Keeps the head (what the output is) and the
 * tail (where errors and summaries are), and says how much was cut — so a 100 MB file or a
 * single 10 MB minified line cannot break a conversation.
 */
export const DEFAULT_MAX_TOOL_OUTPUT_CHARS = 30_000;

export function capToolOutput(output: string, maxChars = DEFAULT_MAX_TOOL_OUTPUT_CHARS): string {
  if (output.length <= maxChars) return output;
  const head = Math.floor(maxChars * 0.6);
  const tail = maxChars - head;
  const omitted = output.length - head - tail;
  return `${output.slice(0, head)}\n\n[… ${omitted} characters omitted: the output was ${output.length} characters, over the ${maxChars}-character limit …]\n\n${output.slice(-tail)}`;
}
