/**
 * How big the model's window is and how full a request is, as the server sees it.
 *
 * The window: the user's setting if there is one, else what the server says (llama.cpp,
 * Ollama, LM Studio, vLLM), else what OpenAgent knows of the model. A window the server refused
 * a request at (a context overflow naming its size) overrides them all: the server is right.
 *
 * The size: the character-based estimate (token-estimate.ts) misses by model and template (a
 * chat template renders tool schemas with extra spaces and markup; 14 % under on llama.cpp with
 * Qwen's template). So the estimate is scaled by what the server counted: at the first call by
 * its tokenizer where it has one (llama.cpp), and after every call by the usage it reports.
 */
import { untilAborted } from '../../abort';
import type { LlmRequest, ModelServerInfo } from '../../llm/llm-client';
import { contextWindowOf } from '../../llm/model-info';
import type { ModelBinding } from '../agent-loop';

/** The scale is kept within these bounds: a server reporting nonsense cannot make OpenAgent blind. */
const MIN_RATIO = 0.5;
const MAX_RATIO = 3;

export class ContextMeasure {
  private readonly learnedWindows = new Map<string, number>();
  private readonly ratios = new Map<string, number>();
  private readonly counted = new Set<string>();

  /** `configured`: the user's window setting, read at each use (undefined: none). */
  constructor(private readonly configured: () => number | undefined) {}

  async window(binding: ModelBinding, signal?: AbortSignal): Promise<number> {
    return this.windowFor(binding.llm.provider, binding.model, binding.llm.server, signal);
  }

  /** The window of `model` at `provider`, whose server (if it can) says what it runs the model with. */
  async windowFor(
    provider: string,
    model: string,
    server: ModelServerInfo | undefined,
    signal?: AbortSignal,
  ): Promise<number> {
    const set = this.configured();
    // A probe that fails says nothing (the model's known window applies), but a Stop stops the
    // wait at once: a frozen server must not hold the user for the probe's own timeout.
    const probed =
      set === undefined && server
        ? await untilAborted(
            server.contextWindow(model, signal).catch(() => undefined),
            signal,
          )
        : undefined;
    const known = set ?? probed ?? contextWindowOf(model);
    const learned = this.learnedWindows.get(key(provider, model));
    return learned !== undefined ? Math.min(learned, known) : known;
  }

  /** The server refused a request as too long for a window of `tokens`. */
  learnWindow(provider: string, model: string, tokens: number): void {
    if (Number.isInteger(tokens) && tokens > 0) this.learnedWindows.set(key(provider, model), tokens);
  }

  /** An estimate scaled to the server's count for this model. */
  scale(provider: string, model: string, estimate: number): number {
    return Math.ceil(estimate * (this.ratios.get(key(provider, model)) ?? 1));
  }

  /** The server counted `actual` input tokens for a request estimated at `estimate`. */
  observe(provider: string, model: string, estimate: number, actual: number): void {
    if (!(estimate > 0 && actual > 0)) return;
    this.ratios.set(key(provider, model), Math.min(MAX_RATIO, Math.max(MIN_RATIO, actual / estimate)));
  }

  /**
   * The request's size as the server will count it: its own count where it can count (llama.cpp:
   * two calls to a local server, milliseconds), else the estimate scaled by earlier counts.
   */
  async size(binding: ModelBinding, request: LlmRequest, estimate: number): Promise<number> {
    const { provider } = binding.llm;
    const counted = binding.llm.server
      ? await untilAborted(
          binding.llm.server.countInputTokens(request, request.signal).catch(() => undefined),
          request.signal,
        )
      : undefined;
    if (counted === undefined) return this.scale(provider, binding.model, estimate);
    this.counted.add(key(provider, binding.model));
    this.observe(provider, binding.model, estimate, counted);
    return counted;
  }

  /**
   * Before the first call to a model: its server's own count of the request, where the server
   * can count (once per model; a failure just leaves the estimate unscaled).
   */
  async countOnce(
    provider: string,
    server: ModelServerInfo | undefined,
    request: LlmRequest,
    estimate: number,
  ): Promise<void> {
    const id = key(provider, request.model);
    if (!server || this.counted.has(id)) return;
    this.counted.add(id);
    let actual: number | undefined;
    try {
      actual = await untilAborted(
        server.countInputTokens(request, request.signal).catch(() => undefined),
        request.signal,
      );
    } catch (error) {
      // Stopped before the server counted: the next call counts.
      this.counted.delete(id);
      throw error;
    }
    if (actual !== undefined) this.observe(provider, request.model, estimate, actual);
  }
}

function key(provider: string, model: string): string {
  return `${provider}\n${model}`;
}
