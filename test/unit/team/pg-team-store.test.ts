import assert from 'node:assert/strict';
import { Client, Pool } from 'pg';
import { initTeamSchema } from '../../../src/team/migrations';
import { TeamPermissionError } from '../../../src/team/connection';
import { TEST_TIMEOUT_MS } from '../../harness/patience';
import { uniqueId, useTeamDatabase } from './team-helpers';

/** Runs one statement as the login of `url`; resolves with the error it raised (or undefined). */
async function refusal(url: string, sql: string): Promise<{ code?: string; message: string } | undefined> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
    return undefined;
  } catch (error) {
    return error as { code?: string; message: string };
  } finally {
    await client.end();
  }
}

describe('team store on PostgreSQL: schema, policy, audit, memory', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const team = useTeamDatabase();

  it('migrates idempotently: a second init applies nothing and keeps the data', async () => {
    const { server, admin } = team();
    await admin.setPolicy('tools:\n  deny: [bash]\n', 'lead@example.com');
    const pool = new Pool({ connectionString: server.url, max: 1 });
    try {
      const again = await initTeamSchema(pool);
      assert.deepEqual(again.applied, []);
      assert.equal(again.fromVersion, again.toVersion);
      assert.equal(again.roleCreated, false);
      // Two admins at once: the advisory lock serialises them, neither fails.
      const other = new Pool({ connectionString: server.url, max: 1 });
      const both = await Promise.all([initTeamSchema(pool), initTeamSchema(other)]).finally(() => other.end());
      assert.deepEqual(
        both.map((report) => report.applied),
        [[], []],
      );
    } finally {
      await pool.end();
    }
    assert.equal((await admin.policy())?.text, 'tools:\n  deny: [bash]\n');
    await admin.ping();
  });

  it('keeps every policy version with who set it and when; members read but cannot set it', async () => {
    const { admin, member } = team();
    const before = Date.now();
    const first = await admin.setPolicy('budget:\n  team_daily_usd: 50\n', 'lead@example.com');
    const second = await admin.setPolicy('budget:\n  team_daily_usd: 40\n', 'cto@example.com');
    assert.ok(second.version > first.version);
    assert.equal(second.changedBy, 'cto@example.com');
    // The database's clock: within a generous window around the call.
    assert.ok(Math.abs(second.changedAt - before) < 10 * 60_000);
    const { store } = await member('policy_reader');
    const newest = await store.policy();
    assert.deepEqual(newest, second);
    const history = await store.policyHistory(10);
    assert.deepEqual(
      history.slice(0, 2).map((version) => [version.version, version.changedBy]),
      [
        [second.version, 'cto@example.com'],
        [first.version, 'lead@example.com'],
      ],
    );
    await assert.rejects(store.setPolicy('tools: {}\n', 'policy_reader@example.com'), (error: Error) => {
      assert.ok(error instanceof TeamPermissionError, String(error));
      assert.match(error.message, /permission denied for table team_policy/);
      return true;
    });
    assert.equal((await store.policy())?.version, second.version);
  });

  it('lets a member append audit rows but the database refuses to change or delete them', async () => {
    const { member } = team();
    const { url, store } = await member('auditor');
    const id = uniqueId('audit');
    const record = {
      id,
      member: 'auditor@example.com',
      repository: 'github.com/acme/app',
      conversationId: 'c-1',
      time: Date.now(),
      kind: 'tool_call' as const,
      data: { tool: 'bash', command: 'npm test', note: 'a "quoted", multi\nline value' },
    };
    assert.deepEqual(await store.append({ audit: [record], usage: [] }), { audit: 1, usage: 0 });
    // The same batch sent again (an outbox retry) is not duplicated.
    assert.deepEqual(await store.append({ audit: [record], usage: [] }), { audit: 0, usage: 0 });

    for (const sql of [
      `UPDATE audit SET data = '{}' WHERE id = '${id}'`,
      `DELETE FROM audit WHERE id = '${id}'`,
      'TRUNCATE audit',
    ]) {
      const error = await refusal(url, sql);
      assert.ok(error, `${sql} was accepted`);
      assert.equal(error.code, '42501', `${sql}: ${error.message}`);
    }
    // Pretending to be another login is refused by row-level security.
    const forged = await refusal(
      url,
      `INSERT INTO audit (id, member, conversation_id, time, kind, data, db_role)
       VALUES ('${uniqueId('forged')}', 'x', 'c', now(), 'tool_call', '{}', 'someone_else')`,
    );
    assert.ok(forged, 'a forged db_role was accepted');
    assert.equal(forged.code, '42501');
    assert.match(forged.message, /row-level security/);
    // Usage and counters are written only through the database's functions.
    for (const sql of [
      'UPDATE usage SET cost_usd = 0',
      'UPDATE budget_counters SET usd = 0',
      'DELETE FROM reservations',
    ]) {
      const error = await refusal(url, sql);
      assert.equal(error?.code, '42501', sql);
    }

    const [stored] = await store.audit({ since: record.time, limit: 10 });
    assert.deepEqual(stored, record);
  });

  it('refuses even the owner to rewrite the audit trail (the trigger)', async () => {
    const { server, admin } = team();
    const id = uniqueId('owned');
    await admin.append({
      audit: [{ id, member: 'lead@example.com', conversationId: 'c', time: Date.now(), kind: 'policy', data: {} }],
      usage: [],
    });
    const error = await refusal(server.url, `DELETE FROM audit WHERE id = '${id}'`);
    assert.match(error?.message ?? '', /append-only: DELETE is refused/);
  });

  it('pages the audit trail by (time, id), oldest first, from `since`', async () => {
    const { member } = team();
    const { store } = await member('pager');
    const base = Date.UTC(2031, 0, 1);
    const records = Array.from({ length: 7 }, (_, index) => ({
      id: `page-${index}`,
      member: 'pager@example.com',
      conversationId: 'c',
      // Pairs share a time: the id orders them.
      time: base + Math.floor(index / 2) * 1000,
      kind: 'model_call' as const,
      data: { index },
    }));
    await store.append({ audit: [...records].reverse(), usage: [] });
    const seen: string[] = [];
    let after: { time: number; id: string } | undefined;
    for (;;) {
      const page = await store.audit({ since: base, limit: 3, after });
      if (page.length === 0) break;
      seen.push(...page.map((record) => record.id));
      after = { time: page.at(-1)!.time, id: page.at(-1)!.id };
    }
    assert.deepEqual(
      seen,
      records.map((record) => record.id),
    );
    assert.equal((await store.audit({ since: base + 3000, limit: 10 })).length, 1);
  });

  it('searches team memory by words, showing the team, this repository and the member own notes only', async () => {
    const { member } = team();
    const { store: alice } = await member('alice');
    const { store: bob } = await member('bob');
    const repo = 'github.com/acme/app';
    await alice.remember({
      scope: 'team',
      member: 'alice@example.com',
      text: 'Deployments go through the staging cluster first.',
    });
    await alice.remember({
      scope: 'repository',
      repository: repo,
      member: 'alice@example.com',
      text: 'This repository deploys with the blue-green script.',
    });
    await alice.remember({
      scope: 'repository',
      repository: 'github.com/acme/other',
      member: 'alice@example.com',
      text: 'The other repository deploys by hand.',
    });
    await bob.remember({ scope: 'member', member: 'bob@example.com', text: 'I deploy on Fridays, sadly.' });
    await alice.remember({
      scope: 'member',
      member: 'alice@example.com',
      text: 'My deployment checklist lives in notes.md.',
    });

    const found = await alice.searchMemory({
      text: 'deploy',
      identity: { member: 'alice@example.com', repository: repo },
      limit: 10,
    });
    const texts = found.map((note) => note.text).sort();
    assert.deepEqual(texts, [
      'Deployments go through the staging cluster first.',
      'My deployment checklist lives in notes.md.',
      'This repository deploys with the blue-green script.',
    ]);
    const teamOnly = await alice.searchMemory({
      text: 'deploy',
      identity: { member: 'alice@example.com', repository: repo },
      scopes: ['team'],
      limit: 10,
    });
    assert.deepEqual(
      teamOnly.map((note) => note.scope),
      ['team'],
    );
    const bobs = await bob.searchMemory({
      text: '"deploy on fridays" OR staging',
      identity: { member: 'bob@example.com' },
      limit: 10,
    });
    assert.deepEqual(bobs.map((note) => note.text).sort(), [
      'Deployments go through the staging cluster first.',
      'I deploy on Fridays, sadly.',
    ]);
    assert.deepEqual(
      await bob.searchMemory({ text: 'kubernetes', identity: { member: 'bob@example.com' }, limit: 10 }),
      [],
    );
  });
});
