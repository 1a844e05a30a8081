/**
 * Full compaction (SPEC 2.4, steps 2–3): save the whole history as a JSONL transcript first,
 * then have the compaction model summarise it, and continue from the summary. The history is
 * sent as one rendered text, not as tool blocks, so any model can summarise it and no
 * tool_use/tool_result pairing can go wrong.
 */
import type { LlmClient, ModelMessage } from '../../llm/llm-client';
import type { TranscriptSink } from '../../ports';
import { estimateHistoryTokens } from './request-size';

const SUMMARY_SYSTEM =
  "You compress a coding agent's conversation so the agent can continue the work from your summary alone. " +
  "Keep: the user's goals and constraints, decisions made and why, files read or changed (with paths), commands run and " +
  'their outcomes, errors met and how they were resolved, and what remains to do. Be specific and concise. Plain text.';
/** Each tool result is cut to this many characters in the text the summariser reads. */
const RESULT_CHARS_FOR_SUMMARY = 2_000;
/** The most tokens the summary may have. */
export const SUMMARY_OUTPUT_TOKENS = 4_096;

export interface CompactionInput {
  conversationId: string;
  messages: ModelMessage[];
  llm: LlmClient;
  model: string;
  focus?: string;
  transcripts?: TranscriptSink;
  signal?: AbortSignal;
  /** The rendered history is cut in the middle to this length (the summariser's window). */
  maxInputChars?: number;
}

export interface CompactionResult {
  messages: ModelMessage[];
  summary: string;
  transcript?: string;
  tokensBefore: number;
  tokensAfter: number;
}

export async function compactHistory(input: CompactionInput): Promise<CompactionResult> {
  const tokensBefore = estimateHistoryTokens('', input.messages);
  const transcript = await input.transcripts?.save(input.conversationId, input.messages);
  // A fresh prompt at the end is kept word for word; everything before it is summarised.
  const last = input.messages.at(-1);
  const keepLast = last?.role === 'user' && last.content.every((part) => part.type === 'text');
  const toSummarise = keepLast ? input.messages.slice(0, -1) : input.messages;

  const focus = input.focus ? `\n\nFocus the summary on: ${input.focus}` : '';
  let summary = '';
  for await (const part of input.llm.stream({
    model: input.model,
    system: SUMMARY_SYSTEM,
    messages: [
      {
        role: 'user',
        content: [
          {
            type: 'text',
            text: `${fitForSummary(renderForSummary(toSummarise), input.maxInputChars)}\n\nSummarise the conversation above.${focus}`,
          },
        ],
      },
    ],
    tools: [],
    maxOutputTokens: SUMMARY_OUTPUT_TOKENS,
    signal: input.signal,
  })) {
    if (part.type === 'text_delta') summary += part.text;
  }
  summary = summary.trim() || '(The summariser returned nothing.)';

  const saved = transcript ? `\n\n[The full transcript before compaction is saved at ${transcript}.]` : '';
  const lead = `[This conversation was compacted. Summary of everything so far:]\n\n${summary}${saved}`;
  const keptText =
    keepLast && last ? last.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n') : '';
  const messages: ModelMessage[] = [
    { role: 'user', content: [{ type: 'text', text: keptText ? `${lead}\n\n${keptText}` : lead }] },
  ];
  return { messages, summary, transcript, tokensBefore, tokensAfter: estimateHistoryTokens('', messages) };
}

/**
 * The rendered history cut to `maxChars`: its beginning (the goal) and its end (where the work
 * is), with what was left out said in the middle.
 */
export function fitForSummary(text: string, maxChars: number | undefined): string {
  if (maxChars === undefined || text.length <= maxChars) return text;
  const head = Math.floor(maxChars / 4);
  const tail = maxChars - head;
  return `${text.slice(0, head)}\n\n[… ${(text.length - maxChars).toLocaleString('en-US')} characters of the conversation left out …]\n\n${text.slice(-tail)}`;
}

/** The history as plain text for the summariser. */
export function renderForSummary(messages: readonly ModelMessage[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    for (const part of message.content) {
      if (part.type === 'text') lines.push(`${message.role === 'user' ? 'User' : 'Assistant'}: ${part.text}`);
      else if (part.type === 'tool_call')
        lines.push(`Assistant called ${part.name} with ${JSON.stringify(part.input)}`);
      else if (part.type === 'tool_result') {
        const output =
          part.output.length > RESULT_CHARS_FOR_SUMMARY
            ? `${part.output.slice(0, RESULT_CHARS_FOR_SUMMARY)} […]`
            : part.output;
        lines.push(`${part.toolName} ${part.isError ? 'failed' : 'returned'}: ${output}`);
      }
    }
  }
  return lines.join('\n\n');
}
