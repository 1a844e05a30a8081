/**
 * The team plane between the embedded store and a real PostgreSQL: the team policy read and kept
 * for when the database is away, the outbox sent once, and sent later when it was away.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { randomUUID } from 'node:crypto';
import type { PolicyProblem } from '../../../src/core/policy/agent-policy';
import { BudgetExceededError, BudgetGuard } from '../../../src/core/policy/budget';
import { TeamPlane } from '../../../src/core/team/team-plane';
import { sendingToTeam } from '../../../src/kit/team-opener';
import { PgTeamStore } from '../../../src/team/pg-team-store';
import { TEST_TIMEOUT_MS, waitUntil } from '../../harness/patience';
import { openStore, tempDir } from '../store/store-helpers';
import { useTeamDatabase } from './team-helpers';

const team = { member: 'ada@example.com', repository: 'github.com/acme/app' };

function planeFor(url: string, directory: string, store: Awaited<ReturnType<typeof openStore>>['store']) {
  const problems: PolicyProblem[][] = [];
  const cacheFile = path.join(directory, 'team-policy.yaml');
  const plane = new TeamPlane({
    store: new PgTeamStore(url),
    identity: team,
    cache: {
      read: async () => (fs.existsSync(cacheFile) ? fs.readFileSync(cacheFile, 'utf8') : undefined),
      write: async (text) => fs.writeFileSync(cacheFile, text),
    },
    outbox: async () => store,
    now: () => Date.now(),
    newId: randomUUID,
    onPolicyMistakes: (found) => problems.push(found),
    retryMs: 200,
  });
  return { plane, problems };
}

const usage = (id: string, costUsd = 0.01) => ({
  id,
  conversationId: 'c1',
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  inputTokens: 1_000,
  outputTokens: 100,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd,
  time: Date.now(),
  team,
});

describe('the team plane on a real PostgreSQL', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const database = useTeamDatabase();

  it('reads the team policy, keeps it for when the database is away, and reports the database’s state', async () => {
    const { server, admin } = database();
    await admin.setPolicy('tools:\n  deny: [background_run]\nbudget:\n  team_daily_usd: 50\n', 'lead@example.com');
    const directory = tempDir();
    const { store } = await openStore(directory);
    const member = await server.createMember('policy_reader');
    const { plane } = planeFor(member, directory, store);
    await plane.refresh();
    assert.deepEqual(plane.policy()?.tools?.deny, ['background_run']);
    assert.equal(plane.status.state, 'connected');
    await plane.dispose();

    // The database away: a new window still follows the policy kept from last time.
    await server.stop();
    try {
      const { plane: offline } = planeFor(member, directory, store);
      await offline.refresh();
      assert.equal(offline.status.state, 'unreachable');
      assert.deepEqual(offline.policy()?.tools?.deny, ['background_run']);
      await offline.dispose();
    } finally {
      await server.start();
    }
    await store.close();
  });

  it('sends each stamped record once, and what was written while the database was away when it is back', async () => {
    const { server, admin } = database();
    const directory = tempDir();
    const { store: raw } = await openStore(directory);
    const member = await server.createMember('outbox_sender');
    const { plane } = planeFor(member, directory, raw);
    const store = sendingToTeam(raw, () => plane.kick());
    await store.recordUsage(usage('p-u1'));
    await store.recordAudit({ id: 'p-a1', conversationId: 'c1', time: Date.now(), kind: 'tool_call', data: {}, team });
    await waitUntil(async () => (await raw.teamOutbox(10)).length === 0, 'the outbox sent');
    assert.equal((await admin.usage({ member: team.member, day: new Date().toISOString().slice(0, 10) }))[0]?.calls, 1);

    await server.stop();
    try {
      for (let index = 0; index < 5; index++) {
        await store.recordUsage(usage(`p-down-${index}`));
        await store.recordAudit({
          id: `p-down-a${index}`,
          conversationId: 'c1',
          time: Date.now(),
          kind: 'model_call',
          data: { index },
          team,
        });
      }
      await waitUntil(() => plane.status.state === 'unreachable', 'the plane to notice the database is away');
      assert.equal((await raw.teamOutbox(100)).length, 10);
    } finally {
      await server.start();
    }
    // Back: the retry sends what waited, without being asked again.
    await waitUntil(async () => (await raw.teamOutbox(100)).length === 0, 'the outbox sent after the restart');
    await waitUntil(() => plane.status.state === 'connected', 'the plane connected again');
    const audit = await admin.audit({ since: 0, limit: 1_000 });
    const ids = audit.map((record) => record.id).filter((id) => id.startsWith('p-'));
    assert.equal(ids.length, 6);
    assert.equal(new Set(ids).size, 6);
    const [row] = await admin.usage({ member: team.member, day: new Date().toISOString().slice(0, 10) });
    assert.equal(row?.calls, 6);
    await plane.dispose();
    await raw.close();
  });

  it('sends what PostgreSQL cannot store as U+FFFD, and sets aside a record it refuses without holding back the rest', async () => {
    const { server, admin } = database();
    const directory = tempDir();
    const { store: raw } = await openStore(directory);
    const member = await server.createMember('poison_sender');
    const { plane } = planeFor(member, directory, raw);
    const store = sendingToTeam(raw, () => plane.kick());
    const now = Date.now();
    const audit = (id: string, data: Record<string, unknown>, time = now) =>
      store.recordAudit({ id, conversationId: 'c1', time, kind: 'tool_call', data, team });
    // A tool call's arguments may hold a NUL or a lone surrogate (a hostile file, a model's output).
    await audit('x-nul', { command: 'printf "a\u0000b"', ['key\u0000']: '\ud800' });
    // A time PostgreSQL cannot hold: refused for what it holds, every time it is sent.
    await audit('x-far', { command: 'ls' }, 8.64e15);
    for (let index = 0; index < 5; index++) await audit(`x-after-${index}`, { index });
    await waitUntil(async () => (await raw.teamOutbox(100)).length === 0, 'the outbox emptied');
    await waitUntil(() => plane.status.refused?.count === 1, 'the plane to report the refused record');
    assert.equal(plane.status.state, 'connected');
    assert.match(plane.status.refused!.reason, /timestamp|out of range|time/i);
    const sent = (await admin.audit({ since: 0, limit: 1_000 })).filter((record) => record.id.startsWith('x-'));
    assert.deepEqual(sent.map((record) => record.id).sort(), [
      'x-after-0',
      'x-after-1',
      'x-after-2',
      'x-after-3',
      'x-after-4',
      'x-nul',
    ]);
    assert.deepEqual(sent.find((record) => record.id === 'x-nul')?.data, {
      command: 'printf "a\ufffdb"',
      ['key\ufffd']: '\ufffd',
    });
    // Kept on this machine, exactly as it was, and not sent again.
    assert.equal((await raw.teamRefused()).count, 1);
    assert.equal((await raw.listAudit({ conversationId: 'c1' })).find((r) => r.id === 'x-far')?.time, 8.64e15);
    await plane.dispose();
    await raw.close();
  });

  it('sends, when disposed, what was written while a drain was under way (the CLI at exit)', async () => {
    const { server } = database();
    const directory = tempDir();
    const { store } = await openStore(directory);
    // The plane's view of the outbox tells when a drain has read it.
    let read: () => void = () => undefined;
    const firstRead = new Promise<void>((resolve) => (read = resolve));
    const watched = new Proxy(store, {
      get(target, property, receiver) {
        if (property === 'teamOutbox')
          return async (limit: number) => {
            const items = await target.teamOutbox(limit);
            read();
            return items;
          };
        return Reflect.get(target, property, receiver) as unknown;
      },
    });
    const plane = new TeamPlane({
      store: new PgTeamStore(await server.createMember('last_sender')),
      identity: team,
      cache: { read: async () => undefined, write: async () => undefined },
      outbox: async () => watched,
      now: () => Date.now(),
      newId: randomUUID,
      onPolicyMistakes: () => undefined,
    });
    await store.recordUsage(usage('last-u1'));
    plane.kick();
    await firstRead;
    // Written after the drain read the outbox, just before the run ends: the kick only asks for another drain.
    await store.recordUsage(usage('last-u2'));
    plane.kick();
    await plane.dispose();
    assert.deepEqual(await store.teamOutbox(10), []);
    const rows = await server.query("SELECT id FROM usage WHERE id LIKE 'last-%' ORDER BY id");
    assert.deepEqual(
      rows.map((found) => found.id),
      ['last-u1', 'last-u2'],
    );
    await store.close();
  });

  it('a guard with the team budget stops a call the team cannot afford, across members', async () => {
    const { server, admin } = database();
    await admin.setPolicy('budget:\n  team_monthly_usd: 1\n', 'lead@example.com');
    const directory = tempDir();
    const { store } = await openStore(directory);
    const member = await server.createMember('spender');
    const { plane } = planeFor(member, directory, store);
    await plane.refresh();
    const guard = new BudgetGuard({
      policy: () => plane.policy()?.budget,
      shared: () => plane.budget,
      now: () => Date.now(),
    });
    const events: unknown[] = [];
    const first = await guard.beforeCall('c-budget', { usd: 0.4, tokens: 10 }, (event) => events.push(event));
    assert.ok(first);
    await assert.rejects(
      guard.beforeCall('c-budget', { usd: 0.7, tokens: 10 }, (event) => events.push(event)),
      (error: unknown) => error instanceof BudgetExceededError && /the team's monthly budget/.test(error.message),
    );
    await plane.dispose();
    await store.close();
  });
});
