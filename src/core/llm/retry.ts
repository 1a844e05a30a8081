/**
 * Retries a model call that failed before it produced anything: jittered exponential backoff
 * on 408/409/429/5xx/529, connection errors and timeouts, honouring the server's retry-after.
 * Once the first part has streamed out, a failure is final — the caller has already shown or
 * acted on that output, and a retry would repeat it. A local server's 500 is not retried: it
 * says what is wrong with the request or the server's setup ("tools param requires --jinja
 * flag"), there is no fleet behind it to land on a healthier machine, and the user should read
 * it at once rather than after five identical failures.
 */
import type { LlmClient, LlmRequest, LlmStreamPart } from './llm-client';
import { LlmError } from './llm-client';
import { isProviderId, PROVIDER_PRESETS } from './provider-presets';

const RETRYABLE_STATUS = new Set([408, 409, 429, 500, 502, 503, 504, 529]);

export interface RetryOptions {
  maxRetries: number;
  /** First delay; doubles each attempt. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** A retry-after longer than this is not waited for: the error goes to the user instead. */
  maxRetryAfterMs: number;
  /** Called before each wait, e.g. to tell the user. */
  onRetry?: (info: { attempt: number; delayMs: number; error: LlmError }) => void;
  /** For tests: how to wait and where randomness comes from. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  random?: () => number;
}

export const DEFAULT_RETRY_OPTIONS: RetryOptions = {
  maxRetries: 4,
  baseDelayMs: 500,
  maxDelayMs: 30_000,
  maxRetryAfterMs: 60_000,
};

export function isRetryable(error: unknown, provider?: string): error is LlmError {
  if (!(error instanceof LlmError)) return false;
  if (error.kind === 'connection') return true;
  if (error.status === 500 && provider !== undefined && isProviderId(provider) && PROVIDER_PRESETS[provider].local)
    return false;
  return error.status !== undefined && RETRYABLE_STATUS.has(error.status);
}

/** The wait before retry number `attempt` (1-based): the server's word, or jittered backoff. */
export function retryDelay(attempt: number, error: LlmError, options: RetryOptions, random: () => number): number {
  if (error.retryAfterMs !== undefined) return error.retryAfterMs;
  const ceiling = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** (attempt - 1));
  // "Equal jitter": at least half the backoff, so retries never bunch up at zero.
  return ceiling / 2 + random() * (ceiling / 2);
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export function withRetry(client: LlmClient, overrides: Partial<RetryOptions> = {}): LlmClient {
  const options = { ...DEFAULT_RETRY_OPTIONS, ...overrides };
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  return {
    provider: client.provider,
    listModels: (signal) => client.listModels(signal),
    server: client.server,
    async *stream(request: LlmRequest): AsyncIterable<LlmStreamPart> {
      for (let attempt = 1; ; attempt++) {
        let streamed = false;
        try {
          for await (const part of client.stream(request)) {
            streamed = true;
            yield part;
          }
          return;
        } catch (error) {
          if (
            streamed ||
            request.signal?.aborted ||
            !isRetryable(error, client.provider) ||
            attempt > options.maxRetries
          )
            throw error;
          const delayMs = retryDelay(attempt, error, options, random);
          if (delayMs > options.maxRetryAfterMs) throw error;
          options.onRetry?.({ attempt, delayMs, error });
          await sleep(delayMs, request.signal);
        }
      }
    },
  };
}
