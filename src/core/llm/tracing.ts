/**
 * Emits `llm_request` / `llm_response` with the full payloads of every model call, paired by a
 * request id, for the developer panel's LLM traces. Secrets are redacted before anything leaves.
 */
import { elideImageData } from '../images/image-notes';
import type { EmitEvent } from '../events/events';
import type { LlmClient, LlmRequest, LlmStreamPart } from './llm-client';
import { redactValue, type KnownSecrets } from './redact';

export interface TracingOptions {
  emit: EmitEvent;
  /** Read at each call, so tracing can be switched on and off mid-conversation. */
  enabled: () => boolean;
  knownSecrets?: () => KnownSecrets;
  now?: () => number;
  /**
   * Names each request/response pair; share one across the clients of a conversation (main,
   * compaction, final summary) so ids never repeat in it. Defaults to a count per client.
   */
  nextRequestId?: () => string;
}

export function withTracing(client: LlmClient, options: TracingOptions): LlmClient {
  const now = options.now ?? Date.now;
  let sequence = 0;
  const nextRequestId = options.nextRequestId ?? (() => `llm-${++sequence}`);
  return {
    provider: client.provider,
    listModels: (signal) => client.listModels(signal),
    server: client.server,
    async *stream(request: LlmRequest): AsyncIterable<LlmStreamPart> {
      if (!options.enabled()) {
        yield* client.stream(request);
        return;
      }
      const secrets = options.knownSecrets?.() ?? [];
      const requestId = nextRequestId();
      const started = now();
      const { signal: _signal, onSilence: _onSilence, ...payload } = request;
      options.emit({
        type: 'llm_request',
        requestId,
        provider: client.provider,
        model: request.model,
        payload: redactValue(elideImageData(payload), secrets),
      });
      const text: string[] = [];
      const toolCalls: unknown[] = [];
      let usage: unknown;
      let stopReason: string | undefined;
      let failure: string | undefined;
      try {
        for await (const part of client.stream(request)) {
          if (part.type === 'text_delta') text.push(part.text);
          else if (part.type === 'tool_call' || part.type === 'tool_call_invalid') toolCalls.push(part);
          else if (part.type === 'usage') usage = part.usage;
          else if (part.type === 'finish') stopReason = part.stopReason;
          yield part;
        }
      } catch (error) {
        failure = error instanceof Error ? error.message : String(error);
        throw error;
      } finally {
        const response = { text: text.join(''), toolCalls, usage, stopReason, ...(failure ? { error: failure } : {}) };
        options.emit({
          type: 'llm_response',
          requestId,
          provider: client.provider,
          model: request.model,
          payload: redactValue(response, secrets),
          durationMs: Math.max(0, now() - started),
        });
      }
    },
  };
}
