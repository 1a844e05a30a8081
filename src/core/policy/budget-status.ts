/**
 * Where each budget limit stands (Show Usage and Budget, the CLI's /cost): what its scope has
 * spent, from the ledger (the store's usage records), against the limit.
 */
import {
  budgetLimits,
  describeLimit,
  formatAmount,
  type BudgetPolicy,
  type BudgetScope,
  type BudgetUnit,
  type SpendingLedger,
  spendingQuery,
} from './budget';

export interface BudgetStanding {
  scope: BudgetScope;
  unit: BudgetUnit;
  /** The policy key, e.g. daily_usd. */
  key: string;
  limit: number;
  spent: number;
}

export async function budgetStandings(
  policy: BudgetPolicy | undefined,
  ledger: SpendingLedger,
  conversationId: string | undefined,
  now: number,
): Promise<BudgetStanding[]> {
  const standings: BudgetStanding[] = [];
  for (const limit of budgetLimits(policy)) {
    // No conversation yet: nothing spent in it.
    const spent =
      limit.scope === 'conversation' && !conversationId
        ? 0
        : (await ledger.spent(spendingQuery(limit.scope, conversationId ?? '', now)))[limit.unit];
    standings.push({ scope: limit.scope, unit: limit.unit, key: limit.key, limit: limit.value, spent });
  }
  return standings;
}

/** "today's budget: $1.20 of $10.00 (12 %)". */
export function describeStanding(standing: BudgetStanding): string {
  const percent = Math.floor((standing.spent / standing.limit) * 100);
  return `${describeLimit(standing.scope, standing.unit)}: ${formatAmount(standing.unit, standing.spent)} of ${formatAmount(standing.unit, standing.limit)} (${percent} %)`;
}

/** What the policy does at a limit, in words. */
export function describeOnExceeded(policy: BudgetPolicy | undefined): string {
  return (policy?.on_exceeded ?? 'block') === 'block'
    ? 'At a limit the agent stops (on_exceeded: block).'
    : 'At a limit the agent warns and goes on (on_exceeded: warn).';
}
