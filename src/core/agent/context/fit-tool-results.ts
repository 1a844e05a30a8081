/**
 * Tool results cut to fit what is left of the model's window, before they are sent. On a local
 * server with a 4k–8k window one ordinary result (a 400-line file) is larger than everything
 * else together: sent whole, it is refused as too long, and compaction cannot help (it either
 * summarises the result away, so the model never reads what it asked for, or leaves a summary
 * that still does not fit). So each result gets the room the window has left below the
 * compaction threshold, shared between the results of one turn, and a result cut to its share
 * says so to the model, with how to read the rest. The user's copy (the tool_result event, the
 * store) keeps the whole capped output; only the model's copy is cut.
 */
import type { ModelMessage, ToolDefinition, ToolResultPart } from '../../llm/llm-client';
import type { ModelBinding } from '../agent-loop';
import type { ContextMeasure } from './context-measure';
import { estimateHistoryTokens } from './request-size';

/** A result is never cut below this: what it is and where it starts must reach the model. */
export const MIN_RESULT_CHARS = 1_200;
/** Room for the note that says what was cut. */
const NOTE_CHARS = 400;
/** The room is an estimate (characters per token vary with the content): this much of it is used. */
const SAFETY = 0.85;
/** Measuring again (the server's count) and cutting further: at most this many times. */
const MAX_REFITS = 2;

export interface FitDeps {
  main: ModelBinding;
  system: string;
  context: ContextMeasure;
  compactThreshold: number;
  maxOutputTokens: number;
}

/**
 * The results as the model should get them: each within its share of the room left in the
 * window once `history` (without the results), the system prompt and the tools are counted.
 */
export async function fitToolResults(
  history: readonly ModelMessage[],
  results: ToolResultPart[],
  inputs: readonly unknown[],
  offered: { tools: ToolDefinition[]; toolTokens: number },
  deps: FitDeps,
  signal: AbortSignal,
): Promise<ToolResultPart[]> {
  const { provider } = deps.main.llm;
  const { model } = deps.main;
  const limit = Math.floor(deps.compactThreshold * (await deps.context.window(deps.main, signal)));
  const estimate = (messages: readonly ModelMessage[]) =>
    estimateHistoryTokens(deps.system, messages) + offered.toolTokens;
  const measure = (messages: readonly ModelMessage[]) =>
    deps.context.size(
      deps.main,
      {
        model,
        system: deps.system,
        messages: [...messages],
        tools: offered.tools,
        maxOutputTokens: deps.maxOutputTokens,
        signal,
      },
      estimate(messages),
    );
  // By what the results hold, not only their length: CJK text or emoji cost a token a character
  // or more, four times the English estimate (a window counted in characters would overflow).
  const resultTokens = deps.context.scale(provider, model, contentTokens(results));
  // Plenty of room (the usual case on a large window): nothing to cut, nothing to measure.
  if (deps.context.scale(provider, model, estimate(history)) + resultTokens <= limit * 0.5) return results;

  // The server's own count where it can count (llama.cpp), else the calibrated estimate.
  const usedBefore = await measure(history);
  const room = Math.max(0, limit - usedBefore);
  // Characters per token of these results for this model, as the server's counts have taught the scale.
  const charsPerToken = totalChars(results) / Math.max(1, resultTokens);
  let roomChars = Math.floor(room * charsPerToken * SAFETY);
  let fitted = shareRoom(results, inputs, roomChars);
  for (let attempt = 0; attempt < MAX_REFITS; attempt++) {
    const used = await measure([...history, { role: 'user', content: fitted }]);
    if (used <= limit) break;
    // What the results really cost per character: cut them to the room at that rate.
    const tokensPerChar = Math.max(1e-6, (used - usedBefore) / Math.max(1, totalChars(fitted)));
    roomChars = Math.min(Math.floor(roomChars * 0.7), Math.floor((room / tokensPerChar) * SAFETY));
    const next = shareRoom(results, inputs, roomChars);
    // Every result is at its floor already: the next call's compaction (or the server) decides.
    if (next.every((part, index) => part.output === fitted[index]!.output)) break;
    fitted = next;
  }
  return fitted;
}

function totalChars(results: readonly ToolResultPart[]): number {
  return results.reduce((sum, part) => sum + part.output.length, 0);
}

/**
 * Tokens the results likely cost, by what they hold: about four characters a token for ASCII
 * (English, code), one token for every other UTF-16 unit (a CJK character, half an emoji, an
 * accented letter), which is what common tokenizers come to for such text.
 */
