/**
 * The words for cost warnings, shared by the chat, the developer panel and the CLI so they say
 * the same thing. Part of the shared vocabulary: depends on nothing but the event types.
 */
import type { AgentEvent, CacheBreakReason } from './events';

type CacheBreakEvent = Extract<AgentEvent, { type: 'cache_break' }>;
type CostWarningEvent = Extract<AgentEvent, { type: 'cost_warning' }>;

const REASONS: Record<CacheBreakReason, string> = {
  model_switched: 'the model changed',
  system_prompt_changed: 'the system prompt changed',
  tools_changed: 'the tools offered changed',
  history_rewritten: 'earlier messages were changed (old tool results shortened)',
  cache_expired: 'the cache expired (more than 5 minutes since the previous call)',
};

/** "The prompt cache broke: …" with what it cost and why, as far as that is known. */
export function describeCacheBreak(
  event: Pick<CacheBreakEvent, 'previousShare' | 'share' | 'missedTokens' | 'extraCostUsd' | 'reasons'>,
): string {
  const cost = event.extraCostUsd > 0 ? ` (about ${formatUsd(event.extraCostUsd)} more)` : '';
  const why =
    event.reasons.length > 0
      ? `Why: ${event.reasons.map((reason) => REASONS[reason] ?? reason).join('; ')}.`
      : 'OpenAgent cannot tell why: the provider may have dropped it.';
  return (
    `The prompt cache broke: this call read ${percent(event.share)} of its input from the cache, the previous one ` +
    `${percent(event.previousShare)}, so ${formatCount(event.missedTokens)} tokens were paid for again${cost}. ${why}`
  );
}

/** "The next model call is estimated at …" with the warning level it passes. */
export function describeCostWarning(
  event: Pick<CostWarningEvent, 'inputTokens' | 'cachedTokens' | 'estimatedUsd' | 'thresholdUsd'>,
): string {
  const cached = event.cachedTokens > 0 ? `, ${formatCount(event.cachedTokens)} of them expected from the cache` : '';
  return (
    `The next model call is estimated at ${formatUsd(event.estimatedUsd)} for its input alone ` +
    `(${formatCount(event.inputTokens)} tokens${cached}), over your warning level of ${formatUsd(event.thresholdUsd)}. ` +
    'Compacting the conversation or starting a new one makes calls cheaper.'
  );
}

/** Dollars with enough digits to tell small amounts apart (under $1: four). */
export function formatUsd(usd: number): string {
  return `$${usd.toFixed(usd !== 0 && Math.abs(usd) < 1 ? 4 : 2)}`;
}

function formatCount(count: number): string {
  return Math.round(count).toLocaleString('en-US');
}

function percent(share: number): string {
  return `${Math.round(share * 100)} %`;
}
