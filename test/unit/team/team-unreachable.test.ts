import assert from 'node:assert/strict';
import * as net from 'node:net';
import { Client } from 'pg';
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

  it('survives its connection being reset mid-append (the socket error pg also emits on the client)', async () => {
    const { server, member } = team();
    const { url } = await member('cut_off');
    // A TCP relay in front of the server, as a proxy or NAT would be, that can reset connections.
    const sides: net.Socket[] = [];
    const relay = net.createServer((socket) => {
      const upstream = net.connect(server.port, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
      sides.push(socket);
    });
    await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
    const relayed = url.replace(`:${server.port}/`, `:${(relay.address() as net.AddressInfo).port}/`);
    const store = new PgTeamStore(relayed);
    const record = (id: string) => ({
      id,
      member: 'cut_off@example.com',
      conversationId: 'c',
      time: Date.now(),
      kind: 'tool_call' as const,
      data: {},
    });
    // The admin holds the audit table, so the member's append waits inside its transaction.
    const holder = new Client({ connectionString: server.url });
    await holder.connect();
    try {
      await holder.query('BEGIN');
      await holder.query('LOCK TABLE audit IN ACCESS EXCLUSIVE MODE');
      const append = store.append({ audit: [record(uniqueId('cut'))], usage: [] });
      // It fails while the test is busy elsewhere: checked below.
      append.catch(() => undefined);
      await waitUntil(async () => {
        const rows = await server.query(
          "SELECT pid FROM pg_stat_activity WHERE usename = 'cut_off' AND wait_event_type = 'Lock'",
        );
        return rows.length > 0;
      }, "the member's append waiting for the lock");
      // ECONNRESET while the connection is checked out of the pool, a query in flight.
      for (const side of sides) side.resetAndDestroy();
      await unreachable(append, passwordOf(url));
    } finally {
      await holder.query('ROLLBACK').catch(() => undefined);
      await holder.end();
    }
    // Still alive, and the pool opens a new connection.
    assert.deepEqual(await store.append({ audit: [record(uniqueId('after'))], usage: [] }), { audit: 1, usage: 0 });
    await store.close();
    relay.close();
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