export function contentTokens(results: readonly ToolResultPart[]): number {
  let ascii = 0;
  let other = 0;
  for (const { output } of results)
    for (let index = 0; index < output.length; index++) {
      if (output.charCodeAt(index) < 128) ascii++;
      else other++;
    }
  return Math.ceil(ascii / 4) + other;
}

/**
 * After the server refused a request as too long although its results were fitted (the count
 * was off: no tokenizer to ask, a wrong one, text denser than estimated): the tool results that
 * end `history` are cut again, at the rate the refusal shows they really cost, before anything
 * is summarised away. True when they were cut (send again); false when there was nothing to cut.
 */
export async function refitAfterRefusal(
  history: ModelMessage[],
  offered: { tools: ToolDefinition[]; toolTokens: number },
  deps: FitDeps,
  refusal: { promptTokens?: number | undefined },
  signal: AbortSignal,
): Promise<boolean> {
  const last = history.at(-1);
  if (last?.role !== 'user') return false;
  const results = last.content.filter((part): part is ToolResultPart => part.type === 'tool_result');
  if (results.length === 0) return false;
  const { provider } = deps.main.llm;
  const { model } = deps.main;
  const before = history.slice(0, -1);
  const limit = Math.floor(deps.compactThreshold * (await deps.context.window(deps.main, signal)));
  const otherTokens = deps.context.scale(
    provider,
    model,
    estimateHistoryTokens(deps.system, before) + offered.toolTokens,
  );
  const chars = Math.max(1, totalChars(results));
  // What the results really cost: the refused request's size less the rest of it; unsaid,
  // twice what was thought.
  const resultTokens =
    refusal.promptTokens !== undefined && refusal.promptTokens > otherTokens
      ? refusal.promptTokens - otherTokens
      : 2 * deps.context.scale(provider, model, contentTokens(results));
  const fitting = Math.floor((Math.max(0, limit - otherTokens) * chars * SAFETY) / Math.max(1, resultTokens));
  // The server said it does not fit: at least half goes, whatever the sums say.
  const fitted = shareRoom(results, inputsOf(before, results), Math.min(fitting, Math.floor(chars / 2)));
  if (fitted.every((part, index) => part.output === results[index]!.output)) return false;
  let next = 0;
  // A new array, never an edit in place: conversions and size estimates are cached per array.
  last.content = last.content.map((part) => (part.type === 'tool_result' ? fitted[next++]! : part));
  return true;
}

/** The inputs of the calls whose results these are, from the assistant message that made them. */
function inputsOf(history: readonly ModelMessage[], results: readonly ToolResultPart[]): unknown[] {
  const calls = new Map<string, unknown>();
  for (const message of history)
    if (message.role === 'assistant')
      for (const part of message.content) if (part.type === 'tool_call') calls.set(part.id, part.input);
  return results.map((part) => calls.get(part.toolCallId));
}

/**
 * `roomChars` shared between the results: small ones whole, the large ones an equal share of
 * what is left, each at least MIN_RESULT_CHARS. When there is not room for that many (forty
 * reads in one turn on a small window), as many as fit are shown at that size, in the order
 * they were called, and the others are left out with a line saying so and how to get them:
 * cut below what says what they are, they would still not fit, and a compaction would then
 * summarise every one of them away.
 */
export function shareRoom(results: ToolResultPart[], inputs: readonly unknown[], roomChars: number): ToolResultPart[] {
  const order = results.map((_, index) => index).sort((a, b) => results[a]!.output.length - results[b]!.output.length);
  const shares = new Array<number | 'left out'>(results.length);
  let left = roomChars;
  const large: number[] = [];
  order.forEach((index, position) => {
    const length = results[index]!.output.length;
    if (large.length === 0 && length <= Math.floor(left / (order.length - position))) {
      shares[index] = length;
      left -= length;
    } else large.push(index);
  });
  const each = Math.floor(left / Math.max(1, large.length));
  if (each >= MIN_RESULT_CHARS) for (const index of large) shares[index] = each;
  else {
    // At least the first is shown (a single result keeps its floor, as before: what follows is
    // the compaction's to decide).
    const shown = Math.max(1, Math.floor((left - large.length * LEFT_OUT_CHARS) / (MIN_RESULT_CHARS - LEFT_OUT_CHARS)));
    large
      .sort((a, b) => a - b)
      .forEach((index, position) => (shares[index] = position < shown ? MIN_RESULT_CHARS : 'left out'));
  }
  return results.map((part, index) => {
    const share = shares[index]!;
    return share === 'left out' ? leftOut(part, inputs[index]) : cutToolResult(part, inputs[index], share);
  });
}

