/**
 * Turns an SDK or network failure into an LlmError with a message a user can act on.
 * Both vendor SDKs share the same error shape (status, headers, message, a connection error
 * class name), so one mapping serves both without importing either SDK here.
 */
import { LlmError } from './llm-client';

interface SdkLikeError {
  name?: string;
  status?: number;
  message?: string;
  headers?: { get?(name: string): string | null | undefined } | Record<string, string | undefined>;
}

/** Reads retry-after-ms / retry-after (seconds or an HTTP date) from an SDK error's headers. */
export function retryAfterFromHeaders(headers: SdkLikeError['headers'], now = Date.now()): number | undefined {
  if (!headers) return undefined;
  const read = (name: string): string | undefined => {
    if (typeof headers.get === 'function') return headers.get(name) ?? undefined;
    return (headers as Record<string, string | undefined>)[name];
  };
  const milliseconds = Number(read('retry-after-ms'));
  if (read('retry-after-ms') && Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const value = read('retry-after');
  if (!value) return undefined;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isFinite(date) ? Math.max(0, date - now) : undefined;
}

export function toLlmError(error: unknown, providerLabel: string): Error {
  if (error instanceof LlmError) return error;
  if (!(error instanceof Error)) return new LlmError(`${providerLabel}: ${String(error)}`, 'server');
  // Aborts are cancellations, not failures: let them through untouched.
  if (error.name === 'AbortError' || error.name === 'APIUserAbortError') return error;
  const sdkError = error as SdkLikeError;
  const status = sdkError.status;
  const detail = sdkError.message ?? 'unknown error';
  const retryAfterMs = retryAfterFromHeaders(sdkError.headers);
  if (status === 401 || status === 403) {
    return new LlmError(
      `${providerLabel} rejected the API key (${status}). Set a valid key with "OpenAgent: Set API Key".`,
      'authentication',
      status,
    );
  }
  if (status === 429)
    return new LlmError(
      `${providerLabel} is rate limiting requests (429): ${detail}`,
      'rate_limit',
      status,
      retryAfterMs,
    );
  if (status !== undefined && status >= 500)
    return new LlmError(`${providerLabel} server error (${status}): ${detail}`, 'server', status, retryAfterMs);
  if (status !== undefined)
    return new LlmError(
      `${providerLabel} refused the request (${status}): ${detail}`,
      'bad_request',
      status,
      retryAfterMs,
    );
  if (sdkError.name === 'APIConnectionError' || sdkError.name === 'APIConnectionTimeoutError') {
    return new LlmError(`Could not reach ${providerLabel}: ${detail}`, 'connection');
  }
  return new LlmError(`${providerLabel}: ${detail}`, 'stream');
}
