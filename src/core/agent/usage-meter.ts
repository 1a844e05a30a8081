import { addUsage, ZERO_USAGE, type TokenUsage } from '../events/usage';
import { costOf, priceOf } from '../llm/model-info';

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