/** What a result left out says in its place (about this long). */
const LEFT_OUT_CHARS = 160;

function leftOut(part: ToolResultPart, input: unknown): ToolResultPart {
  const path = (input as { path?: unknown } | undefined)?.path;
  const what = typeof path === 'string' ? `${part.toolName} ${JSON.stringify(path)}` : part.toolName;
  return {
    ...part,
    output: `[Left out to fit the context window: ${what}, ${part.output.length.toLocaleString('en-US')} characters. Call it again alone, or ask for less.]`,
  };
}

/**
 * One result cut to `maxChars` at line ends, with a note for the model: what was cut and how to
 * get the rest. A file read keeps its beginning and names the line to read on from; any other
 * output keeps its beginning and its end (where errors and summaries are).
 */
export function cutToolResult(part: ToolResultPart, input: unknown, maxChars: number): ToolResultPart {
  const output = part.output;
  if (output.length <= maxChars) return part;
  const budget = Math.max(200, maxChars - NOTE_CHARS);
  const numbered = part.toolName === 'read_file' ? readFileCut(output, input, budget) : undefined;
  if (numbered) return { ...part, output: numbered };
  const headChars = Math.floor(budget * 0.7);
  const head = untilLineEnd(output, headChars);
  const tail = fromLineStart(output, output.length - (budget - head.length));
  const cut = output.length - head.length - tail.length;
  const note =
    `[… ${cut.toLocaleString('en-US')} of ${output.length.toLocaleString('en-US')} characters cut here to fit the model's ` +
    `context window. Ask for less at a time: a narrower pattern or folder, a range of lines (read_file offset and limit), ` +
    `or part of a command's output (head, tail, grep) …]`;
  return { ...part, output: `${head}\n${note}\n${tail}` };
}

/** A read_file result (numbered lines) cut after whole lines, saying which line to read on from. */
function readFileCut(output: string, input: unknown, budget: number): string | undefined {
  const head = untilLineEnd(output, budget);
  const lines = head.split('\n');
  const numbers = lines.map((line) => /^\s*(\d+)\t/.exec(line)?.[1]).filter((value) => value !== undefined);
  if (numbers.length === 0) return undefined;
  const first = Number(numbers[0]);
  const last = Number(numbers.at(-1));
  const path = typeof (input as { path?: unknown })?.path === 'string' ? (input as { path: string }).path : 'the file';
  // Cut before (a refusal made it cut again): the range the read had is in the earlier note.
  const earlier = /of the \d+–(\d+) read are shown/.exec(output)?.[1];
  const lastRead = Number(earlier ?? [...output.matchAll(/^\s*(\d+)\t/gm)].at(-1)?.[1] ?? last);
  const shown = last - first + 1;
  return (
    `${head}\n[Cut to fit the model's context window: lines ${first}–${last} of the ${first}–${lastRead} read are shown. ` +
    `Read the rest with read_file path ${JSON.stringify(path)}, offset ${last + 1}, limit ${shown} (or fewer), ` +
    'or search the file for what you need.]'
  );
}

/** The start of `text` up to `chars`, ended at the last line end within it (or cut mid-line when there is none). */
function untilLineEnd(text: string, chars: number): string {
  if (chars <= 0) return '';
  const slice = text.slice(0, chars);
  const end = slice.lastIndexOf('\n');
  return end > chars / 2 ? slice.slice(0, end) : wholeCharacters(slice, 'end');
}

/** `text` without a half of a surrogate pair at the given side (a cut mid-line may split an emoji). */
function wholeCharacters(text: string, side: 'start' | 'end'): string {
  if (side === 'end') return /[\uD800-\uDBFF]$/.test(text) ? text.slice(0, -1) : text;
  return /^[\uDC00-\uDFFF]/.test(text) ? text.slice(1) : text;
}

/** The end of `text` from `start`, begun at the next line start after it. */
function fromLineStart(text: string, start: number): string {
  if (start >= text.length) return '';
  const slice = text.slice(Math.max(0, start));
  const begin = slice.indexOf('\n');
  return begin >= 0 && begin < slice.length / 2 ? slice.slice(begin + 1) : wholeCharacters(slice, 'start');
}
