/**
 * Turns an SDK or network failure into an LlmError with a message a user can act on.
 * Both vendor SDKs share the same error shape (status, message, a connection error class
 * name), so one mapping serves both without importing either SDK here.
 */
import { LlmError } from './llm-client';

interface SdkLikeError {
  name?: string;
  status?: number;
  message?: string;
}

export function toLlmError(error: unknown, providerLabel: string): Error {
  if (error instanceof LlmError) return error;
  if (!(error instanceof Error)) return new LlmError(`${providerLabel}: ${String(error)}`, 'server');
  // Aborts are cancellations, not failures: let them through untouched.
  if (error.name === 'AbortError' || error.name === 'APIUserAbortError') return error;
  const sdkError = error as SdkLikeError;
  const status = sdkError.status;
  const detail = sdkError.message ?? 'unknown error';
  if (status === 401 || status === 403) {
    return new LlmError(
      `${providerLabel} rejected the API key (${status}). Set a valid key with "OpenAgent: Set API Key".`,
      'authentication',
      status,
    );
  }
  if (status === 429)
    return new LlmError(`${providerLabel} is rate limiting requests (429): ${detail}`, 'rate_limit', status);
  if (status !== undefined && status >= 500)
    return new LlmError(`${providerLabel} server error (${status}): ${detail}`, 'server', status);
  if (status !== undefined)
    return new LlmError(`${providerLabel} refused the request (${status}): ${detail}`, 'bad_request', status);
  if (sdkError.name === 'APIConnectionError' || sdkError.name === 'APIConnectionTimeoutError') {
    return new LlmError(`Could not reach ${providerLabel}: ${detail}`, 'connection');
  }
  return new LlmError(`${providerLabel}: ${detail}`, 'stream');
}
