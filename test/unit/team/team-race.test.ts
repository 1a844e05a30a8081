/**
 * The race (issue 18): eight CLI processes, each a different member with its own login, store
 * and workspace, spend at once against one team budget that holds a third of what they ask
 * for. The team database must never let the total pass the limit by more than one call's
 * estimate, and must hold exactly the usage the members' own stores recorded.
 */
import assert from 'node:assert/strict';
import { TEST_TIMEOUT_MS } from '../../harness/patience';
import {
  compareIds,
  createMembers,
  databaseFigures,
  runMember,
  startFleetModel,
  storeFigures,
  sum,
  TEAM_BUDGET_BLOCK,
  type FleetModel,
} from './team-fleet';
import { useTeamDatabase } from './team-helpers';

const PROCESSES = 8;
/** Each run asks for this many think calls, plus its final answer. */
const THINKS = 9;
/** About a third of what the processes ask for (80 calls of about USD 0.015). */
const LIMIT_USD = 0.4;

describe('team budget race: 8 CLI processes as different members against one team budget', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const team = useTeamDatabase();
  let model: FleetModel | undefined;
  after(async () => {
    await model?.server.close();
  });

  it('never passes the limit by more than one call, and the database holds exactly what the stores recorded', async () => {
    const { server, admin } = team();
    await admin.setPolicy(`budget:\n  team_daily_usd: ${LIMIT_USD}\n  on_exceeded: block\n`, 'lead@example.com');
    const members = await createMembers(server, 'racer', PROCESSES);
    model = await startFleetModel();
    const fleet = model;

    const started = Date.now();
    const runs = await Promise.all(
      members.map(async (member) => {
        const run = await runMember(member, fleet, `think ${THINKS} times`);
        return { ...run, seconds: (Date.now() - started) / 1000 };
      }),
    );

    const blocked = runs.filter((run) => TEAM_BUDGET_BLOCK.test(run.stderr));
    for (const run of runs) {
      // Each run either finished its work or was stopped by the team budget, nothing else.
      if (TEAM_BUDGET_BLOCK.test(run.stderr)) assert.equal(run.code, 1, run.stderr);
      else assert.equal(run.code, 0, run.stderr);
      assert.doesNotMatch(run.stderr, /team database does not answer|could not open the team database/);
    }

    const stores = await Promise.all(members.map((member) => storeFigures(member.store)));
    const database = await databaseFigures(server);
    const [reservations] = await server.query(
      `SELECT count(*) AS total, count(*) FILTER (WHERE state = 'open') AS open, max(usd)::text AS largest FROM reservations`,
    );
    const [counter] = await server.query(
      `SELECT usd::text AS usd FROM budget_counters WHERE scope = 'team' AND period = to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD')`,
    );
    const [budgetAudit] = await server.query(
      `SELECT count(*) FILTER (WHERE data->>'level' = 'exceeded') AS exceeded FROM audit WHERE kind = 'budget'`,
    );

    const spent = database.costUsd;
    const largestEstimate = Number(reservations!.largest);
    const calls = database.usageIds.length;
    const figures = {
      processes: PROCESSES,
      'calls asked for': PROCESSES * (THINKS + 1),
      'calls made': calls,
      'calls blocked': blocked.length,
      'limit (USD)': LIMIT_USD,
      'asked for, about (USD)': round((spent / calls) * PROCESSES * (THINKS + 1)),
      'total spent (USD)': round(spent),
      'overspend (USD)': round(spent - LIMIT_USD),
      'largest estimate (USD)': round(largestEstimate),
      'allowed (USD)': round(LIMIT_USD + largestEstimate),
      'slowest run (s)': Math.max(...runs.map((run) => run.seconds)).toFixed(0),
    };
    console.log('\n      team budget race:');
    for (const [name, value] of Object.entries(figures)) console.log(`        ${name.padEnd(24)} ${value}`);

    // The budget held: at most one call's estimate (input estimate plus answer allowance) over.
    assert.ok(spent <= LIMIT_USD + largestEstimate, `spent ${spent} > ${LIMIT_USD} + ${largestEstimate}`);
    assert.ok(blocked.length > 0, 'no call was blocked');
    assert.ok(calls < PROCESSES * (THINKS + 1), 'every call was made');
    // Every blocked call is in the audit trail as a budget event.
    assert.equal(Number(budgetAudit!.exceeded), blocked.length);
    // Every reservation was settled by its usage, and the counter is what was really spent.
    assert.equal(Number(reservations!.open), 0);
    assert.equal(Number(reservations!.total), calls);
    assert.ok(Math.abs(Number(counter!.usd) - spent) < 1e-9, `counter ${counter!.usd} != spent ${spent}`);

    // Nothing lost, nothing duplicated: the database holds exactly what the stores recorded.
    for (const [index, figures] of stores.entries()) {
      assert.equal(figures.outbox, 0, `${members[index]!.name} left records in its outbox`);
      assert.equal(figures.usageIds.length, figures.calls);
    }
    assert.equal(database.duplicates, 0);
    assert.equal(calls, sum(stores.map((figures) => figures.calls)));
    assert.equal(calls, fleet.server.modelCalls.length);
    assert.ok(Math.abs(spent - sum(stores.map((figures) => figures.costUsd))) < 1e-9);
    const usage = compareIds(
      stores.flatMap((figures) => figures.usageIds),
      database.usageIds,
    );
    const audit = compareIds(
      stores.flatMap((figures) => figures.auditIds),
      database.auditIds,
    );
    assert.deepEqual(usage, { lost: [], extra: [] });
    assert.deepEqual(audit, { lost: [], extra: [] });
  });
});

function round(value: number): number {
  return Math.round(value * 10_000) / 10_000;
}
