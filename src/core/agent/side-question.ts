/**
 * A side question (`/btw`): one model call that answers a question about the conversation from
 * a snapshot of it — its system prompt (rules, memory) and its history as it was when asked —
 * with no tools offered. Nothing here touches the conversation: the snapshot is a copy, the
 * answer goes back to the caller only, and the call has its own abort signal.
 *
 * The history is sent as plain text: a request that carries tool-call blocks must declare tools
 * for Anthropic, and a snapshot taken while a tool runs has a call without its result; written
 * out as text ("[called read_file with …]", "[result of read_file] …") every provider takes it
 * and the model still sees what happened.
 */
import type { LlmClient, LlmRequest, ModelMessage, StopReason, TextPart } from '../llm/llm-client';

/** The longest side question answered (characters, after cleaning); a longer one is refused. */
export const MAX_SIDE_QUESTION_CHARS = 20_000;
/** The answer's length limit: a side answer is meant to be short. */
export const SIDE_ANSWER_MAX_OUTPUT_TOKENS = 2_048;

/** How the question reaches the model: framed, so it answers from what it knows and goes no further. */
export const SIDE_QUESTION_FRAME =
  '[A side question from the user, asked while the work above goes on. Answer it briefly from the conversation ' +
  'so far. No tools can be used for this answer, and this exchange is not kept in the conversation.]';

/**
 * The question as sent: control characters other than newline and tab go (a pasted terminal
 * escape must not reach the model or the user's terminal again), line ends are \n, and the
 * ends are trimmed.
 */
export function cleanSideQuestion(raw: string): string {
  return (
    raw
      .replace(/\r\n?/g, '\n')
      // eslint-disable-next-line no-control-regex -- removing control characters is the point.
      .replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]/g, '')
      .trim()
  );
}

/**
 * The answer as shown: control characters other than newline and tab go, so an answer cannot
 * move the cursor or recolour a terminal (the CLI prints it beside a running turn).
 */
export function cleanSideAnswer(text: string): string {
  // eslint-disable-next-line no-control-regex -- removing control characters is the point.
  return text.replace(/\r\n?/g, '\n').replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, '');
}

/** Why a (cleaned) question is not sent, in words for the user; undefined when it can be. */
export function sideQuestionProblem(question: string): string | undefined {
  if (!question) return 'Nothing to ask: type the question after /btw, e.g. "/btw why did you pick sql.js?".';
  if (question.length > MAX_SIDE_QUESTION_CHARS)
    return `The side question is too long (${question.length.toLocaleString('en-US')} characters; at most ${MAX_SIDE_QUESTION_CHARS.toLocaleString('en-US')}). Ask it shorter, or send it as a prompt.`;
  return undefined;
}

/** The messages of the side request: the history as text, then the framed question. */
export function sideQuestionMessages(history: readonly ModelMessage[], question: string): ModelMessage[] {
  const messages: ModelMessage[] = [];
  const add = (role: 'user' | 'assistant', text: string) => {
    if (!text) return;
    const last = messages.at(-1);
    const part: TextPart = { type: 'text', text };
    if (last?.role === role) (last.content as TextPart[]).push(part);
    else messages.push({ role, content: [part] } as ModelMessage);
  };
  for (const message of history) {
    for (const part of message.content) {
      if (part.type === 'text') add(message.role, part.text);
      else if (part.type === 'tool_call') add('assistant', `[called ${part.name} with ${inputText(part.input)}]`);
      else if (part.type === 'tool_result')
        add('user', `[result of ${part.toolName}${part.isError ? ' (failed)' : ''}]\n${part.output}`);
      // Thinking is left out: it is signed for the request it came in, and adds nothing here.
    }
  }
  // A history that somehow begins with the model: the providers want a user message first.
  if (messages[0]?.role === 'assistant') messages.unshift({ role: 'user', content: [{ type: 'text', text: '…' }] });
  add('user', `${SIDE_QUESTION_FRAME}\n\n${question}`);
  return messages;
}

export interface SideQuestionCall {
  /** The client to call: metered (budget, usage) and with held secrets withheld by the caller. */
  llm: LlmClient;
  model: string;
  system: string;
  history: readonly ModelMessage[];
  /** Already cleaned and checked (cleanSideQuestion, sideQuestionProblem). */
  question: string;
  signal: AbortSignal;
  maxOutputTokens?: number;
  /** The answer so far, as it streams. */
  onText?: (text: string) => void;
}

export interface SideQuestionReply {
  text: string;
  /** Tools the model tried to call anyway (none was offered): ignored, never run. */
  ignoredToolCalls: string[];
  stopReason: StopReason | undefined;
}

/** Asks the model once; rejects as the call does (a spent budget, the server, the signal). */
export async function answerSideQuestion(call: SideQuestionCall): Promise<SideQuestionReply> {
  const request: LlmRequest = {
    model: call.model,
    system: call.system,
    messages: sideQuestionMessages(call.history, call.question),
    tools: [],
    toolChoice: 'none',
    maxOutputTokens: call.maxOutputTokens ?? SIDE_ANSWER_MAX_OUTPUT_TOKENS,
    signal: call.signal,
  };
  let text = '';
  const ignoredToolCalls: string[] = [];
  let stopReason: StopReason | undefined;
  for await (const part of call.llm.stream(request)) {
    if (part.type === 'text_delta') {
      text += part.text;
      call.onText?.(text);
    } else if (part.type === 'tool_call' || part.type === 'tool_call_invalid') ignoredToolCalls.push(part.name);
    else if (part.type === 'finish') stopReason = part.stopReason;
  }
  return { text, ignoredToolCalls, stopReason };
}

/** What a side answer says about the tool calls it ignored. */
export function ignoredToolsNote(names: readonly string[]): string | undefined {
  if (names.length === 0) return undefined;
  const unique = [...new Set(names)].slice(0, 5).join(', ');
  return `The model tried to call ${names.length === 1 ? 'a tool' : 'tools'} (${unique}); side questions cannot use tools, so ${names.length === 1 ? 'the call was' : 'the calls were'} ignored.`;
}

/** A tool call's input as one short line of text. */
function inputText(input: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(input) ?? '{}';
  } catch {
    text = '{}';
  }
  return text.length > 2_000 ? `${text.slice(0, 2_000)}…` : text;
}
