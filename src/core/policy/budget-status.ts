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
  type Limit,
  type LocalScope,
  SHARED_SCOPES,
  type SpendingLedger,
  teamCounted,
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

/** Where the team database's limits stand (spent plus open reservations). */
export type TeamStandings = (
  limits: Limit[],
  conversationId?: string,
) => Promise<Array<{ limit: Limit; committed: number }>>;

/**
 * Where each limit stands. With a team (`team` given), the team's, the member's and the
 * conversation's limits are read from the team database; without one, the team's and the
 * member's limits cannot be counted and are left out.
 */
export async function budgetStandings(
  policy: BudgetPolicy | undefined,
  ledger: SpendingLedger,
  conversationId: string | undefined,
  now: number,
  team?: TeamStandings,
): Promise<BudgetStanding[]> {
  const standings: BudgetStanding[] = [];
  const limits = budgetLimits(policy);
  const counted = team ? teamCounted(limits) : [];
  const byTeam = (limit: Limit) => SHARED_SCOPES.includes(limit.scope) || counted.includes(limit);
  const shared = team ? await team(limits.filter(byTeam), conversationId) : [];
  for (const limit of limits) {
    let spent: number | undefined;
    if (byTeam(limit)) spent = shared.find((standing) => standing.limit.key === limit.key)?.committed;
    // No conversation yet: nothing spent in it.
    else if (limit.scope === 'conversation' && !conversationId) spent = 0;
    else spent = (await ledger.spent(spendingQuery(limit.scope as LocalScope, conversationId ?? '', now)))[limit.unit];
    if (spent !== undefined)
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
