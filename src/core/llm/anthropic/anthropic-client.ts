/**
 * LlmClient over the Anthropic Messages API, streaming. Reads the raw server-sent events
 * rather than the SDK's MessageStream helper so tool-call arguments are joined once, at the
 * end of each block (see ToolCallAccumulator). Retries belong to the retry wrapper, so the
 * SDK's own are off by default.
 */
import type Anthropic from '@anthropic-ai/sdk';
import type { LlmClient, LlmRequest, LlmStreamPart, TokenUsage } from '../llm-client';
import { abortError, LlmError } from '../llm-client';
import { toLlmError } from '../map-sdk-error';
import { anthropicSdk } from '../sdk-modules';
import { displayAddress, nameWithAddress } from '../server-address';
import { TimeSlicer } from '../server-sent-events';
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS, IdleWatchdog, progressLimit } from '../idle-watchdog';
import { linkedAbort, untilAborted } from '../../abort';
import { estimateUsage } from '../token-estimate';
import { ToolCallAccumulator } from '../tool-call-accumulator';
import { convertToAnthropicMessages } from './convert-to-anthropic-messages';
import { mapAnthropicStopReason } from './map-anthropic-stop-reason';
import { prepareAnthropicTools } from './prepare-anthropic-tools';

export interface AnthropicClientOptions {
  apiKey: string;
  /** Defaults to Anthropic's API; tests point it at the fake model server. */
  baseUrl?: string;
  maxRetries?: number;
  timeoutMs?: number;
  /** How long the answer may go without progress before the call ends (see idle-watchdog.ts). */
  idleTimeoutMs?: number;
  /** How long an answer under way may pause before the request's onSilence is told (default 10 s). */
  silenceNoticeMs?: number;
}

interface ThinkingBlock {
  text: string[];
  signature: string;
  redactedData?: string;
}

export class AnthropicClient implements LlmClient {
  readonly provider = 'anthropic';
  private readonly sdk: Anthropic;
  private readonly idleTimeoutMs: number;
  private readonly silenceNoticeMs: number | undefined;
  /** Where the calls go, as messages name it (no credentials). */
  private readonly address: string | undefined;
  private readonly apiKey: string;

  constructor(options: AnthropicClientOptions) {
    this.apiKey = options.apiKey;
    this.idleTimeoutMs = options.idleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS;
    this.silenceNoticeMs = options.silenceNoticeMs;
    this.sdk = new (anthropicSdk().default)({
      apiKey: options.apiKey,
      baseURL: options.baseUrl || undefined,
      maxRetries: options.maxRetries ?? 0,
      timeout: options.timeoutMs ?? 10 * 60_000,
    });
    this.address = displayAddress(this.sdk.baseURL);
  }

  private failure(error: unknown): Error {
    return toLlmError(error, 'Anthropic', this.address, this.apiKey);
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    try {
      const models: string[] = [];
      for await (const model of this.sdk.models.list({}, { signal })) models.push(model.id);
      return models;
    } catch (error) {
      throw this.failure(error);
    }
  }

  async *stream(request: LlmRequest): AsyncIterable<LlmStreamPart> {
    const { controller, unlink } = linkedAbort(request.signal);
    try {
      yield* this.streamWith(request, controller);
    } finally {
      unlink();
    }
  }

