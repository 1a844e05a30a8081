/**
 * Micro-compaction (SPEC 2.4, step 1): free and run before every model call. Old tool results
 * are what fills a context fastest and what the model needs least once it has acted on them,
 * so all but the most recent few become a one-line note of which tool was used. Results the
 * model has not read yet (those of its latest calls: one turn's, however many) are never touched: the model asked for them, and a note in their place would be all it got.
 */
import type { ModelMessage, ToolResultPart } from '../../llm/llm-client';

export const KEEP_RECENT_TOOL_RESULTS = 3;
export const MICRO_COMPACT_MIN_CHARS = 100;

/**
 * Compacts `messages` in place; returns how many results it replaced and characters saved.
 * Scans from the newest message back and stops at the first note an earlier pass left: every
 * result older than that was compacted then. So each call costs what was added since the last.
 */
export function microCompact(messages: ModelMessage[]): { replaced: number; charsSaved: number } {
  let seen = 0;
  let replaced = 0;
  let charsSaved = 0;
  // The results of the model's latest calls (the last message, right after the answer that
  // made them) are not read yet.
  const unread = messages.at(-1)?.role === 'user' && messages.at(-2)?.role === 'assistant' ? messages.length - 1 : -1;
  for (let messageIndex = messages.length - 1; messageIndex >= 0; messageIndex--) {
    const message = messages[messageIndex]!;
    if (message.role !== 'user') continue;
    let content: typeof message.content | undefined;
    let reachedEarlierPass = false;
    for (let index = message.content.length - 1; index >= 0; index--) {
      const part = message.content[index]!;
      if (part.type !== 'tool_result') continue;
      seen++;
      // Unread results count among the recent ones (older results go first), and always stay.
      if (seen <= KEEP_RECENT_TOOL_RESULTS || messageIndex === unread) continue;
      if (isNote(part)) {
        reachedEarlierPass = true;
        continue;
      }
      if (part.output.length <= MICRO_COMPACT_MIN_CHARS) continue;
      const note = noteFor(part);
      charsSaved += part.output.length - note.length;
      // A new content array, not an edit in place: size estimates and wire conversions are
      // cached per content array, and a new array is how they learn the message changed.
      content ??= [...message.content];
      content[index] = { ...part, output: note };
      replaced++;
    }
    if (content) message.content = content;
    if (reachedEarlierPass) break;
  }
  return { replaced, charsSaved };
}

function noteFor(part: ToolResultPart): string {
  return `[Previous: used ${part.toolName}]`;
}

function isNote(part: ToolResultPart): boolean {
  return part.output === noteFor(part);
}
