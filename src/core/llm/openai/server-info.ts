/**
 * What a local OpenAI-compatible server says about the model it runs, beyond the chat API: the
 * context window it was started with, and (llama.cpp) its own token count of a request. Each
 * engine says it its own way:
 * - llama.cpp: `GET /props` → default_generation_settings.n_ctx (the slot's window), or
 *   `GET /v1/models` → data[].meta.n_ctx; `POST /apply-template` + `POST /tokenize` count tokens.
 * - Ollama: `POST /api/ps` → models[].context_length once loaded; `POST /api/show` →
 *   `num_ctx` in its parameters; otherwise Ollama runs with its default of 4,096.
 * - LM Studio: `GET /api/v0/models/{id}` → loaded_context_length, once the model is loaded.
 * - vLLM (and servers like it): `GET /v1/models` → data[].max_model_len.
 * Nothing here is trusted blindly: a value must be a positive integer of sane size.
 */
import { untilAborted } from '../../abort';
import type { LlmRequest, ModelServerInfo } from '../llm-client';
import type { ProviderId } from '../provider-presets';
import { convertToOpenAiMessages } from './convert-to-openai-messages';
import { prepareOpenAiTools } from './prepare-openai-tools';

/** Ollama's context length when neither the model file nor the server sets one. */
export const OLLAMA_DEFAULT_CONTEXT = 4_096;
/** How long a probe or a count is waited for by default: a server that is slow to say goes without. */
export const DEFAULT_PROBE_TIMEOUT_MS = 5_000;
/** A failed or silent probe is tried again after this long (the server may have been starting). */
const RETRY_PROBE_AFTER_MS = 60_000;
/** A guessed window (the model not loaded yet) is asked again after this long. */
const REPROBE_GUESS_AFTER_MS = 10_000;

/** A window and whether it is a guess to be checked again. */
interface Probe {
  tokens: number | undefined;
  provisional?: boolean;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function tokens(value: unknown): number | undefined {
  const number = typeof value === 'string' ? Number(value) : value;
  return typeof number === 'number' && Number.isInteger(number) && number > 0 && number <= 100_000_000
    ? number
    : undefined;
}

export class OpenAiServerInfo implements ModelServerInfo {
  private readonly windows = new Map<string, { value: Promise<number | undefined>; expires?: number }>();
  /** The server's address without the /v1 the chat API lives under. */
  private readonly root: string;
  /** The chat API's address, e.g. http://127.0.0.1:8080/v1. */
  private readonly api: string;

  private readonly fetchImpl: typeof fetch;
  private readonly now: () => number;
  private readonly timeoutMs: number;

  constructor(
    private readonly provider: ProviderId,
    baseUrl: string,
    options: { fetch?: typeof fetch; now?: () => number; timeoutMs?: number | undefined } = {},
  ) {
    this.fetchImpl = options.fetch ?? ((...args) => fetch(...args));
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? DEFAULT_PROBE_TIMEOUT_MS;
    this.api = baseUrl.replace(/\/+$/, '');
    this.root = this.api.replace(/\/v1$/, '');
  }

  /**
   * The probe is shared by every caller until it expires, so it runs on its own timeout, never
   * on one caller's signal: a Stop pressed during the first probe must not leave "unknown"
   * cached for a minute (a 4k server taken for a 32k model). Each caller stops waiting at its
   * own Stop.
   */
  contextWindow(model: string, signal?: AbortSignal): Promise<number | undefined> {
    const cached = this.windows.get(model);
    if (cached && (cached.expires === undefined || this.now() < cached.expires))
      return untilAborted(cached.value, signal);
    const probe = this.probeWindow(model).catch((): Probe => ({ tokens: undefined }));
    const entry: { value: Promise<number | undefined>; expires?: number } = {
      value: probe.then((result) => result.tokens),
    };
    this.windows.set(model, entry);
    // A silent server may have been starting, and a guess (Ollama's default before the model is
    // loaded) may be replaced by the real value: both are asked again after a while.
    void probe.then((result) => {
      if (result.tokens === undefined) entry.expires = this.now() + RETRY_PROBE_AFTER_MS;
      else if (result.provisional) entry.expires = this.now() + REPROBE_GUESS_AFTER_MS;
    });
    return untilAborted(entry.value, signal);
  }

  /** Rejects with the cancellation when `signal` aborts (a failed count is undefined; a stopped one is not). */
  countInputTokens(request: LlmRequest, signal?: AbortSignal): Promise<number | undefined> {
    return untilAborted(this.count(request, signal), signal);
  }

  private async count(request: LlmRequest, signal?: AbortSignal): Promise<number | undefined> {
    if (this.provider !== 'llamacpp') return undefined;
    const template = await this.post(
      '/apply-template',
      {
        messages: convertToOpenAiMessages(request.system, request.messages),
        ...(request.tools.length > 0 ? { tools: prepareOpenAiTools(request.tools) } : {}),
      },
      signal,
    );
    if (!isObject(template) || typeof template.prompt !== 'string') return undefined;
    const counted = await this.post(
      '/tokenize',
      { content: template.prompt, add_special: true, parse_special: true },
      signal,
    );
    return isObject(counted) && Array.isArray(counted.tokens) ? counted.tokens.length : undefined;
  }

