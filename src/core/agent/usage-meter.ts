import type { TokenUsage } from '../llm/llm-client';
import { costOf, priceOf } from '../llm/model-info';

export const ZERO_USAGE: TokenUsage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };

export function addUsage(a: TokenUsage, b: TokenUsage): TokenUsage {
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
    cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  };
}

export function totalTokens(usage: TokenUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheReadTokens + usage.cacheWriteTokens;
}

/** Adds up tokens and cost over model calls; `priced` turns false once any call had no known price. */
export class UsageMeter {
  usage: TokenUsage = ZERO_USAGE;
  costUsd = 0;
  reported = true;
  calls = 0;

  /** Records one call; returns its cost. */
  record(provider: string, model: string, usage: TokenUsage, reported: boolean): { costUsd: number; priced: boolean } {
    const price = priceOf(provider, model);
    const costUsd = costOf(price, usage);
    this.calls++;
    this.usage = addUsage(this.usage, usage);
    this.costUsd += costUsd;
    this.reported &&= reported && price !== undefined;
    return { costUsd, priced: price !== undefined };
  }
}
