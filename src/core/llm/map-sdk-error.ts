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
  /** The error body's `error` object (OpenAI-style servers); llama.cpp adds n_ctx to it. */
  error?: { type?: unknown; code?: unknown; n_ctx?: unknown };
  type?: unknown;
  code?: unknown;
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
  const detail = serverWords(sdkError);
  const retryAfterMs = retryAfterFromHeaders(sdkError.headers);
  if (status === 401 || status === 403) {
    return new LlmError(
      `${providerLabel} rejected the API key (${status}). Set a valid key with "OpenAgent: Set API Key".`,
      'authentication',
      status,
    );
  }
  const overflow = contextOverflow(sdkError, detail);
  if (overflow)
    return new LlmError(
      `${providerLabel} says the conversation does not fit the model's context window: ${detail}`,
      'context_overflow',
      status,
      undefined,
      overflow.contextWindow,
    );
  if (status === 429)
    return new LlmError(
      `${providerLabel} is rate limiting requests (429): ${detail}`,
      'rate_limit',
      status,
      retryAfterMs,
    );
  if (status !== undefined && status >= 500)
    return new LlmError(`${providerLabel} failed (${status}): ${detail}`, 'server', status, retryAfterMs);
  if (status !== undefined)
    return new LlmError(
      `${providerLabel} refused the request (${status}): ${detail}`,
      'bad_request',
      status,
      retryAfterMs,
    );
  const connection = connectionFailure(error);
  if (connection)
    return new LlmError(
      `${connection.lead} ${providerLabel}${connection.code ? ` (${connection.code})` : ''}.`,
      'connection',
    );
  return new LlmError(`${providerLabel}: ${detail}`, 'stream');
}

/**
 * The server's own message. The SDKs prefix it with the status ("400 request exceeds…"), which
 * the user would otherwise read twice.
 */
function serverWords(error: SdkLikeError): string {
  const message = (error.message ?? '').trim() || 'unknown error';
  return error.status !== undefined ? message.replace(new RegExp(`^${error.status}\\s+`), '') : message;
}

/**
 * A request too long for the model's window, as each server says it: llama.cpp
 * (`exceed_context_size_error`, with its n_ctx), OpenAI (`context_length_exceeded`), vLLM and
 * OpenAI-compatible servers ("maximum context length is N tokens"), Anthropic ("prompt is too
 * long"), LM Studio ("context length"/"overflows").
 */
function contextOverflow(error: SdkLikeError, detail: string): { contextWindow?: number } | undefined {
  const body = error.error ?? {};
  const type = String(body.type ?? error.type ?? '');
  const code = String(body.code ?? error.code ?? '');
  const known =
    type === 'exceed_context_size_error' ||
    code === 'context_length_exceeded' ||
    /exceeds? the available context size|maximum context length|context length (?:of \d+ )?(?:was )?exceeded|prompt is too long|context window|input is too long|overflows the context/i.test(
      detail,
    );
  if (!known) return undefined;
  const fromBody = Number(body.n_ctx);
  const fromText =
    /(?:context size|context length is|maximum context length is|context window of)\s*\(?(\d[\d,]*)/i.exec(
      detail,
    )?.[1] ?? /tokens > (\d[\d,]*) maximum/i.exec(detail)?.[1];
  const contextWindow =
    Number.isFinite(fromBody) && fromBody > 0 ? fromBody : fromText ? Number(fromText.replace(/,/g, '')) : undefined;
  return { contextWindow };
}

const CONNECTION_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * Whether the failure is the network's, judged by the whole cause chain rather than class names
 * (openai 6.x names its connection error "Error", and a bundler may rename classes): the SDKs'
 * "Connection error.", fetch's "fetch failed", undici's "terminated" when a server dies mid-body,
 * and the socket codes underneath. Returns how to begin the sentence that ends with the
 * server's name, and the socket's code; undefined when it is not the network's failure.
 */
export function connectionFailure(error: unknown): { lead: string; code: string | undefined } | undefined {
  let connection = false;
  let lost = false;
  let timeout = false;
  let code: string | undefined;
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    const { name, message } = current;
    const ownCode = (current as { code?: unknown }).code;
    if (typeof ownCode === 'string' && CONNECTION_CODES.has(ownCode)) {
      code ??= ownCode;
      connection = true;
    }
    if (name === 'APIConnectionError' || message === 'Connection error.' || message === 'fetch failed')
      connection = true;
    if (
      message === 'terminated' ||
      /other side closed/i.test(message) ||
      ownCode === 'UND_ERR_SOCKET' ||
      ownCode === 'ECONNRESET'
    )
      lost = connection = true;
    if (name === 'APIConnectionTimeoutError' || ownCode === 'ETIMEDOUT' || /TIMEOUT$/.test(String(ownCode)))
      timeout = connection = true;
    current = (current as { cause?: unknown }).cause;
  }
  if (!connection) return undefined;
  if (timeout) return { lead: 'The request timed out at', code };
  if (lost) return { lead: 'The connection was lost with', code };
  return { lead: 'Could not reach', code };
}
