/**
 * LlmClient over the Chat Completions API: OpenAI itself and every OpenAI-compatible server
 * (Ollama, LM Studio, llama.cpp, vLLM). Local servers differ in small ways — some send no
 * usage, some send tool-call ids only on the first fragment — and this adapter absorbs them.
 */
import type OpenAI from 'openai';
import type { LlmClient, LlmRequest, LlmStreamPart, TokenUsage } from '../llm-client';
import { abortError, LlmError } from '../llm-client';
import { ToolCallAccumulator } from '../tool-call-accumulator';
import { estimateUsage } from '../token-estimate';
import { toLlmError } from '../map-sdk-error';
import { openAiSdk } from '../sdk-modules';
import { displayAddress, nameWithAddress } from '../server-address';
import { convertToOpenAiMessages } from './convert-to-openai-messages';
import { mapOpenAiFinishReason } from './map-openai-finish-reason';
import { prepareOpenAiTools } from './prepare-openai-tools';
import { readServerSentEvents } from '../server-sent-events';
import { DEFAULT_STREAM_IDLE_TIMEOUT_MS, IdleWatchdog, progressLimit } from '../idle-watchdog';
import { linkedAbort, untilAborted } from '../../abort';
import type { ModelServerInfo } from '../llm-client';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;

/** One event's JSON; an `error` object inside the stream is the server failing mid-answer. */
function parseChunk(data: string, label: string): Chunk {
  let parsed: Chunk & { error?: { message?: string } };
  try {
    parsed = JSON.parse(data) as Chunk & { error?: { message?: string } };
  } catch {
    throw new LlmError(`${label} sent a malformed stream event: ${data.slice(0, 200)}`, 'stream');
  }
  if (parsed.error)
    throw new LlmError(`${label} failed mid-answer: ${parsed.error.message ?? JSON.stringify(parsed.error)}`, 'server');
  return parsed;
}

/**
 * Tells the watchdog how far an event moves the answer on: a text, refusal or reasoning token
 * or a tool call's arguments every time; a usage record and a tool call's start (its id and
 * name) once each; a finish completes the answer. Role-only and empty deltas, and any of the once-records
 * repeated, do not (a server or proxy can send them forever).
 */
function noteProgress(chunk: Chunk, watchdog: IdleWatchdog): void {
  if (chunk.usage) watchdog.once('usage');
  for (const choice of chunk.choices ?? []) {
    // A finished choice is a complete answer: what may follow (usage, [DONE]) comes at once, and
    // a server that keeps the body open after it is let go rather than timed out.
    if (choice.finish_reason) watchdog.completed();
    const delta = choice.delta as (Chunk['choices'][number]['delta'] & Record<string, unknown>) | undefined;
    if (!delta) continue;
    // Reasoning models on local servers (llama.cpp, vLLM, LM Studio, Ollama) stream their thinking here.
    if (
      nonEmpty(delta.content) ||
      nonEmpty(delta.refusal) ||
      nonEmpty(delta.reasoning_content) ||
      nonEmpty(delta.reasoning)
    )
      watchdog.progress();
    for (const call of delta.tool_calls ?? []) {
      if (nonEmpty(call.function?.arguments)) watchdog.progress();
      else if (call.id || call.function?.name) watchdog.once(`tool:${choice.index}:${call.index}`);
    }
  }
}

function nonEmpty(value: unknown): boolean {
  return typeof value === 'string' && value.length > 0;
}

export interface OpenAiClientOptions {
  /** Provider id for messages and pricing: "openai", "ollama", "lmstudio", ... */
  provider: string;
  /** Human name used in error messages: "OpenAI", "Ollama at http://localhost:11434/v1". */
  label: string;
  apiKey: string;
  baseUrl?: string;
  /** `stream_options.include_usage`; a few older servers reject it. */
  includeUsage?: boolean;
  maxRetries?: number;
  timeoutMs?: number;
  /** How long the answer may go without progress before the call ends (see idle-watchdog.ts). */
  idleTimeoutMs?: number;
  /** How long an answer under way may pause before the request's onSilence is told (default 10 s). */
  silenceNoticeMs?: number;
  /** What the server says about its model (local engines). */
  server?: ModelServerInfo;
}

export class OpenAiClient implements LlmClient {
  readonly provider: string;
  readonly server: ModelServerInfo | undefined;
  private readonly sdk: OpenAI;
  /** Where the calls go, as messages name it (no credentials). */
  private readonly address: string | undefined;

  constructor(private readonly options: OpenAiClientOptions) {
    this.provider = options.provider;
    this.server = options.server;
    this.sdk = new (openAiSdk().default)({
      apiKey: options.apiKey,
      baseURL: options.baseUrl || undefined,
      // Retries belong to the retry wrapper (it knows not to retry after the first byte).
      maxRetries: options.maxRetries ?? 0,
      timeout: options.timeoutMs ?? 10 * 60_000,
    });
    this.address = displayAddress(this.sdk.baseURL);
  }

  private failure(error: unknown): Error {
    return toLlmError(error, this.options.label, this.address, this.options.apiKey);
  }