  private async *streamWith(request: LlmRequest, controller: AbortController): AsyncIterable<LlmStreamPart> {
    let events: AsyncIterable<Anthropic.RawMessageStreamEvent>;
    try {
      // Raced with the Stop: the wait for the first byte ends at once, whatever the SDK does.
      events = await untilAborted(
        this.sdk.messages.create(
          {
            model: request.model,
            max_tokens: request.maxOutputTokens,
            // The system prompt is identical across turns: mark it for prompt caching.
            system: request.system
              ? [{ type: 'text', text: request.system, cache_control: { type: 'ephemeral' } }]
              : [],
            messages: convertToAnthropicMessages(request.messages),
            ...(request.tools.length > 0 ? { tools: prepareAnthropicTools(request.tools) } : {}),
            ...(request.tools.length > 0 && request.toolChoice === 'none'
              ? { tool_choice: { type: 'none' as const } }
              : {}),
            stream: true,
          },
          { signal: controller.signal },
        ),
        controller.signal,
      );
    } catch (error) {
      throw request.signal?.aborted ? abortError() : this.failure(error);
    }

    const calls = new ToolCallAccumulator();
    const thinking = new Map<number, ThinkingBlock>();
    const usage: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    let sawUsage = false;
    let stopReason: string | null | undefined;
    let complete = false;
    let outputChars = 0;
    const slicer = new TimeSlicer();
    try {
      const watchdog = new IdleWatchdog({
        idleMs: this.idleTimeoutMs,
        controller,
        serverLabel: nameWithAddress('Anthropic', this.address),
        ...(request.onSilence ? { onSilence: request.onSilence } : {}),
        ...(this.silenceNoticeMs !== undefined ? { silenceNoticeMs: this.silenceNoticeMs } : {}),
        maxProgress: progressLimit(request.maxOutputTokens),
      });
      for await (const event of watchdog.watch(events)) {
        noteProgress(event, watchdog);
        // A burst of buffered events must not hold the event loop for long.
        if (slicer.due()) await slicer.yield();
        switch (event.type) {
          case 'message_start': {
            const reported = event.message.usage as Partial<Anthropic.Usage> | undefined;
            if (reported) {
              sawUsage = true;
              usage.inputTokens = reported.input_tokens ?? 0;
              usage.outputTokens = reported.output_tokens ?? 0;
              usage.cacheReadTokens = reported.cache_read_input_tokens ?? 0;
              usage.cacheWriteTokens = reported.cache_creation_input_tokens ?? 0;
            }
            break;
          }
          case 'content_block_start': {
            const block = event.content_block;
            if (block.type === 'tool_use') {
              calls.start(event.index, block.id, block.name);
              yield { type: 'tool_call_start', id: block.id, name: block.name };
            } else if (block.type === 'text' && block.text) {
              yield { type: 'text_delta', text: block.text };
            } else if (block.type === 'thinking') {
              thinking.set(event.index, {
                text: block.thinking ? [block.thinking] : [],
                signature: block.signature ?? '',
              });
            } else if (block.type === 'redacted_thinking') {
              thinking.set(event.index, { text: [], signature: '', redactedData: block.data });
            }
            break;
          }
          case 'content_block_delta': {
            const delta = event.delta;
            if (delta.type === 'text_delta') {
              outputChars += delta.text.length;
              yield { type: 'text_delta', text: delta.text };
            } else if (delta.type === 'input_json_delta') {
              outputChars += delta.partial_json.length;
              const id = calls.append(event.index, delta.partial_json);
              if (id) yield { type: 'tool_call_delta', id, argumentsDelta: delta.partial_json };
            } else if (delta.type === 'thinking_delta') {
              thinking.get(event.index)?.text.push(delta.thinking);
              yield { type: 'thinking_delta', text: delta.thinking };
            } else if (delta.type === 'signature_delta') {
              const block = thinking.get(event.index);
              if (block) block.signature += delta.signature;
            }
            break;
          }
          case 'content_block_stop': {
            const finished = calls.finish(event.index);
            if (finished) yield finished;
            const block = thinking.get(event.index);
            if (block) {
              thinking.delete(event.index);
              yield {
                type: 'thinking',
                text: block.text.join(''),
                signature: block.signature,
                ...(block.redactedData !== undefined ? { redactedData: block.redactedData } : {}),
              };
            }
            break;
          }
          case 'message_delta': {
            stopReason = event.delta.stop_reason;
            const reported = event.usage as Partial<Anthropic.MessageDeltaUsage> | undefined;
            if (reported) {
              sawUsage = true;
              // message_delta carries cumulative counts.
              if (typeof reported.output_tokens === 'number') usage.outputTokens = reported.output_tokens;
              if (typeof reported.input_tokens === 'number') usage.inputTokens = reported.input_tokens;
            }
            break;
          }
          case 'message_stop':
            complete = true;
            break;
        }
      }
    } catch (error) {
      throw request.signal?.aborted ? abortError() : this.failure(error);
    }
    // Some SDK versions end the iteration quietly on abort instead of throwing.
    if (request.signal?.aborted) throw abortError();
    // A stream that ends without message_stop was cut: its unfinished tool calls never run.
    if (!complete)
      throw new LlmError('The response stream from Anthropic ended before the message was complete.', 'stream');
    yield sawUsage
      ? { type: 'usage', usage, reported: true }
      : { type: 'usage', usage: estimateUsage(request, outputChars), reported: false };
    yield { type: 'finish', stopReason: mapAnthropicStopReason(stopReason) };
  }
}

/**
 * Tells the watchdog how far an event moves the answer on: a non-empty delta every time; the
 * message's start and delta, a block's start and stop, once each; message_stop completes it.
 * Pings, empty deltas and any of the once-records repeated do not (they can come forever).
 */
function noteProgress(event: Anthropic.RawMessageStreamEvent, watchdog: IdleWatchdog): void {
  switch (event.type) {
    case 'content_block_delta': {
      const delta = event.delta;
      const text =
        delta.type === 'text_delta'
          ? delta.text
          : delta.type === 'input_json_delta'
            ? delta.partial_json
            : delta.type === 'thinking_delta'
              ? delta.thinking
              : delta.type === 'signature_delta'
                ? delta.signature
                : 'another kind of delta';
      if (text.length > 0) watchdog.progress();
      return;
    }
    case 'content_block_start':
    case 'content_block_stop':
      return watchdog.once(`${event.type}:${event.index}`);
    case 'message_stop':
      return watchdog.completed();
    default:
      // message_start, message_delta, and kinds of events the SDK does not know yet (never ping).
      if ((event.type as string) !== 'ping') watchdog.once(event.type);
  }
}
