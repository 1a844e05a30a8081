/**
 * Budgets (SPEC 4.4): limits in US dollars and tokens per conversation, per day and per month
 * (UTC), checked before each model call against what was spent plus an estimate of the call,
 * and after it against what it really cost. One guard serves a window's conversations and
 * everything they start (sub-agents, teammates), so they all draw on the same limits. What was
 * spent before (earlier sessions, other windows) comes from the ledger — the store's usage
 * records — so budgets survive restarts.
 *
 *   on_exceeded: block  → the call that would pass the limit is not made; the run stops.
 *   on_exceeded: warn   → the user is told once per limit; work goes on.
 *   Either way the user is warned once when a limit is 80 % used.
 */
import type { AgentEventBody } from '../events/events';
import type { AgentPolicy } from './agent-policy';

/**
 * Whose spending a limit counts: this conversation's, this machine's today or this month, or —
 * with a team database (SPEC 5a) — the whole team's or this member's today or this month.
 */
export type BudgetScope =
  'conversation' | 'daily' | 'monthly' | 'team_daily' | 'team_monthly' | 'member_daily' | 'member_monthly';

/** Scopes only the team database can count (every machine of the team or member spends on them). */
export const SHARED_SCOPES: readonly BudgetScope[] = ['team_daily', 'team_monthly', 'member_daily', 'member_monthly'];
export type BudgetUnit = 'usd' | 'tokens';
export type BudgetPolicy = NonNullable<AgentPolicy['budget']>;

export interface Spending {
  usd: number;
  tokens: number;
}

export type SpendingQuery = { conversationId: string } | { day: string } | { month: string };
export type LocalScope = 'conversation' | 'daily' | 'monthly';

/** Where past spending is read from (the store's usage records). */
export interface SpendingLedger {
  spent(query: SpendingQuery): Promise<Spending>;
}

/** What a limit of `scope` counts at `now`: this conversation, today or this month (UTC). */
export function spendingQuery(scope: LocalScope, conversationId: string, now: number): SpendingQuery {
  const day = new Date(now).toISOString().slice(0, 10);
  if (scope === 'conversation') return { conversationId };
  return scope === 'daily' ? { day } : { month: day.slice(0, 7) };
}

export class BudgetExceededError extends Error {
  constructor(
    message: string,
    /** The limit that stopped the call; undefined when the team database could not be asked. */
    readonly scope?: BudgetScope,
    readonly unit?: BudgetUnit,
  ) {
    super(message);
    this.name = 'BudgetExceededError';
  }
}

export const WARNING_FRACTION = 0.8;

export interface Limit {
  scope: BudgetScope;
  unit: BudgetUnit;
  value: number;
  /** The policy key that sets it, for messages and "Raise Budget". */
  key: keyof BudgetPolicy;
}

const LIMIT_KEYS: ReadonlyArray<{ scope: BudgetScope; unit: BudgetUnit; key: keyof BudgetPolicy }> = [
  { scope: 'conversation', unit: 'usd', key: 'per_conversation_usd' },
  { scope: 'daily', unit: 'usd', key: 'daily_usd' },
  { scope: 'monthly', unit: 'usd', key: 'monthly_usd' },
  { scope: 'conversation', unit: 'tokens', key: 'per_conversation_tokens' },
  { scope: 'daily', unit: 'tokens', key: 'daily_tokens' },
  { scope: 'monthly', unit: 'tokens', key: 'monthly_tokens' },
  { scope: 'team_daily', unit: 'usd', key: 'team_daily_usd' },
  { scope: 'team_monthly', unit: 'usd', key: 'team_monthly_usd' },
  { scope: 'team_daily', unit: 'tokens', key: 'team_daily_tokens' },
  { scope: 'team_monthly', unit: 'tokens', key: 'team_monthly_tokens' },
  { scope: 'member_daily', unit: 'usd', key: 'member_daily_usd' },
  { scope: 'member_monthly', unit: 'usd', key: 'member_monthly_usd' },
  { scope: 'member_daily', unit: 'tokens', key: 'member_daily_tokens' },
  { scope: 'member_monthly', unit: 'tokens', key: 'member_monthly_tokens' },
];

