/**
 * Micro-compaction (SPEC 2.4, step 1): free and run before every model call. Old tool results
 * are what fills a context fastest and what the model needs least once it has acted on them,
 * so all but the most recent few become a one-line note of which tool was used.
 */
import type { ModelMessage, ToolResultPart } from '../../llm/llm-client';

export const KEEP_RECENT_TOOL_RESULTS = 3;
export const MICRO_COMPACT_MIN_CHARS = 100;

/** Compacts `messages` in place; returns how many results it replaced and characters saved. */
export function microCompact(messages: ModelMessage[]): { replaced: number; charsSaved: number } {
  const results: Array<{ message: Extract<ModelMessage, { role: 'user' }>; index: number; part: ToolResultPart }> = [];
  for (const message of messages) {
    if (message.role !== 'user') continue;
    message.content.forEach((part, index) => {
      if (part.type === 'tool_result') results.push({ message, index, part });
    });
  }
  let replaced = 0;
  let charsSaved = 0;
  for (const { message, index, part } of results.slice(0, Math.max(0, results.length - KEEP_RECENT_TOOL_RESULTS))) {
    if (part.output.length <= MICRO_COMPACT_MIN_CHARS) continue;
    const note = `[Previous: used ${part.toolName}]`;
    charsSaved += part.output.length - note.length;
    // A new content array, not an edit in place: size estimates and wire conversions are
    // cached per content array, and a new array is how they learn the message changed.
    const content = [...message.content];
    content[index] = { ...part, output: note };
    message.content = content;
    replaced++;
  }
  return { replaced, charsSaved };
}
