/**
 * The words for cost warnings, shared by the chat, the developer panel and the CLI so they say
 * the same thing. Part of the shared vocabulary: depends on nothing but the event types.
 */
import type { AgentEvent, CacheBreakReason, ContextBreakdown } from './events';

type UsageEvent = Extract<AgentEvent, { type: 'usage' }>;
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

/** The parts of a context breakdown in the order surfaces show them, with their labels. */
export const CONTEXT_PARTS = [
  { name: 'systemAndTools', label: 'System + tools' },
  { name: 'rulesAndMemory', label: 'Rules & memory' },
  { name: 'conversation', label: 'Conversation' },
  { name: 'toolResults', label: 'Tool results' },
] as const satisfies ReadonlyArray<{ name: keyof ContextBreakdown; label: string }>;

export function contextUsed(context: ContextBreakdown): number {
  return CONTEXT_PARTS.reduce((sum, part) => sum + context[part.name], 0);
}

/**
 * Whether a call's context is the one a context meter shows: the lead agent's own answers, not
 * a sub-agent's, a teammate's or the summariser's (their windows are theirs).
 */
export function isMainCall(event: UsageEvent): boolean {
  return event.scope === 'call' && event.agentId === 'lead' && event.work !== 'subagent' && event.work !== 'compaction';
}

/** "45,210 of 200,000 tokens (23 %)"; `~` marks an estimate (the server counted nothing). */
export function describeContextTotal(context: ContextBreakdown): string {
  const used = contextUsed(context);
  const percentFull = Math.round(Math.min(1, used / context.window) * 100);
  return `${context.counted ? '' : '~'}${formatCount(used)} of ${formatCount(context.window)} tokens (${percentFull} %)`;
}

/** "System + tools 12,345 · Rules & memory 1,200 · Conversation 20,000 · Tool results 11,665". */
export function describeContextParts(context: ContextBreakdown): string {
  return CONTEXT_PARTS.map((part) => `${part.label} ${formatCount(context[part.name])}`).join(' · ');
}

/** Dollars: whole cents as cents ($0.50), smaller amounts under $1 with four digits ($0.0243). */
export function formatUsd(usd: number): string {
  const wholeCents = Math.abs(usd * 100 - Math.round(usd * 100)) < 1e-9;
  return `$${usd.toFixed(!wholeCents && Math.abs(usd) < 1 ? 4 : 2)}`;
}

export function formatCount(count: number): string {
  return Math.round(count).toLocaleString('en-US');
}

function percent(share: number): string {
  return `${Math.round(share * 100)} %`;
}
