/**
 * Faults (issue 18): the team database stopped between runs and killed mid-run, then started
 * again. Budgets follow `on_unreachable` (block: calls refused with a clear message; warn: work
 * goes on), and once the database is back the outboxes drain — in the same process or a later
 * run — so it holds exactly the usage and audit records the members' stores hold: none lost,
 * none twice. (A member's UPDATE or DELETE of audit rows is refused by the database itself:
 * pg-team-store.test.ts.)
 */
import assert from 'node:assert/strict';
import { TEST_TIMEOUT_MS, waitUntil } from '../../harness/patience';
import {
  compareIds,
  createMembers,
  databaseFigures,
  runMember,
  startFleetModel,
  startMember,
  storeFigures,
  sum,
  UNREACHABLE_BLOCK,
  type FleetModel,
  type Member,
} from './team-fleet';
import { useTeamDatabase } from './team-helpers';

const UNREACHABLE_WARNING = /openagent: the team database does not answer \(.*is unreachable.*\); working on locally/;

function policy(onUnreachable: 'block' | 'warn'): string {
  return `budget:\n  team_daily_usd: 100\n  on_exceeded: block\n  on_unreachable: ${onUnreachable}\n`;
}

describe('team database faults: stopped, killed mid-run and restarted under CLI processes', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const team = useTeamDatabase();
  let model: FleetModel;
  let members: Member[];
  before(async function () {
    this.timeout(TEST_TIMEOUT_MS);
    model = await startFleetModel();
    members = await createMembers(team().server, 'faulty', 4);
  });
  after(async () => {
    await model?.server.close();
  });

  it('with on_unreachable: block, refuses every call while the database is stopped, with the reason', async () => {
    const { server, admin } = team();
    await admin.setPolicy(policy('block'), 'lead@example.com');
    // A first run while it is up: the team policy is read (and kept for when it is away).
    const first = await Promise.all(members.map((member) => runMember(member, model, 'think 1 times')));
    for (const run of first) assert.equal(run.code, 0, run.stderr);

    await server.stop();
    try {
      const before = model.server.modelCalls.length;
      const refused = await Promise.all(members.map((member) => runMember(member, model, 'think 1 times')));
      for (const run of refused) {
        assert.equal(run.code, 1, run.stderr);
        assert.match(run.stderr, UNREACHABLE_BLOCK);
        assert.match(run.stderr, /Try again when it is back\./);
        assert.doesNotMatch(run.stderr, new RegExp(server.adminPassword));
      }
      assert.equal(
        model.server.modelCalls.length,
        before,
        'a model call was made while the budget could not be checked',
      );
      console.log(`\n      on_unreachable: block — ${refused.length} runs refused before any model call while stopped`);
    } finally {
      await server.start();
    }
  });

  it('with on_unreachable: warn, works on through a crash; the outboxes drain after the restart, nothing lost or twice', async () => {
    const { server, admin } = team();
    await admin.setPolicy(policy('warn'), 'lead@example.com');
    const [usageBefore] = await server.query('SELECT count(*) AS n FROM usage');
    // Every member works until released; their records reach the database while it is up.
    const running = members.map((member) => startMember(member, model, 'think until stopped'));
    const exited: boolean[] = members.map(() => false);
    running.forEach((run, index) => void run.finished.then(() => (exited[index] = true)));
    const delivered = async (member: Member) =>
      Number((await server.query('SELECT count(*) AS n FROM usage WHERE member = $1', [member.email]))[0]!.n);
    const baseline = await Promise.all(members.map(delivered));
    await waitUntil(
      async () => (await Promise.all(members.map(delivered))).every((count, index) => count >= baseline[index]! + 2),
      () => `two usage records of every member in the database (${running.map((run) => run.stderr).join('\n')})`,
    );

    // A crash: clients are cut off mid-call.
    await server.kill();
    const down = Date.now();
    // Work goes on: every member makes more model calls while the database is away.
    await waitUntil(
      () => members.every((member) => model.callsOf(member, down) >= 3) || exited.some(Boolean),
      'three model calls of every member while the database is down',
    );
    assert.deepEqual(exited, [false, false, false, false], running.map((run) => run.stderr).join('\n'));
    // Two members finish while it is still down: their records wait in their outboxes.
    const early = members.slice(0, 2);
    for (const member of early) model.release(member);
    const earlyRuns = await Promise.all(running.slice(0, 2).map((run) => run.finished));
    const waiting = await Promise.all(early.map((member) => storeFigures(member.store)));

    await server.start();
    const up = Date.now();
    // The other two go on after the restart and send what waited, in the same process.
    const late = members.slice(2);
    await waitUntil(
      () => late.every((member) => model.callsOf(member, up) >= 2),
      'two model calls of the remaining members after the restart',
    );
    for (const member of late) model.release(member);
    const lateRuns = await Promise.all(running.slice(2).map((run) => run.finished));
    for (const run of [...earlyRuns, ...lateRuns]) {
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stdout, /Thought \d+ times\./);
      assert.match(run.stderr, UNREACHABLE_WARNING);
    }
    const lateFigures = await Promise.all(late.map((member) => storeFigures(member.store)));
    for (const figures of lateFigures) assert.equal(figures.outbox, 0, 'the same process did not send its outbox');
    for (const figures of waiting) assert.ok(figures.outbox > 0, 'a member that ended while down has no outbox');
    // A later run of the members that ended while it was down sends what they kept.
    const later = await Promise.all(early.map((member) => runMember(member, model, 'think 1 times')));
    for (const run of later) assert.equal(run.code, 0, run.stderr);

    const stores = await Promise.all(members.map((member) => storeFigures(member.store)));
    const database = await databaseFigures(server);
    for (const figures of stores) {
      assert.equal(figures.outbox, 0);
      assert.equal(figures.usageIds.length, figures.calls);
    }
    const usage = compareIds(
      stores.flatMap((figures) => figures.usageIds),
      database.usageIds,
    );
    const audit = compareIds(
      stores.flatMap((figures) => figures.auditIds),
      database.auditIds,
    );
    const whileDown = stores
      .flatMap((figures) => figures.records)
      .filter((record) => record.time >= down && record.time < up);
    const inDatabase = new Set([...database.usageIds, ...database.auditIds]);
    const counts = {
      'usage rows before this test': Number(usageBefore!.n),
      'records written while down': whileDown.length,
      'delivered after restart': whileDown.filter((record) => inDatabase.has(record.id)).length,
      '  of which by a later run': sum(waiting.map((figures) => figures.outbox)),
      'usage rows: stores / db': `${sum(stores.map((figures) => figures.calls))} / ${database.usageIds.length}`,
      'audit rows: stores / db': `${stores.flatMap((figures) => figures.auditIds).length} / ${database.auditIds.length}`,
      duplicates: database.duplicates,
      lost: usage.lost.length + audit.lost.length,
    };
    console.log('\n      team database crash and restart (on_unreachable: warn):');
    for (const [name, value] of Object.entries(counts)) console.log(`        ${name.padEnd(30)} ${value}`);

    assert.ok(whileDown.length > 0, 'nothing was written while the database was down');
    assert.equal(counts['delivered after restart'], whileDown.length);
    assert.equal(database.duplicates, 0);
    assert.deepEqual(usage, { lost: [], extra: [] });
    assert.deepEqual(audit, { lost: [], extra: [] });
    assert.ok(Math.abs(database.costUsd - sum(stores.map((figures) => figures.costUsd))) < 1e-9);
    // No reservation is left holding budget: calls made while down took none, the others settled.
    const [open] = await server.query(`SELECT count(*) AS n FROM reservations WHERE state = 'open'`);
    assert.equal(Number(open!.n), 0);
  });
});