/** The limits a budget policy sets. */
export function budgetLimits(policy: BudgetPolicy | undefined): Limit[] {
  if (!policy) return [];
  return LIMIT_KEYS.flatMap(({ scope, unit, key }) => {
    const value = policy[key];
    return typeof value === 'number' && value > 0 ? [{ scope, unit, value, key }] : [];
  });
}

/**
 * The limits the team database counts: the team's and the members', and — when any of those is
 * set — each conversation's too (a conversation limit alone stays on this machine, so a member
 * who set only that never waits on the team database).
 */
export function teamCounted(limits: Limit[]): Limit[] {
  if (!limits.some((limit) => SHARED_SCOPES.includes(limit.scope))) return [];
  return limits.filter((limit) => limit.scope === 'conversation' || SHARED_SCOPES.includes(limit.scope));
}

/** The policy key of a limit, e.g. daily_usd. */
export function budgetKey(scope: BudgetScope, unit: BudgetUnit): keyof BudgetPolicy {
  return LIMIT_KEYS.find((entry) => entry.scope === scope && entry.unit === unit)!.key;
}

/**
 * The team's budgets (SPEC 5a): limits counted in the team database across every machine,
 * held by a reservation taken atomically before each call and settled by the call's usage
 * record. Any error means the database could not be asked.
 */
export interface SharedBudget {
  reserve(conversationId: string, estimate: Spending, limits: Limit[]): Promise<SharedReservation>;
}

export type SharedReservation =
  | { granted: true; id: string; standings: Array<{ limit: Limit; committed: number }> }
  /** `committed`: what the limit's scope had committed before this call. */
  | { granted: false; limit: Limit; committed: number };

export interface BudgetGuardOptions {
  /** Read at each check: an edited policy applies to the next call. */
  policy: () => BudgetPolicy | undefined;
  ledger?: SpendingLedger;
  /** The team database's budgets, when a team is configured (read at each check). */
  shared?: () => SharedBudget | undefined;
  now: () => number;
}

type Emit = (body: Extract<AgentEventBody, { type: 'budget' }>) => void;

export class BudgetGuard {
  /** Spending per scope and period (see keyOf), read from the ledger once, then added to. */
  private readonly spending = new Map<string, Promise<Spending> | Spending>();
  /** Limits already announced (warning or exceeded), so each is told once. */
  private readonly announced = new Set<string>();

  constructor(private readonly options: BudgetGuardOptions) {}

  /** Whether any limit is set (callers skip estimating otherwise). */
  get active(): boolean {
    return budgetLimits(this.options.policy()).length > 0;
  }

  /**
   * Before a model call: throws BudgetExceededError (after emitting a `budget` event) when the
   * policy blocks and what was spent plus the call's estimate passes a limit. With a team, the
   * team's, the member's and this conversation's limits are checked by a reservation in the
   * team database that holds the estimate plus `allowance` (the answer's tokens, not known yet);
   * its id is returned, for the call's usage record to settle.
   */
  async beforeCall(
    conversationId: string,
    estimate: Spending,
    emit: Emit,
    allowance: Spending = { usd: 0, tokens: 0 },
  ): Promise<string | undefined> {
    const policy = this.options.policy();
    const limits = budgetLimits(policy);
    if (limits.length === 0) return undefined;
    const action = policy?.on_exceeded ?? 'block';
    const shared = this.options.shared?.();
    const byTeam = shared ? teamCounted(limits) : [];
    // Without a team database nothing can count the team's or a member's spending.
    let local = limits.filter((limit) => !SHARED_SCOPES.includes(limit.scope) && !byTeam.includes(limit));
    let reservation: string | undefined;
    if (shared && byTeam.length > 0) {
      const held = { usd: estimate.usd + allowance.usd, tokens: estimate.tokens + allowance.tokens };
      try {
        reservation = await this.reserve(shared, conversationId, held, byTeam, action, emit);
      } catch (error) {
        if (error instanceof BudgetExceededError) throw error;
        if ((policy?.on_unreachable ?? 'block') === 'block')
          throw new BudgetExceededError(
            `Stopped: the team database could not be asked about the team's budgets (${error instanceof Error ? error.message : String(error)}), and the policy says budget.on_unreachable: block. Try again when it is back.`,
          );
        // Going on without it: this conversation's own limits are still checked here.
        local = local.concat(byTeam.filter((limit) => limit.scope === 'conversation'));
      }
    }
    for (const limit of local) {
      const spent = (await this.load(limit.scope as LocalScope, conversationId))[limit.unit];
      const projected = spent + estimate[limit.unit];
      if (projected <= limit.value && spent < limit.value) continue;
      if (action === 'block') {
        emit(budgetEvent(limit, spent, 'exceeded', action));
        throw new BudgetExceededError(blockedMessage(limit, spent, estimate[limit.unit]), limit.scope, limit.unit);
      }
      // Warn: once, when spending itself reaches the limit (not on an estimate).
      if (spent >= limit.value) this.announce(limit, conversationId, spent, 'exceeded', action, emit);
    }
    return reservation;
  }

