/**
 * What a conversation tells the user about each model call's context and cost, beside its usage:
 * before the call, a warning when its input is estimated to cost more than the user's warning
 * level; after it, where its input tokens went (the context meter) and whether it broke the
 * prompt cache. Advisory only: nothing here may stop or slow a call.
 */
import type { AgentEventBody, ContextBreakdown } from '../events/events';
import type { LlmRequest, ModelServerInfo } from '../llm/llm-client';
import { costOf, priceOf } from '../llm/model-info';
import type { WorkKind } from '../policy/model-routes';
import { CacheWatch, inputOf, type CallShape } from './context/cache-watch';
import { isUsableCount, measureRequest, scaleParts, sumParts, type ContextParts } from './context/context-breakdown';
import type { ContextMeasure } from './context/context-measure';
import type { MeteredCall } from './metered-llm';

export interface CallInsightsDeps {
  /** The model's window and the scale of OpenAgent's estimate to the server's count. */
  context: ContextMeasure;
  /** The rules and memory sections the system prompt was built with. */
  knowledge: readonly string[];
  /** The cost above which a call is warned about before it is made (USD); undefined: never. */
  warnAboveUsd: () => number | undefined;
  emit: (body: AgentEventBody) => void;
  now: () => number;
}

type CacheBreakEvent = Extract<AgentEventBody, { type: 'cache_break' }>;

interface PendingCall {
  parts: ContextParts;
  window: number;
  shape: CallShape;
}

export class CallInsights {
  private readonly pending = new WeakMap<LlmRequest, PendingCall>();
  private readonly cache = new CacheWatch();
  /** Per thread, the estimate last warned about in this run: a run warns again only when it doubles. */
  private readonly warned = new Map<string, number>();

  constructor(private readonly deps: CallInsightsDeps) {}

  /** A new prompt is being answered. */
  beginRun(): void {
    this.warned.clear();
  }

  /** Before a call is sent: measures it, and warns when it is estimated to cost more than the warning level. */
  async before(
    request: LlmRequest,
    call: { provider: string; work: WorkKind; server: ModelServerInfo | undefined },
  ): Promise<void> {
    try {
      const parts = measureRequest(request, this.deps.knowledge);
      const window = await this.deps.context.windowFor(call.provider, request.model, call.server, request.signal);
      const shape: CallShape = {
        provider: call.provider,
        model: request.model,
        system: request.system,
        tools: request.tools,
        messages: request.messages,
        startedAt: this.deps.now(),
      };
      this.pending.set(request, { parts, window: Math.max(1, Math.floor(window)), shape });
      this.warnIfCostly(parts, shape, call.work);
    } catch {
      // A measurement that fails leaves the call without a breakdown; the call itself goes on.
    }
  }

  /**
   * After a call (its usage as the usage event carries it): the breakdown of its input for that
   * event, and a cache_break event when the call broke the prompt cache.
   */
  after(call: MeteredCall): { context?: ContextBreakdown; cacheBreak?: CacheBreakEvent } {
    const pending = this.pending.get(call.request);
    if (!pending) return {};
    this.pending.delete(call.request);
    const served = inputOf(call.usage);
    // Refused before any answer: nothing was read, nothing is known about the cache.
    if (call.reported && served === 0) return {};
    const counted = call.reported && isUsableCount(served) && served > 0;
    const total = counted ? served : call.usage.inputTokens;
    const context = { window: pending.window, ...scaleParts(pending.parts, total), counted };
    const thread = threadOf(call.work);
    const broke = thread && this.cache.observe(thread, pending.shape, call.reported ? call.usage : undefined);
    if (!broke) return { context };
    const price = priceOf(call.provider, call.model);
    const rewritten = Math.min(broke.missedTokens, call.usage.cacheWriteTokens);
    const extraCostUsd = price
      ? Math.max(
          0,
          (broke.missedTokens * (price.input - price.cacheRead) + rewritten * (price.cacheWrite - price.input)) /
            1_000_000,
        )
      : 0;
    return {
      context,
      cacheBreak: {
        type: 'cache_break',
        provider: call.provider,
        model: call.model,
        work: call.work,
        ...broke,
        extraCostUsd: Number.isFinite(extraCostUsd) ? extraCostUsd : 0,
      },
    };
  }

  private warnIfCostly(parts: ContextParts, shape: CallShape, work: WorkKind): void {
    const threshold = this.deps.warnAboveUsd();
    const price = priceOf(shape.provider, shape.model);
    if (threshold === undefined || !(threshold > 0) || !Number.isFinite(threshold) || !price) return;
    const inputTokens = this.deps.context.scale(shape.provider, shape.model, sumParts(parts));
    const thread = threadOf(work);
    const cachedTokens = thread ? this.cache.expectedCachedTokens(thread, shape, inputTokens) : 0;
    // What is not read from the cache is written to it (Anthropic: at 1.25 times the input price).
    const estimatedUsd = costOf(price, {
      inputTokens: 0,
      outputTokens: 0,
      cacheReadTokens: cachedTokens,
      cacheWriteTokens: inputTokens - cachedTokens,
    });
    if (!(estimatedUsd > threshold) || !Number.isFinite(estimatedUsd)) return;
    const key = thread ?? work;
    const last = this.warned.get(key);
    if (last !== undefined && estimatedUsd < last * 2) return;
    this.warned.set(key, estimatedUsd);
    this.deps.emit({
      type: 'cost_warning',
      provider: shape.provider,
      model: shape.model,
      work,
      inputTokens,
      cachedTokens,
      estimatedUsd,
      thresholdUsd: threshold,
    });
  }
}

/**
 * Calls whose caches follow each other: the agent's own (answers, the final summary) and its
 * sub-agents'. A summariser's one-off request has no cache to keep.
 */
function threadOf(work: WorkKind): string | undefined {
  if (work === 'compaction') return undefined;
  return work === 'subagent' ? 'subagent' : 'main';
}
