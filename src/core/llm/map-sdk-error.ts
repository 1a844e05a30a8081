/**
 * Turns an SDK or network failure into an LlmError with a message a user can act on.
 * Both vendor SDKs share the same error shape (status, headers, message), so one mapping
 * serves both; network failures are told apart in connection-failure.ts.
 */
import { redactKnown } from './redact';
import { isSdkError } from './sdk-modules';
import { connectionFailure, describeConnectionFailure } from './connection-failure';
import { abortError, LlmError } from './llm-client';
import { nameWithAddress } from './server-address';

interface SdkLikeError {
  name?: string;
  status?: number;
  message?: string;
  headers?: { get?(name: string): string | null | undefined } | Record<string, string | undefined>;
  /** The error body's `error` object (OpenAI-style servers); llama.cpp adds n_ctx to it. */
  error?: { type?: unknown; code?: unknown; n_ctx?: unknown; n_prompt_tokens?: unknown };
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

/**
 * `providerLabel` names the server in every message ("Ollama at http://localhost:11434/v1",
 * "Anthropic"); `address` is the base URL the call went to, named when the network failed.
 * `apiKey` is the key the call sent: a server may echo it (whole, cut, encoded) in its words,
 * and this error may be shown where no HeldSecrets redacts (a notification), so it goes here.
 */
export function toLlmError(error: unknown, providerLabel: string, address?: string, apiKey?: string): Error {
  if (error instanceof LlmError) return error;
  if (!(error instanceof Error)) return new LlmError(`${providerLabel}: ${String(error)}`, 'server');
  // Aborts are cancellations, not failures: let them through as one kind of error. The SDKs'
  // are told by class, not name: openai 6.x names its APIUserAbortError "Error".
  if (error.name === 'AbortError') return error;
  if (isSdkError(error, 'APIUserAbortError')) return abortError();
  const sdkError = error as SdkLikeError;
  const status = sdkError.status;
  const detail = redactKnown(serverWords(sdkError), apiKey ? [apiKey] : []);
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
      overflow.promptTokens,
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
    return new LlmError(describeConnectionFailure(connection, nameWithAddress(providerLabel, address)), 'connection');
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
function contextOverflow(
  error: SdkLikeError,
  detail: string,
): { contextWindow?: number; promptTokens?: number } | undefined {
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
  // How long the refused request was, by the server's count: llama.cpp's n_prompt_tokens, vLLM's
  // and OpenAI's "you requested N tokens" / "resulted in N tokens".
  const promptText = /(?:requested|resulted in)\s+(\d[\d,]*)\s+tokens/i.exec(detail)?.[1];
  const fromPromptBody = Number(body.n_prompt_tokens);
  const promptTokens =
    Number.isInteger(fromPromptBody) && fromPromptBody > 0
      ? fromPromptBody
      : promptText
        ? Number(promptText.replace(/,/g, ''))
        : undefined;
  return { contextWindow, ...(promptTokens !== undefined ? { promptTokens } : {}) };
}