  private async probeWindow(model: string, signal?: AbortSignal): Promise<Probe> {
    switch (this.provider) {
      case 'llamacpp':
        return { tokens: (await this.llamaCppWindow(model, signal)) ?? (await this.modelListWindow(model, signal)) };
      case 'ollama':
        return this.ollamaWindow(model, signal);
      case 'lmstudio':
        return { tokens: await this.lmStudioWindow(model, signal) };
      case 'vllm':
        return { tokens: await this.modelListWindow(model, signal) };
      case 'openai-compatible':
        // Unknown engine: its model list (vLLM, llama.cpp) or llama.cpp's /props.
        return {
          tokens: (await this.modelListWindow(model, signal)) ?? (await this.llamaCppWindow(model, signal)),
        };
      default:
        return { tokens: undefined };
    }
  }

  private async llamaCppWindow(_model: string, signal?: AbortSignal): Promise<number | undefined> {
    const props = await this.get('/props', signal);
    if (!isObject(props)) return undefined;
    const settings = props.default_generation_settings;
    return tokens(isObject(settings) ? settings.n_ctx : undefined) ?? tokens(props.n_ctx);
  }

  /** The entry for `model` in /v1/models (or the only one): vLLM's max_model_len, llama.cpp's meta.n_ctx. */
  private async modelListWindow(model: string, signal?: AbortSignal): Promise<number | undefined> {
    const list = await this.get(`${this.api.slice(this.root.length)}/models`, signal);
    const data = isObject(list) && Array.isArray(list.data) ? list.data.filter(isObject) : [];
    const entry = data.find((item) => item.id === model) ?? (data.length === 1 ? data[0] : undefined);
    if (!entry) return undefined;
    const meta = isObject(entry.meta) ? entry.meta : {};
    return (
      tokens(entry.max_model_len) ??
      tokens(meta.n_ctx) ??
      tokens(entry.context_length) ??
      tokens(entry.context_window) ??
      tokens(entry.max_context_length)
    );
  }

  private async ollamaWindow(model: string, signal?: AbortSignal): Promise<Probe> {
    const name = (value: unknown) => String(value).replace(/:latest$/, '');
    const running = await this.get('/api/ps', signal);
    const loaded = isObject(running) && Array.isArray(running.models) ? running.models.filter(isObject) : [];
    const entry = loaded.find((item) => name(item.name ?? item.model) === name(model));
    const live = tokens(entry?.context_length);
    if (live) return { tokens: live };
    const shown = await this.post('/api/show', { model }, signal);
    if (!isObject(shown)) return { tokens: undefined };
    const parameters = typeof shown.parameters === 'string' ? shown.parameters : '';
    const numCtx = tokens(/^\s*num_ctx\s+(\d+)/m.exec(parameters)?.[1]);
    if (numCtx) return { tokens: numCtx };
    // Not loaded, nothing set: the server's default (OLLAMA_CONTEXT_LENGTH may raise it), until
    // the model is loaded and /api/ps says.
    const info = isObject(shown.model_info) ? shown.model_info : {};
    const trained = Object.entries(info).find(([key]) => key.endsWith('.context_length'))?.[1];
    return { tokens: Math.min(OLLAMA_DEFAULT_CONTEXT, tokens(trained) ?? OLLAMA_DEFAULT_CONTEXT), provisional: true };
  }

  private async lmStudioWindow(model: string, signal?: AbortSignal): Promise<number | undefined> {
    const entry = await this.get(`/api/v0/models/${encodeURIComponent(model)}`, signal);
    // Not loaded yet: the window depends on how it will be loaded (its max is no promise), so ask again later.
    return isObject(entry) ? tokens(entry.loaded_context_length) : undefined;
  }

  private get(path: string, signal?: AbortSignal): Promise<unknown> {
    return this.request(path, { method: 'GET' }, signal);
  }

  private post(path: string, body: unknown, signal?: AbortSignal): Promise<unknown> {
    return this.request(
      path,
      { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) },
      signal,
    );
  }

  /** JSON from the server, or undefined for anything else (an error, a 404, HTML, a timeout). */
  private async request(path: string, init: RequestInit, signal?: AbortSignal): Promise<unknown> {
    const timeout = AbortSignal.timeout(this.timeoutMs);
    try {
      const response = await this.fetchImpl(`${this.root}${path}`, {
        ...init,
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
      if (!response.ok) return undefined;
      const text = await response.text();
      return text.length > 10_000_000 ? undefined : (JSON.parse(text) as unknown);
    } catch {
      return undefined;
    }
  }
}
