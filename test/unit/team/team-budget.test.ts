import assert from 'node:assert/strict';
import type { ReserveRequest, TeamLimit } from '../../../src/core/team/team-store';
import type { PgTeamStore } from '../../../src/team/pg-team-store';
import { TEST_TIMEOUT_MS, waitUntil } from '../../harness/patience';
import { limit, uniqueId, usageRecord, useTeamDatabase } from './team-helpers';

/** A time in a distinct UTC month per test, far from today, so tests never share counters. */
let yearIndex = 0;
function freshDay(): number {
  return Date.UTC(2040 + ++yearIndex, 2, 15, 12);
}

function request(fields: Partial<ReserveRequest> & Pick<ReserveRequest, 'limits' | 'time'>): ReserveRequest {
  return {
    id: uniqueId('call'),
    member: 'alice@example.com',
    conversationId: uniqueId('conversation'),
    estimate: { usd: 0.1, tokens: 100 },
    ttlMs: 60 * 60_000,
    ...fields,
  };
}

async function committed(store: PgTeamStore, teamLimit: TeamLimit, time: number, member = 'alice@example.com') {
  const [standing] = await store.standings({ member, limits: [teamLimit], time });
  return standing!.committed;
}

describe('team store on PostgreSQL: budgets that hold across machines', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const team = useTeamDatabase();

  it('never grants beyond a team limit when 50 calls from several pools reserve at once', async () => {
    const { member } = team();
    const stores = await Promise.all(
      ['racer_a', 'racer_b', 'racer_c', 'racer_d', 'racer_e'].map((name) => member(name)),
    );
    const time = freshDay();
    const teamDaily = limit('team', 'day', 'usd', 1);
    const memberMonthlyTokens = limit('member', 'month', 'tokens', 1_000_000);
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, index) =>
        stores[index % stores.length]!.store.reserve(
          request({
            member: `racer${index % 5}@example.com`,
            estimate: { usd: 0.07, tokens: 700 },
            limits: [teamDaily, memberMonthlyTokens],
            time,
          }),
        ),
      ),
    );
    const granted = results.filter((result) => result.granted).length;
    // 14 × 0.07 = 0.98 fits under 1; a 15th would pass it.
    assert.equal(granted, 14);
    for (const result of results) {
      if (result.granted) continue;
      assert.equal(result.limit.key, teamDaily.key);
      assert.ok(result.committed + 0.07 > 1, `refused at ${result.committed}`);
    }
    assert.equal(await committed(stores[0]!.store, teamDaily, time), 0.98);
  });

  it('reserves and settles at once from several pools without deadlocks or lost counts', async () => {
    const { member } = team();
    const stores = await Promise.all(['mixer_a', 'mixer_b', 'mixer_c', 'mixer_d'].map((name) => member(name)));
    const time = freshDay();
    const teamDaily = limit('team', 'day', 'usd', 1000);
    // Each call reserves 0.5 and settles at 0.25, while the others are reserving and settling.
    const calls = Array.from({ length: 40 }, (_, index) => async () => {
      const store = stores[index % stores.length]!.store;
      const call = request({
        member: `mixer${index % 3}@example.com`,
        conversationId: `mix-${index % 5}`,
        estimate: { usd: 0.5, tokens: 50 },
        limits: [teamDaily],
        time,
      });
      assert.equal((await store.reserve(call)).granted, true);
      const usage = usageRecord({
        id: call.id,
        member: call.member,
        conversationId: call.conversationId,
        costUsd: 0.25,
        time,
        reservationId: call.id,
      });
      // Sent twice by different pools, as an outbox retry racing its first attempt would.
      await Promise.all([
        store.append({ audit: [], usage: [usage] }),
        stores[(index + 1) % stores.length]!.store.append({ audit: [], usage: [usage] }),
      ]);
    });
    await Promise.all(calls.map((call) => call()));
    assert.equal(await committed(stores[0]!.store, teamDaily, time), 10);
    const rows = await stores[0]!.store.usage({ day: new Date(time).toISOString().slice(0, 10) });
    assert.equal(
      rows.reduce((sum, row) => sum + row.calls, 0),
      40,
    );
    assert.equal(
      rows.reduce((sum, row) => sum + row.costUsd, 0),
      10,
    );
  });

  it('checks member and conversation limits, and always holds the estimate on all five counters', async () => {
    const { admin } = team();
    const time = freshDay();
    const memberDailyTokens = limit('member', 'day', 'tokens', 1000);
    const conversationUsd = limit('conversation', 'total', 'usd', 0.25);
    const first = await admin.reserve(
      request({ estimate: { usd: 0.1, tokens: 600 }, limits: [memberDailyTokens], time }),
    );
    assert.equal(first.granted, true);
    assert.deepEqual(
      first.standings.map((standing) => standing.committed),
      [600],
    );
    const second = await admin.reserve(
      request({ estimate: { usd: 0.1, tokens: 600 }, limits: [memberDailyTokens], time }),
    );
    assert.ok(!second.granted);
    assert.equal(second.limit.key, memberDailyTokens.key);
    assert.equal(second.committed, 600);
    // Another member has a counter of their own.
    const bob = await admin.reserve(
      request({ member: 'bob@example.com', estimate: { usd: 0.1, tokens: 600 }, limits: [memberDailyTokens], time }),
    );
    assert.equal(bob.granted, true);
    // The team counters held both grants although no team limit was set.
    assert.equal(await committed(admin, limit('team', 'day', 'usd', 100), time), 0.2);
    assert.equal(await committed(admin, limit('team', 'month', 'tokens', 1e9), time), 1200);

    const conversationId = uniqueId('conversation');
    const inConversation = (usd: number) =>
      admin.reserve(request({ conversationId, estimate: { usd, tokens: 1 }, limits: [conversationUsd], time }));
    assert.equal((await inConversation(0.2)).granted, true);
    const over = await inConversation(0.1);
    assert.ok(!over.granted && over.limit.key === conversationUsd.key && over.committed === 0.2);
    assert.equal((await inConversation(0.05)).granted, true);
  });

  it('settles a reservation with the actual cost, once, however often the usage arrives', async () => {
    const { member } = team();
    const { store } = await member('settler');
    const time = freshDay();
    const teamDaily = limit('team', 'day', 'usd', 5);
    const call = request({
      member: 'settler@example.com',
      estimate: { usd: 0.5, tokens: 2000 },
      limits: [teamDaily],
      time,
    });
    assert.equal((await store.reserve(call)).granted, true);
    // The same call retried (its answer was lost) holds nothing more.
    const retried = await store.reserve(call);
    assert.ok(retried.granted);
    assert.equal(retried.standings[0]!.committed, 0.5);
    assert.equal(await committed(store, teamDaily, time, 'settler@example.com'), 0.5);

    const usage = usageRecord({
      id: call.id,
      member: 'settler@example.com',
      conversationId: call.conversationId,
      costUsd: 0.2,
      inputTokens: 300,
      outputTokens: 200,
      time: time + 1000,
      reservationId: call.id,
    });
    assert.deepEqual(await store.append({ audit: [], usage: [usage] }), { audit: 0, usage: 1 });
    assert.deepEqual(await store.append({ audit: [], usage: [usage] }), { audit: 0, usage: 0 });
    assert.equal(await committed(store, teamDaily, time, 'settler@example.com'), 0.2);
    assert.equal(await committed(store, limit('member', 'day', 'tokens', 1e9), time, 'settler@example.com'), 500);

    // Usage without a reservation just adds.
    await store.append({
      audit: [],
      usage: [usageRecord({ member: 'settler@example.com', conversationId: 'other', costUsd: 0.05, time })],
    });
    assert.equal(await committed(store, teamDaily, time, 'settler@example.com'), 0.25);
    const [row] = await store.usage({ day: new Date(time).toISOString().slice(0, 10), member: 'settler@example.com' });
    assert.deepEqual(row, {
      member: 'settler@example.com',
      calls: 2,
      inputTokens: 400,
      outputTokens: 250,
      costUsd: 0.25,
    });
  });

  it('releases a reservation whose process never settled it, and counts its late usage once', async () => {
    const { admin } = team();
    const time = freshDay();
    const teamDaily = limit('team', 'day', 'usd', 1);
    const stale = request({ estimate: { usd: 0.9, tokens: 1 }, limits: [teamDaily], time, ttlMs: 1 });
    assert.equal((await admin.reserve(stale)).granted, true);
    // Granted once the database's clock has passed the stale reservation's expiry.
    await waitUntil(
      async () =>
        (await admin.reserve(request({ estimate: { usd: 0.5, tokens: 1 }, limits: [teamDaily], time }))).granted,
      'the expired reservation to be released',
    );
    assert.equal(await committed(admin, teamDaily, time), 0.5);
    await admin.append({
      audit: [],
      usage: [
        usageRecord({
          id: stale.id,
          member: stale.member,
          conversationId: stale.conversationId,
          costUsd: 0.3,
          time,
          reservationId: stale.id,
        }),
      ],
    });
    assert.equal(await committed(admin, teamDaily, time), 0.8);
  });

  it('sums usage per member for a month', async () => {
    const { admin } = team();
    const time = Date.UTC(2039, 5, 10);
    await admin.append({
      audit: [],
      usage: [
        usageRecord({ member: 'a@example.com', conversationId: 'c', costUsd: 1.25, time }),
        usageRecord({ member: 'a@example.com', conversationId: 'c', costUsd: 0.75, time: time + 86_400_000 }),
        usageRecord({ member: 'b@example.com', conversationId: 'd', costUsd: 0.5, time }),
        usageRecord({ member: 'b@example.com', conversationId: 'd', costUsd: 9, time: Date.UTC(2039, 6, 1) }),
      ],
    });
    assert.deepEqual(await admin.usage({ month: '2039-06' }), [
      { member: 'a@example.com', calls: 2, inputTokens: 200, outputTokens: 100, costUsd: 2 },
      { member: 'b@example.com', calls: 1, inputTokens: 100, outputTokens: 50, costUsd: 0.5 },
    ]);
    assert.deepEqual(
      (await admin.usage({ month: '2039-07', member: 'b@example.com' })).map((row) => row.costUsd),
      [9],
    );
  });
});
