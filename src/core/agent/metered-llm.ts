/**
 * Every model call of a conversation goes through this wrapper, whatever it is for (an answer,
 * a sub-agent, a teammate, a compaction, a final summary): `before` sees the request before
 * anything is sent (the budget check), `after` what the call used once it ends — finished,
 * failed or interrupted, since a cut-off stream was still paid for; a request refused before
 * any answer came back used nothing.
 */
import { throwIfAborted } from '../abort';
import type { LlmClient, LlmRequest, LlmStreamPart, ModelServerInfo, TokenUsage } from '../llm/llm-client';
import { tokensForChars } from '../llm/token-estimate';
import { estimateHistoryTokens, toolDefinitionChars } from './context/request-size';
import type { WorkKind } from '../policy/model-routes';

export interface MeteredCall {
  provider: string;
  model: string;
  work: WorkKind;
  usage: TokenUsage;
  /** False when the server reported nothing and the numbers are estimates. */
  reported: boolean;
  durationMs: number;
  /** What OpenAgent estimated the request's input at, before sending it (unscaled). */
  estimatedInputTokens: number;
  /** What the call failed with (after any retries); absent when it finished. */
  error?: unknown;
  /** The request as it was sent. */
  request: LlmRequest;
}

export interface MeteringHooks {
  /**
   * Before the request is sent; throwing (a spent budget) stops the call. What it returns (a
   * budget reservation's id) is handed to `after`.
   */
  before(
    request: LlmRequest,
    call: { provider: string; work: WorkKind; server: ModelServerInfo | undefined },
  ): Promise<string | undefined> | string | undefined;
  after(call: MeteredCall, reservation: string | undefined): Promise<void> | void;
  now(): number;
}

export function withMetering(client: LlmClient, work: WorkKind, hooks: MeteringHooks): LlmClient {
  return {
    provider: client.provider,
    listModels: (signal) => client.listModels(signal),
    server: client.server,
    async *stream(request: LlmRequest): AsyncIterable<LlmStreamPart> {
      const reservation = await hooks.before(request, { provider: client.provider, work, server: client.server });
      const started = hooks.now();
      let usage: TokenUsage | undefined;
      let reported = false;
      let outputChars = 0;
      let received = false;
      let failed = false;
      let caught: unknown;
      try {
        // Stopped while the budget check or the measuring waited on the server: nothing is sent
        // (and the reservation is released below, as for a refused request).
        throwIfAborted(request.signal);
        for await (const part of client.stream(request)) {
          received = true;
          if (part.type === 'usage') {
            usage = part.usage;
            reported = part.reported;
          } else if (part.type === 'text_delta' || part.type === 'thinking_delta') outputChars += part.text.length;
          else if (part.type === 'tool_call_delta') outputChars += part.argumentsDelta.length;
          yield part;
        }
      } catch (error) {
        failed = true;
        caught = error;
        throw error;
      } finally {
        // A request that failed before anything came back (refused, unreachable, too long for
        // the window) used nothing: it is recorded as a call, with no tokens.
        const refused = failed && !received;
        const estimatedInputTokens = estimateInputTokens(request);
        await hooks.after(
          {
            provider: client.provider,
            model: request.model,
            work,
            usage: refused
              ? { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }
              : (usage ?? {
                  inputTokens: estimatedInputTokens,
                  outputTokens: tokensForChars(outputChars),
                  cacheReadTokens: 0,
                  cacheWriteTokens: 0,
                }),
            reported: refused || (usage !== undefined && reported),
            estimatedInputTokens,
            durationMs: Math.max(0, hooks.now() - started),
            request,
            ...(failed ? { error: caught } : {}),
          },
          reservation,
        );
      }
    },
  };
}

/** The request's input tokens, estimated (sizes are cached per message and per tool array). */
export function estimateInputTokens(request: LlmRequest): number {
  return estimateHistoryTokens(request.system, request.messages) + tokensForChars(toolDefinitionChars(request.tools));
}
