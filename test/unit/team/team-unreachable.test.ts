import assert from 'node:assert/strict';
import { TeamUnreachableError } from '../../../src/core/team/team-store';
import { redactUrl } from '../../../src/team/connection';
import { PgTeamStore } from '../../../src/team/pg-team-store';
import { PATIENCE_MS, TEST_TIMEOUT_MS, waitUntil } from '../../harness/patience';
import { limit, uniqueId, useTeamDatabase } from './team-helpers';

function passwordOf(url: string): string {
  return decodeURIComponent(new URL(url).password);
}

/** The error `work` rejects with, checked to be the port's unreachable error without the password. */
async function unreachable(work: Promise<unknown>, password: string): Promise<TeamUnreachableError> {
  const error = await work.then(
    () => assert.fail('expected the team database to be unreachable'),
    (caught: unknown) => caught,
  );
  assert.ok(error instanceof TeamUnreachableError, `not a TeamUnreachableError: ${String(error)}`);
  assert.ok(!error.message.includes(password), `the password is in: ${error.message}`);
  return error;
}

describe('team store on PostgreSQL: when the database is away', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const team = useTeamDatabase();

  it('fails fast with TeamUnreachableError while the server is down, and recovers when it is back', async () => {
    const { server, member } = team();
    const { url, store } = await member('traveller');
    const password = passwordOf(url);
    await store.ping();
    const call = () =>
      store.reserve({
        id: uniqueId('call'),
        member: 'traveller@example.com',
        conversationId: 'c',
        estimate: { usd: 0.01, tokens: 10 },
        limits: [limit('team', 'day', 'usd', 100)],
        time: Date.now(),
        ttlMs: 60_000,
      });
    assert.equal((await call()).granted, true);

    await server.stop();
    try {
      // "Fast" is a deadline far below the patience, not a speed: a hang would hit the test's timeout.
      const started = Date.now();
      const pinged = await unreachable(store.ping(), password);
      assert.match(pinged.message, /traveller@127\.0\.0\.1:\d+\/openagent_team is unreachable/);
      await unreachable(call(), password);
      await unreachable(
        store.append({
          audit: [
            {
              id: uniqueId('a'),
              member: 'traveller@example.com',
              conversationId: 'c',
              time: Date.now(),
              kind: 'budget',
              data: {},
            },
          ],
          usage: [],
        }),
        password,
      );
      assert.ok(Date.now() - started < PATIENCE_MS / 2, `took ${Date.now() - started} ms`);
    } finally {
      await server.start();
    }
    // The pool drops the dead connections and opens new ones.
    await store.ping();
    assert.equal((await call()).granted, true);
  });

  it('reports an immediate shutdown (a crash) and a restart the same way', async () => {
    const { server, member } = team();
    const { url, store } = await member('crasher');
    await store.ping();
    await server.kill();
    try {
      await unreachable(store.policy(), passwordOf(url));
    } finally {
      await server.start();
    }
    await waitUntil(
      () =>
        store.ping().then(
          () => true,
          () => false,
        ),
      'the store to answer again after the crash',
    );
    await server.restart();
    await waitUntil(
      () =>
        store.ping().then(
          () => true,
          () => false,
        ),
      'the store to answer again after the restart',
    );
  });

  it('says a wrong password or a missing schema without revealing the password', async () => {
    const { server } = team();
    const wrong = 'not-the-right-one-5e3f';
    const wrongUrl = server.url.replace(`:${server.adminPassword}@`, `:${wrong}@`);
    const store = new PgTeamStore(wrongUrl);
    try {
      const error = await unreachable(store.ping(), wrong);
      assert.match(error.message, /refused the connection: password authentication failed/);
    } finally {
      await store.close();
    }
    const empty = new PgTeamStore(server.url.replace(/\/openagent_team$/, '/postgres'));
    try {
      const error = await unreachable(empty.ping(), server.adminPassword);
      assert.match(error.message, /no team schema: run `openagent team init`/);
    } finally {
      await empty.close();
    }
    const nowhere = new PgTeamStore(`postgres://someone:${wrong}@127.0.0.1:1/nothing`);
    try {
      await unreachable(nowhere.ping(), wrong);
    } finally {
      await nowhere.close();
    }
    assert.equal(
      redactUrl('postgres://alice:s%40cret@db.example.com:5432/team?sslmode=require'),
      'postgres://alice:***@db.example.com:5432/team?sslmode=require',
    );
  });
});
