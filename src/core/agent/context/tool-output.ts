/**
 * Caps tool output before it enters the context. Keeps the head (what the output is) and the
 * tail (where errors and summaries are), and says how much was cut — so a 100 MB file or a
 * single 10 MB minified line cannot break a conversation. The note counts against the limit
 * too: a capped output is within it, so capping it again (a replayed result) changes nothing.
 */
export const DEFAULT_MAX_TOOL_OUTPUT_CHARS = 30_000;

export function capToolOutput(output: string, maxChars = DEFAULT_MAX_TOOL_OUTPUT_CHARS): string {
  if (output.length <= maxChars) return output;
  const note = (omitted: number) =>
    `\n\n[… ${omitted} characters omitted: the output was ${output.length} characters, over the ${maxChars}-character limit …]\n\n`;
  // The longest the note can be (the most that could be omitted): what is left is kept.
  const room = maxChars - note(output.length).length;
  if (room <= 0) return output.slice(0, Math.max(0, maxChars));
  const head = Math.floor(room * 0.6);
  const tail = room - head;
  return `${output.slice(0, head)}${note(output.length - head - tail)}${tail > 0 ? output.slice(-tail) : ''}`;
}