  /** Takes the team reservation; a refusal blocks (or, under `warn`, is told and the call goes on unreserved). */
  private async reserve(
    shared: SharedBudget,
    conversationId: string,
    held: Spending,
    limits: Limit[],
    action: 'warn' | 'block',
    emit: Emit,
  ): Promise<string | undefined> {
    const result = await shared.reserve(conversationId, held, limits);
    if (!result.granted) {
      const { limit, committed } = result;
      if (action === 'block') {
        emit(budgetEvent(limit, committed, 'exceeded', action));
        throw new BudgetExceededError(blockedMessage(limit, committed, held[limit.unit]), limit.scope, limit.unit);
      }
      if (committed >= limit.value) this.announce(limit, conversationId, committed, 'exceeded', action, emit);
      return undefined;
    }
    for (const { limit, committed } of result.standings)
      if (committed >= limit.value * WARNING_FRACTION && committed <= limit.value)
        this.announce(limit, conversationId, committed, 'warning', action, emit);
    return result.id;
  }

  /** After a model call: adds what it cost and tells the user about limits it took past 80 % (or past 100 % when warning). */
  async afterCall(conversationId: string, cost: Spending, emit: Emit): Promise<void> {
    const scopes: LocalScope[] = ['conversation', 'daily', 'monthly'];
    await Promise.all(
      scopes.map(async (scope) => {
        const before = await this.load(scope, conversationId);
        this.spending.set(this.keyOf(scope, conversationId), {
          usd: before.usd + cost.usd,
          tokens: before.tokens + cost.tokens,
        });
      }),
    );
    const policy = this.options.policy();
    const action = policy?.on_exceeded ?? 'block';
    const limits = budgetLimits(policy);
    const byTeam = this.options.shared?.() ? teamCounted(limits) : [];
    for (const limit of limits) {
      // The team database counts these (a reservation's standings tell their warnings).
      if (SHARED_SCOPES.includes(limit.scope) || byTeam.includes(limit)) continue;
      const spent = (await this.load(limit.scope as LocalScope, conversationId))[limit.unit];
      // A block is told when it stops a call; a warning-only policy says so as the limit is reached.
      if (spent >= limit.value && action === 'warn')
        this.announce(limit, conversationId, spent, 'exceeded', action, emit);
      else if (spent >= limit.value * WARNING_FRACTION && spent < limit.value)
        this.announce(limit, conversationId, spent, 'warning', action, emit);
    }
  }

  /** What a scope has spent so far (for the UI and tests). */
  async spent(scope: LocalScope, conversationId: string): Promise<Spending> {
    return this.load(scope, conversationId);
  }

  /**
   * Forgets the cached day and month totals (a new conversation reads them again from the
   * ledger, with what other windows spent meanwhile) and lets limits be announced again.
   */
  refresh(): void {
    for (const key of [...this.spending.keys()]) if (!key.startsWith('conversation:')) this.spending.delete(key);
    this.announced.clear();
  }

