import assert from 'node:assert/strict';
import { Client } from 'pg';
import { TeamApprovalRefusedError, type NewTeamApproval } from '../../../src/core/team/team-approvals';
import { PgTeamApprovals } from '../../../src/team/pg-team-approvals';
import { TEST_TIMEOUT_MS } from '../../harness/patience';
import { uniqueId, useTeamDatabase } from './team-helpers';

/** Waits until `check` holds (a listener heard something), failing after a generous time. */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('team approvals on a real PostgreSQL: the database decides who decides', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const database = useTeamDatabase();
  let admin: PgTeamApprovals;
  let bob: PgTeamApprovals;
  let alice: PgTeamApprovals;
  let carol: PgTeamApprovals;
  let mallory: PgTeamApprovals;
  const urls: Record<string, string> = {};
  const opened: PgTeamApprovals[] = [];

  const open = (url: string) => {
    const approvals = new PgTeamApprovals(url);
    opened.push(approvals);
    return approvals;
  };
  const newRequest = (fields: Partial<NewTeamApproval> = {}): NewTeamApproval => ({
    id: uniqueId('approval'),
    requester: 'bob@corp',
    conversationId: 'conversation-1',
    agentId: 'lead',
    tool: 'bash',
    arguments: { command: 'git push --force' },
    shown: 'git push --force',
    lastUserMessage: 'ship it',
    matched: ['bash "git push*"'],
    approvers: ['alice@corp', 'team:leads'],
    timeoutMs: 60_000,
    ...fields,
  });

  before(async function () {
    this.timeout(TEST_TIMEOUT_MS);
    for (const name of ['bob', 'alice', 'carol', 'mallory']) urls[name] = (await database().member(name)).url;
    admin = open(database().server.url);
    bob = open(urls.bob!);
    alice = open(urls.alice!);
    carol = open(urls.carol!);
    mallory = open(urls.mallory!);
    await admin.setMember({ email: 'bob@corp', login: 'bob', groups: ['leads'] });
    await admin.setMember({ email: 'alice@corp', login: 'alice', groups: [] });
    await admin.setMember({ email: 'carol@corp', login: 'carol', groups: ['leads'] });
    // mallory is a login of the team, but not in the directory.
  });
  after(async () => {
    for (const approvals of opened) await approvals.close();
  });

  it('files a request with the deadline from the database clock and lists it for the named approvers only', async () => {
    const { record, unknown } = await bob.request(
      newRequest({ approvers: ['alice@corp', 'team:leads', 'nobody@corp'] }),
    );
    assert.deepEqual(unknown, ['nobody@corp']);
    assert.equal(record.state, 'pending');
    assert.ok(Math.abs(record.deadline - record.createdAt - 60_000) < 5, 'deadline = created + timeout');
    assert.ok((await alice.pendingForMe()).some((each) => each.id === record.id));
    assert.ok(
      (await carol.pendingForMe()).some((each) => each.id === record.id),
      'carol is in team:leads',
    );
    // bob is in team:leads too, but never sees (or decides) his own request.
    assert.ok(!(await bob.pendingForMe()).some((each) => each.id === record.id));
    assert.ok(!(await mallory.pendingForMe()).some((each) => each.id === record.id));
    assert.equal(record.lastUserMessage, 'ship it');
  });

  it("refuses the requester's own decision, through the function and through plain SQL", async () => {
    const { record } = await bob.request(newRequest());
    await assert.rejects(bob.decide(record.id, 'approve', 'me'), (error: Error) => {
      assert.ok(error instanceof TeamApprovalRefusedError);
      assert.match(error.message, /requester cannot decide its own/);
      return true;
    });
    const sql = new Client({ connectionString: urls.bob });
    await sql.connect();
    try {
      await assert.rejects(
        sql.query(`UPDATE approval_requests SET state = 'approved', decided_by = 'alice@corp' WHERE id = $1`, [
          record.id,
        ]),
        /permission denied/,
      );
      await assert.rejects(
        sql.query(
          `INSERT INTO approval_requests (id, requester, requester_role, conversation_id, agent_id, tool, arguments,
             shown, approvers, deadline, state, decided_by)
           VALUES ('forged', 'bob@corp', 'bob', 'c', 'lead', 'bash', '{}', 'x', '{alice@corp}',
             now() + interval '1 hour', 'approved', 'alice@corp')`,
        ),
        /permission denied/,
      );
    } finally {
      await sql.end();
    }
    assert.equal((await alice.get(record.id))?.state, 'pending');
  });

  it('refuses a forged decision row even from the owner, and keeps a decision final', async () => {
    const { record } = await bob.request(newRequest());
    // The owner bypasses grants and row security: the guard still holds.
    await assert.rejects(
      database().server.query(
        `INSERT INTO approval_requests (id, requester, requester_role, conversation_id, agent_id, tool, arguments,
           shown, approvers, deadline, state, decided_by)
         VALUES ('forged-2', 'bob@corp', 'bob', 'c', 'lead', 'bash', '{}', 'x', '{alice@corp}',
           now() + interval '1 hour', 'approved', 'alice@corp')`,
      ),
      /pending and undecided/,
    );
    await assert.rejects(
      database().server.query(`UPDATE approval_requests SET state = 'approved' WHERE id = $1`, [record.id]),
      /not a named approver/,
    );
    const decided = await alice.decide(record.id, 'deny', 'not on a Friday');
    assert.equal(decided.won, true);
    assert.equal(decided.record.state, 'denied');
    assert.equal(decided.record.decidedBy, 'alice@corp');
    assert.equal(decided.record.reason, 'not on a Friday');
    const again = await carol.decide(record.id, 'approve');
    assert.equal(again.won, false);
    assert.equal(again.record.state, 'denied');
    await assert.rejects(
      database().server.query(`UPDATE approval_requests SET reason = 'changed' WHERE id = $1`, [record.id]),
      /already decided/,
    );
    await assert.rejects(
      database().server.query(`DELETE FROM approval_requests WHERE id = $1`, [record.id]),
      /are kept/,
    );
  });

  it('refuses a login that is no named approver, and one not in the directory', async () => {
    const { record } = await bob.request(newRequest({ approvers: ['alice@corp'] }));
    await assert.rejects(carol.decide(record.id, 'approve'), /not a named approver/);
    await assert.rejects(mallory.decide(record.id, 'approve'), /not a named approver/);
    assert.equal((await alice.get(record.id))?.state, 'pending');
  });

  it('refuses a request nobody could decide, naming the unknown approvers', async () => {
    await assert.rejects(bob.request(newRequest({ approvers: ['ghost@corp', 'team:nobody'] })), (error: Error) => {
      assert.ok(error instanceof TeamApprovalRefusedError);
      assert.match(error.message, /no named approver can decide.*unknown: ghost@corp, team:nobody/);
      return true;
    });
    // Only bob himself is named: nobody else can decide.
    await assert.rejects(bob.request(newRequest({ approvers: ['bob@corp'] })), /no named approver can decide/);
  });

  it('lets exactly one of many concurrent decisions win', async () => {
    for (let round = 0; round < 5; round++) {
      const { record } = await bob.request(newRequest());
      const racers = [alice, carol, alice, carol, alice, carol];
      const results = await Promise.all(
        racers.map((racer, index) => racer.decide(record.id, index % 2 ? 'approve' : 'deny', `racer ${index}`)),
      );
      assert.equal(results.filter((result) => result.won).length, 1, `round ${round}`);
      const final = await alice.get(record.id);
      const winner = results.find((result) => result.won)!;
      assert.equal(final?.state, winner.record.state);
      assert.equal(final?.reason, winner.record.reason);
    }
  });

  it('times a request out by the database clock: no decision after the deadline', async () => {
    const { record } = await bob.request(newRequest({ timeoutMs: 300 }));
    await new Promise((resolve) => setTimeout(resolve, 600));
    const late = await alice.decide(record.id, 'approve');
    assert.equal(late.won, false);
    assert.equal(late.record.state, 'timed_out');
    const final = await bob.get(record.id);
    assert.equal(final?.state, 'timed_out');
    assert.equal(final?.decidedBy, undefined);
    assert.equal(final?.decidedAt, final?.deadline);
  });

  it('lets only the requester withdraw', async () => {
    const { record } = await bob.request(newRequest());
    await assert.rejects(alice.withdraw(record.id), /only the requester withdraws/);
    assert.equal(await bob.withdraw(record.id), true);
    assert.equal((await alice.get(record.id))?.state, 'withdrawn');
    assert.equal(await bob.withdraw(record.id), false);
  });

  it('announces new requests and decisions with NOTIFY', async () => {
    const heard: string[] = [];
    let listening = false;
    const stop = alice.watch((signal) => {
      if (signal.kind === 'listening') listening = true;
      if (signal.kind === 'changed') heard.push(`${signal.id}:${signal.state}`);
    });
    try {
      await until(() => listening, 'LISTEN');
      const { record } = await bob.request(newRequest());
      await until(() => heard.includes(`${record.id}:pending`), 'the new request');
      await carol.decide(record.id, 'approve', 'fine');
      await until(() => heard.includes(`${record.id}:approved`), 'the decision');
    } finally {
      stop();
    }
  });
});
