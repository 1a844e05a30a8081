/**
 * One model call, streamed: text goes out as `text_delta` events the moment it arrives, tool
 * calls as `tool_call` events once their arguments are complete. What arrived is kept on the
 * object, so when the user interrupts mid-stream the caller still has the partial answer.
 */
import type { LlmClient, LlmRequest, StopReason, TextToolCallNote, ThinkingPart, TokenUsage } from '../llm/llm-client';
import { estimateTokens } from '../llm/token-estimate';
import { MAX_ARGUMENT_DEPTH, nestingDepth } from '../llm/tool-call-accumulator';
import type { EmitEvent } from '../events/events';

export type ReceivedToolCall = (
  | { id: string; name: string; input: unknown; valid: true }
  | { id: string; name: string; valid: false; rawArguments: string; error: string }
) & {
  /** Read from the answer's text rather than returned as a tool call (text-tool-calls/). */
  fromText?: TextToolCallNote;
};

export class ModelTurn {
  text = '';
  readonly thinking: ThinkingPart[] = [];
  readonly toolCalls: ReceivedToolCall[] = [];
  usage: TokenUsage | undefined;
  usageReported = false;
  stopReason: StopReason = 'other';

  constructor(
    private readonly llm: LlmClient,
    private readonly emit: EmitEvent,
  ) {}

  /** The usage the server reported, or (some local servers report none) an estimate from the answer. */
  get usageOrEstimate(): TokenUsage {
    return (
      this.usage ?? { inputTokens: 0, outputTokens: estimateTokens(this.text), cacheReadTokens: 0, cacheWriteTokens: 0 }
    );
  }

  async run(request: LlmRequest): Promise<this> {
    const call = { provider: this.llm.provider, model: request.model };
    this.emit({ type: 'model_call', state: 'waiting', ...call });
    let answering = false;
    // An answer that pauses mid-way is said to (the chat and the CLI count the seconds), and
    // its going on again too; before the first part, `waiting` already counts.
    const onSilence = (silentMs: number | undefined) => {
      if (silentMs !== undefined) this.emit({ type: 'model_call', state: 'stalled', ...call, silentMs });
      else {
        // Going on (a reasoning model may not have sent a part yet: it is answering all the same).
        answering = true;
        this.emit({ type: 'model_call', state: 'answering', ...call });
      }
    };
    for await (const part of this.llm.stream({ ...request, onSilence })) {
      if (!answering) {
        answering = true;
        this.emit({ type: 'model_call', state: 'answering', ...call });
      }
      switch (part.type) {
        case 'text_delta':
          this.text += part.text;
          this.emit({ type: 'text_delta', text: part.text });
          break;
        case 'thinking':
          this.thinking.push({
            type: 'thinking',
            text: part.text,
            signature: part.signature,
            ...(part.redactedData !== undefined ? { redactedData: part.redactedData } : {}),
          });
          break;
        case 'tool_call':
          // Whatever client produced it: every later step (policy, hashing, the store) walks the input.
          if (nestingDepth(part.input, MAX_ARGUMENT_DEPTH) > MAX_ARGUMENT_DEPTH) {
            const error = `the arguments are nested more than ${MAX_ARGUMENT_DEPTH} levels deep`;
            const rawArguments = `[arguments nested more than ${MAX_ARGUMENT_DEPTH} levels deep, not kept]`;
            const fromText = part.fromText ? { fromText: part.fromText } : {};
            this.toolCalls.push({ id: part.id, name: part.name, valid: false, rawArguments, error, ...fromText });
            this.emit({
              type: 'tool_call',
              toolCallId: part.id,
              toolName: part.name,
              input: rawArguments,
              ...fromTextField(part.fromText),
            });
            break;
          }
          this.toolCalls.push({
            id: part.id,
            name: part.name,
            input: part.input,
            valid: true,
            ...(part.fromText ? { fromText: part.fromText } : {}),
          });
          this.emit({
            type: 'tool_call',
            toolCallId: part.id,
            toolName: part.name,
            input: part.input,
            ...fromTextField(part.fromText),
          });
          break;
        case 'tool_call_invalid':
          this.toolCalls.push({
            id: part.id,
            name: part.name,
            valid: false,
            rawArguments: part.rawArguments,
            error: part.error,
            ...(part.fromText ? { fromText: part.fromText } : {}),
          });
          // What arrived, shown and stored only in part: it may be megabytes of anything.
          this.emit({
            type: 'tool_call',
            toolCallId: part.id,
            toolName: part.name,
            input: preview(part.rawArguments),
            ...fromTextField(part.fromText),
          });
          break;
        case 'usage':
          this.usage = part.usage;
          this.usageReported = part.reported;
          break;
        case 'finish':
          this.stopReason = part.stopReason;
          break;
      }
    }
    return this;
  }
}

/** The start of an unusable argument string, for the chat, the panel and the store. */
const PREVIEW_CHARS = 2_000;
function preview(raw: string): string {
  return raw.length <= PREVIEW_CHARS
    ? raw
    : `${raw.slice(0, PREVIEW_CHARS)}… [${raw.length - PREVIEW_CHARS} more characters]`;
}

/** How the event says a call was read from the text (the source itself is in the LLM trace). */
function fromTextField(note: TextToolCallNote | undefined): {
  fromText?: { format: TextToolCallNote['format']; repaired: boolean };
} {
  return note ? { fromText: { format: note.format, repaired: note.repaired } } : {};
}
