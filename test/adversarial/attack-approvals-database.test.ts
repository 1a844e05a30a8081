/**
 * Attacks on named approvals in the database (issue 37), by members with their own logins:
 * a request filed in another member's name, objects planted in the team schema where the
 * SECURITY DEFINER functions resolve names (a database upgraded from PostgreSQL 14 keeps
 * `CREATE ON SCHEMA public` for everyone), NOTIFY with a forged "approved", direct SQL.
 */
import assert from 'node:assert/strict';
import { Client } from 'pg';
import { waitForDecision } from '../../src/core/team/approval-wait';
import type { NewTeamApproval } from '../../src/core/team/team-approvals';
import { PgTeamApprovals } from '../../src/team/pg-team-approvals';
import { initTeamDatabase } from '../harness/postgres';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { uniqueId, useTeamDatabase } from '../unit/team/team-helpers';

describe('attack: named approvals in the database', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const database = useTeamDatabase();
  const urls: Record<string, string> = {};
  const opened: PgTeamApprovals[] = [];
  let bob: PgTeamApprovals;
  let alice: PgTeamApprovals;
  let mallory: PgTeamApprovals;
  const request = (fields: Partial<NewTeamApproval> = {}): NewTeamApproval => ({
    id: uniqueId('attack'),
    requester: 'bob@corp',
    conversationId: 'c',
    agentId: 'lead',
    tool: 'bash',
    arguments: { command: 'git push --force' },
    shown: '$ git push --force',
    matched: ['bash "git push*"'],
    approvers: ['alice@corp', 'team:leads'],
    timeoutMs: 60_000,
    ...fields,
  });
  /** Runs SQL as a member's own login, as psql would. */
  const asLogin = async <T>(name: string, work: (client: Client) => Promise<T>): Promise<T> => {
    const client = new Client({ connectionString: urls[name] });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };

  before(async () => {
    for (const name of ['bob', 'alice', 'carol', 'mallory']) urls[name] = (await database().member(name)).url;
    const open = (url: string) => {
      const approvals = new PgTeamApprovals(url);
      opened.push(approvals);
      return approvals;
    };
    bob = open(urls.bob!);
    alice = open(urls.alice!);
    mallory = open(urls.mallory!);
    const admin = open(database().server.url);
    await admin.setMember({ email: 'bob@corp', login: 'bob', groups: ['leads'] });
    await admin.setMember({ email: 'alice@corp', login: 'alice', groups: [] });
    await admin.setMember({ email: 'carol@corp', login: 'carol', groups: ['leads'] });
    // mallory is a login of the team, not in the directory.
  });
  after(async () => {
    for (const approvals of opened) await approvals.close();
  });

  it("files a request under the requesting login's own member, whatever e-mail it claims", async () => {
    // bob's agent says alice asks: the approvers would read "alice's agent wants to push".
    const { record } = await bob.request(request({ requester: 'alice@corp', approvers: ['carol@corp'] }));
    assert.equal(record.requester, 'bob@corp');
    // A login outside the directory cannot pass for a member either.
    await assert.rejects(
      mallory.request(request({ requester: 'alice@corp', approvers: ['carol@corp'] })),
      /is not the member of login|not .*alice@corp/,
    );
  });

  it('refuses a function planted in the team schema to decide as someone else (schema CREATE revoked)', async () => {
    // An upgraded database: everyone may create in public, as before PostgreSQL 15.
    await database().server.query('GRANT CREATE ON SCHEMA public TO PUBLIC');
    // The admin runs `openagent team init` again (after an upgrade, as the README says).
    await initTeamDatabase(database().server.url);
    const { record } = await bob.request(request());
    const planted = await asLogin('mallory', async (client) => {
      try {
        // An exact match for the guard's call (session_user is of type name) beats the real one.
        await client.query(`CREATE FUNCTION public.openagent_approver_of(text[], name) RETURNS text
          LANGUAGE sql AS $$ SELECT 'carol@corp'::text $$`);
        await client.query(`CREATE FUNCTION public.unnest(text[]) RETURNS SETOF text
          LANGUAGE sql AS $$ SELECT 'carol@corp'::text $$`);
        return true;
      } catch {
        return false;
      }
    });
    // mallory is no approver (not even in the directory): the planted function says she is carol.
    const decided = await mallory.decide(record.id, 'approve').then(
      (outcome) => outcome.record.state,
      (error: Error) => error.message,
    );
    assert.notEqual(decided, 'approved', `mallory approved as carol (planted: ${planted})`);
    assert.equal((await alice.get(record.id))?.state, 'pending');
  });

  it('re-reads the row on a forged NOTIFY "approved": the waiter is never told what the payload says', async () => {
    const { record } = await bob.request(request({ timeoutMs: 1_500 }));
    const waiting = waitForDecision(bob, record.id, { signal: new AbortController().signal, pollMs: 60_000 });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await asLogin('mallory', (client) =>
      client.query(`SELECT pg_notify('openagent_approvals', $1)`, [
        JSON.stringify({ id: record.id, state: 'approved', decided_by: 'alice@corp' }),
      ]),
    );
    const outcome = await waiting;
    assert.ok('record' in outcome);
    assert.equal(outcome.record.state, 'timed_out');
  });

  it("refuses the requester's own SQL: direct writes, crafted function calls, a search_path of its own", async () => {
    const { record } = await bob.request(request());
    const attempts = [
      `UPDATE approval_requests SET state = 'approved', decided_by = 'alice@corp' WHERE id = '${record.id}'`,
      `DELETE FROM approval_requests WHERE id = '${record.id}'`,
      `TRUNCATE approval_requests`,
      `INSERT INTO approval_requests (id, requester, requester_role, conversation_id, agent_id, tool, arguments, shown,
        approvers, deadline, state) VALUES ('forged', 'bob@corp', 'bob', 'c', 'lead', 'bash', '{}', 'x',
        '{alice@corp}', now() + interval '1 hour', 'approved')`,
      `UPDATE team_members SET db_role = 'bob' WHERE email = 'alice@corp'`,
      `SELECT openagent_decide_approval('${record.id}', true, 'self')`,
      `SET search_path = pg_temp, public; SELECT openagent_decide_approval('${record.id}', true, 'self')`,
      `SELECT openagent_request_approval('{"id":"past","requester":"bob@corp","conversation_id":"c","agent_id":"lead",
        "tool":"bash","shown":"x","approvers":["alice@corp"],"timeout_ms":-60000}'::jsonb)`,
    ];
    for (const sql of attempts)
      await asLogin('bob', async (client) => {
        await assert.rejects(client.query(sql), Error, sql);
      });
    assert.equal((await alice.get(record.id))?.state, 'pending');
    assert.equal((await alice.get('forged')) ?? 'none', 'none');
  });
});
