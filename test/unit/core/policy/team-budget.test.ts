import assert from 'node:assert/strict';
import {
  BudgetExceededError,
  BudgetGuard,
  type BudgetPolicy,
  type Limit,
  type SharedBudget,
  type SharedReservation,
  type Spending,
} from '../../../../src/core/policy/budget';

type BudgetEvent = Parameters<Parameters<BudgetGuard['beforeCall']>[2]>[0];

/** The guard's side of the team database: what it was asked, and what it answers. */
class RecordingBudget implements SharedBudget {
  readonly asked: Array<{ estimate: Spending; limits: Limit[] }> = [];
  constructor(private readonly answer: (limits: Limit[], estimate: Spending) => SharedReservation | Error) {}
  async reserve(_conversationId: string, estimate: Spending, limits: Limit[]): Promise<SharedReservation> {
    this.asked.push({ estimate, limits });
    const answer = this.answer(limits, estimate);
    if (answer instanceof Error) throw answer;
    return answer;
  }
}

function guard(policy: BudgetPolicy, shared?: SharedBudget, spent: Spending = { usd: 0, tokens: 0 }) {
  const events: BudgetEvent[] = [];
  const budget = new BudgetGuard({
    policy: () => policy,
    ledger: { spent: async () => spent },
    ...(shared ? { shared: () => shared } : {}),
    now: () => Date.parse('2026-11-26T12:00:00Z'),
  });
  return { budget, events, emit: (event: BudgetEvent) => void events.push(event) };
}

const ESTIMATE = { usd: 0.01, tokens: 1_000 };
const ALLOWANCE = { usd: 0.02, tokens: 2_000 };

describe('team budgets in the budget guard', () => {
  it('asks the team database for the team, member and conversation limits, holding the estimate plus the answer allowance', async () => {
    const shared = new RecordingBudget(() => ({ granted: true, id: 'r-1', standings: [] }));
    const { budget, emit } = guard(
      { team_daily_usd: 100, member_monthly_tokens: 1_000_000, per_conversation_usd: 2, daily_usd: 5 },
      shared,
    );
    const reservation = await budget.beforeCall('c1', ESTIMATE, emit, ALLOWANCE);
    assert.equal(reservation, 'r-1');
    assert.deepEqual(shared.asked[0]!.estimate, { usd: 0.03, tokens: 3_000 });
    assert.deepEqual(shared.asked[0]!.limits.map((limit) => limit.key).sort(), [
      'member_monthly_tokens',
      'per_conversation_usd',
      'team_daily_usd',
    ]);
  });

  it('a refused reservation stops the call under block, naming the team limit', async () => {
    const shared = new RecordingBudget((limits) => ({ granted: false, limit: limits[0]!, committed: 99.99 }));
    const { budget, events, emit } = guard({ team_daily_usd: 100 }, shared);
    await assert.rejects(budget.beforeCall('c1', ESTIMATE, emit, ALLOWANCE), (error: unknown) => {
      assert.ok(error instanceof BudgetExceededError);
      assert.match(error.message, /the team's daily budget of \$100\.00/);
      assert.match(error.message, /budget\.team_daily_usd/);
      return true;
    });
    assert.deepEqual(
      events.map((event) => [event.scope, event.level, event.action]),
      [['team_daily', 'exceeded', 'block']],
    );
  });

  it('under warn a refused reservation lets the call go on, told once', async () => {
    const shared = new RecordingBudget((limits) => ({ granted: false, limit: limits[0]!, committed: 120 }));
    const { budget, events, emit } = guard({ member_daily_usd: 100, on_exceeded: 'warn' }, shared);
    assert.equal(await budget.beforeCall('c1', ESTIMATE, emit, ALLOWANCE), undefined);
    assert.equal(await budget.beforeCall('c1', ESTIMATE, emit, ALLOWANCE), undefined);
    assert.deepEqual(
      events.map((event) => [event.scope, event.level]),
      [['member_daily', 'exceeded']],
    );
  });

  it('warns once when a reservation shows a team limit 80 % committed', async () => {
    const shared = new RecordingBudget((limits) => ({
      granted: true,
      id: 'r',
      standings: [{ limit: limits[0]!, committed: 85 }],
    }));
    const { budget, events, emit } = guard({ team_monthly_usd: 100 }, shared);
    await budget.beforeCall('c1', ESTIMATE, emit, ALLOWANCE);
    await budget.beforeCall('c2', ESTIMATE, emit, ALLOWANCE);
    assert.deepEqual(
      events.map((event) => [event.scope, event.level, event.spent]),
      [['team_monthly', 'warning', 85]],
    );
  });

  it('an unreachable database stops the call when on_unreachable is block (the default)', async () => {
    const shared = new RecordingBudget(() => new Error('connect ECONNREFUSED 127.0.0.1:5432'));
    const { budget, emit } = guard({ team_daily_usd: 100 }, shared);
    await assert.rejects(budget.beforeCall('c1', ESTIMATE, emit, ALLOWANCE), (error: unknown) => {
      assert.ok(error instanceof BudgetExceededError);
      assert.match(error.message, /team database could not be asked.*ECONNREFUSED.*on_unreachable: block/);
      return true;
    });
  });

  it('under on_unreachable: warn the call goes on, and this conversation’s limit is checked here meanwhile', async () => {
    const shared = new RecordingBudget(() => new Error('timeout'));
    const { budget, emit } = guard({ team_daily_usd: 100, per_conversation_usd: 1, on_unreachable: 'warn' }, shared, {
      usd: 0.995,
      tokens: 0,
    });
    await assert.rejects(budget.beforeCall('c1', ESTIMATE, emit, ALLOWANCE), /this conversation's budget/);
    const roomy = guard({ team_daily_usd: 100, per_conversation_usd: 5, on_unreachable: 'warn' }, shared);
    assert.equal(await roomy.budget.beforeCall('c1', ESTIMATE, roomy.emit, ALLOWANCE), undefined);
  });

  it('a conversation limit alone stays on this machine, so a database outage does not block it', async () => {
    const shared = new RecordingBudget(() => new Error('connect ECONNREFUSED'));
    const { budget, emit } = guard({ per_conversation_usd: 5 }, shared);
    assert.equal(await budget.beforeCall('c1', ESTIMATE, emit, ALLOWANCE), undefined);
    assert.equal(shared.asked.length, 0);
  });

  it('without a team database the team and member limits are not counted; this machine’s limits hold as before', async () => {
    const { budget, emit } = guard({ team_daily_usd: 0.001, daily_usd: 1 }, undefined, { usd: 0.995, tokens: 0 });
    await assert.rejects(budget.beforeCall('c1', ESTIMATE, emit), /today's budget of \$1\.00/);
    const free = guard({ team_daily_usd: 0.001 });
    assert.equal(await free.budget.beforeCall('c1', ESTIMATE, free.emit), undefined);
  });
});