  async listModels(signal?: AbortSignal): Promise<string[]> {
    try {
      const models: string[] = [];
      for await (const model of this.sdk.models.list({ signal })) models.push(model.id);
      return models;
    } catch (error) {
      throw this.failure(error);
    }
  }

  async *stream(request: LlmRequest): AsyncIterable<LlmStreamPart> {
    const wireMessages = convertToOpenAiMessages(request.system, request.messages);
    const { controller, unlink } = linkedAbort(request.signal);
    try {
      yield* this.streamWith(request, wireMessages, controller);
    } finally {
      unlink();
    }
  }

  private async *streamWith(
    request: LlmRequest,
    wireMessages: OpenAI.Chat.Completions.ChatCompletionMessageParam[],
    controller: AbortController,
  ): AsyncIterable<LlmStreamPart> {
    let body: ReadableStream<Uint8Array>;
    try {
      // The SDK sends the request (auth, headers, errors as APIError); the event stream is read
      // here, in linear time and in slices, because a burst of small chunks parsed by the SDK's
      // stream helper in one go blocks the event loop for a long time (see npm run bench).
      // Raced with the Stop: the wait for the first byte ends at once, whatever the SDK does.
      const response = await untilAborted(
        this.sdk.chat.completions
          .create(
            {
              model: request.model,
              messages: wireMessages,
              ...(request.tools.length > 0 ? { tools: prepareOpenAiTools(request.tools) } : {}),
              ...(request.tools.length > 0 && request.toolChoice === 'none' ? { tool_choice: 'none' as const } : {}),
              // OpenAI's own API wants max_completion_tokens; compatible servers know max_tokens.
              ...(this.provider === 'openai'
                ? { max_completion_tokens: request.maxOutputTokens }
                : { max_tokens: request.maxOutputTokens }),
              stream: true,
              ...(this.options.includeUsage === false ? {} : { stream_options: { include_usage: true } }),
            },
            { signal: controller.signal },
          )
          .asResponse(),
        controller.signal,
      );
      if (!response.body) throw new LlmError(`${this.options.label} answered with an empty body.`, 'stream');
      body = response.body;
    } catch (error) {
      throw request.signal?.aborted ? abortError() : this.failure(error);
    }

    const calls = new ToolCallAccumulator();
    let usage: TokenUsage | undefined;
    let finishReason: string | null | undefined;
    let outputChars = 0;
    const watchdog = new IdleWatchdog({
      idleMs: this.options.idleTimeoutMs ?? DEFAULT_STREAM_IDLE_TIMEOUT_MS,
      controller,
      serverLabel: nameWithAddress(this.options.label, this.address),
      ...(request.onSilence ? { onSilence: request.onSilence } : {}),
      ...(this.options.silenceNoticeMs !== undefined ? { silenceNoticeMs: this.options.silenceNoticeMs } : {}),
      maxProgress: progressLimit(request.maxOutputTokens),
    });
    try {
      // Node's web streams are async iterable; the DOM typings do not say so.
      for await (const message of readServerSentEvents(watchdog.watch(body as unknown as AsyncIterable<Uint8Array>))) {
        // Read on to the end of the body after [DONE]: a body left unread keeps its connection
        // from going back to the pool, and every call would open a new one.
        if (message.data === '[DONE]') {
          watchdog.completed();
          continue;
        }
        const chunk = parseChunk(message.data, this.options.label);
        noteProgress(chunk, watchdog);
        if (chunk.usage) {
          // prompt_tokens includes cached tokens; keep them apart, as Anthropic reports them.
          const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
          usage = {
            inputTokens: Math.max(0, (chunk.usage.prompt_tokens ?? 0) - cached),
            outputTokens: chunk.usage.completion_tokens ?? 0,
            cacheReadTokens: cached,
            cacheWriteTokens: 0,
          };
        }
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const delta = choice.delta;
        if (delta?.content) {
          outputChars += delta.content.length;
          yield { type: 'text_delta', text: delta.content };
        }
        for (const toolDelta of delta?.tool_calls ?? []) {
          if (!calls.has(toolDelta.index)) {
            const id = toolDelta.id || `call_${chunk.id}_${toolDelta.index}`;
            const name = toolDelta.function?.name ?? '';
            calls.start(toolDelta.index, id, name);
            yield { type: 'tool_call_start', id, name };
          }
          const fragment = toolDelta.function?.arguments;
          if (fragment) {
            outputChars += fragment.length;
            const id = calls.append(toolDelta.index, fragment);
            if (id) yield { type: 'tool_call_delta', id, argumentsDelta: fragment };
          }
        }
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
    } catch (error) {
      throw request.signal?.aborted ? abortError() : this.failure(error);
    }
    // Some SDK versions end the iteration quietly on abort instead of throwing.
    if (request.signal?.aborted) throw abortError();
    // No finish_reason means the stream was cut: unfinished tool calls must never run.
    if (!finishReason)
      throw new LlmError(
        `The response stream from ${this.options.label} ended before the message was complete.`,
        'stream',
      );
    yield* calls.finishAll();
    if (usage) {
      yield { type: 'usage', usage, reported: true };
    } else {
      yield { type: 'usage', usage: estimateUsage(request, outputChars), reported: false };
    }
    yield { type: 'finish', stopReason: mapOpenAiFinishReason(finishReason) };
  }
}