  private announce(
    limit: Limit,
    conversationId: string,
    spent: number,
    level: 'warning' | 'exceeded',
    action: 'warn' | 'block',
    emit: Emit,
  ): void {
    const period = SHARED_SCOPES.includes(limit.scope)
      ? new Date(this.options.now()).toISOString().slice(0, limit.scope.endsWith('daily') ? 10 : 7)
      : this.keyOf(limit.scope as LocalScope, conversationId);
    const id = `${level}|${limit.key}|${limit.value}|${period}`;
    if (this.announced.has(id)) return;
    this.announced.add(id);
    emit(budgetEvent(limit, spent, level, action));
  }

  /** The cache key of a scope now: "conversation:{…}", "daily:{…}", "monthly:{…}". */
  private keyOf(scope: LocalScope, conversationId: string): string {
    return `${scope}:${JSON.stringify(spendingQuery(scope, conversationId, this.options.now()))}`;
  }

  private async load(scope: LocalScope, conversationId: string): Promise<Spending> {
    const key = this.keyOf(scope, conversationId);
    let entry = this.spending.get(key);
    if (!entry) {
      const query = spendingQuery(scope, conversationId, this.options.now());
      entry = (this.options.ledger?.spent(query) ?? Promise.resolve({ usd: 0, tokens: 0 })).catch(() => ({
        usd: 0,
        tokens: 0,
      }));
      this.spending.set(key, entry);
    }
    return entry;
  }
}

function budgetEvent(
  limit: Limit,
  spent: number,
  level: 'warning' | 'exceeded',
  action: 'warn' | 'block',
): Extract<AgentEventBody, { type: 'budget' }> {
  return { type: 'budget', scope: limit.scope, unit: limit.unit, spent, limit: limit.value, level, action };
}

/** "today's budget", "this conversation's token budget", … */
export function describeLimit(scope: BudgetScope, unit: BudgetUnit): string {
  const whose: Record<BudgetScope, string> = {
    conversation: "this conversation's",
    daily: "today's",
    monthly: "this month's",
    team_daily: "the team's daily",
    team_monthly: "the team's monthly",
    member_daily: 'your daily team',
    member_monthly: 'your monthly team',
  };
  return `${whose[scope]} ${unit === 'usd' ? 'budget' : 'token budget'}`;
}

export function formatAmount(unit: BudgetUnit, amount: number): string {
  return unit === 'usd'
    ? `$${amount.toFixed(amount < 1 ? 4 : 2)}`
    : `${Math.round(amount).toLocaleString('en-US')} tokens`;
}

/** What the user reads for a budget event. */
export function budgetMessage(event: Extract<AgentEventBody, { type: 'budget' }>): string {
  const what = describeLimit(event.scope, event.unit);
  const spent = formatAmount(event.unit, event.spent);
  const limit = formatAmount(event.unit, event.limit);
  if (event.level === 'warning') return `OpenAgent has used 80 % of ${what}: ${spent} of ${limit}.`;
  if (event.action === 'warn')
    return `OpenAgent has passed ${what} of ${limit} (${spent} spent). Your policy says warn, so it goes on.`;
  return event.spent >= event.limit
    ? `OpenAgent stopped: ${what} of ${limit} is used up (${spent} spent).`
    : `OpenAgent stopped: the next model call would pass ${what} of ${limit} (${spent} spent).`;
}

function blockedMessage(limit: Limit, spent: number, estimate: number): string {
  const what = describeLimit(limit.scope, limit.unit);
  const limitText = formatAmount(limit.unit, limit.value);
  return spent >= limit.value
    ? `Stopped: ${what} of ${limitText} is used up (${formatAmount(limit.unit, spent)} spent). Raise the limit (budget.${limit.key}) to go on.`
    : `Stopped: the next model call (about ${formatAmount(limit.unit, estimate)}) would pass ${what} of ${limitText} (${formatAmount(limit.unit, spent)} spent). Raise the limit (budget.${limit.key}) to go on.`;
}
