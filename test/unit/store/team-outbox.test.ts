import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { MIGRATIONS } from '../../../src/store/schema';
import { openStore, tempDir, WASM } from './store-helpers';

const team = { member: 'ada@example.com', repository: 'github.com/acme/app' };

const usage = (id: string, time: number, stamped = true) => ({
  id,
  conversationId: 'c1',
  provider: 'anthropic',
  model: 'claude-sonnet-4-5',
  inputTokens: 100,
  outputTokens: 10,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  costUsd: 0.5,
  time,
  reservationId: `r-${id}`,
  ...(stamped ? { team } : {}),
});

describe('the team outbox in the embedded store', () => {
  it('keeps stamped usage and audit records until the team has them, oldest first, across reopening', async () => {
    const directory = tempDir();
    const { store } = await openStore(directory);
    await store.recordUsage(usage('u1', 10));
    await store.recordUsage(usage('u-local', 5, false));
    await store.recordAudit({
      id: 'a1',
      conversationId: 'c1',
      time: 20,
      kind: 'tool_call',
      data: { tool: 'bash', input: { command: 'echo sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789' } },
      team,
    });
    await store.close();

    const { store: reopened } = await openStore(directory);
    const items = await reopened.teamOutbox(10);
    assert.deepEqual(
      items.map((item) => [item.key, item.kind]),
      [
        ['usage:u1', 'usage'],
        ['audit:a1', 'audit'],
      ],
    );
    assert.equal(items[0]!.record.team.member, 'ada@example.com');
    assert.equal((items[0]!.record as { reservationId?: string }).reservationId, 'r-u1');
    // What waits for the team is redacted like everything else the store keeps.
    assert.doesNotMatch(JSON.stringify(items), /sk-ant-api03-abcdef/);
    // A deleted conversation's records still reach the team: its audit trail keeps what happened.
    await reopened.deleteConversation('c1');
    assert.equal((await reopened.teamOutbox(10)).length, 2);
    await reopened.deliveredToTeam(['usage:u1']);
    assert.deepEqual(
      (await reopened.teamOutbox(10)).map((item) => item.key),
      ['audit:a1'],
    );
    await reopened.close();
    const { store: third } = await openStore(directory);
    assert.deepEqual(
      (await third.teamOutbox(10)).map((item) => item.key),
      ['audit:a1'],
    );
    assert.equal((await third.teamOutbox(0)).length, 0);
    await third.close();
  });

  it('keeps records the team refused, marked and no longer offered, across reopening', async () => {
    const directory = tempDir();
    const { store } = await openStore(directory);
    for (const [id, time] of [
      ['u1', 1],
      ['u2', 2],
      ['u3', 3],
    ] as const)
      await store.recordUsage(usage(id, time));
    await store.refusedByTeam(['usage:u2'], 'invalid input syntax for type json');
    assert.deepEqual(
      (await store.teamOutbox(10)).map((item) => item.key),
      ['usage:u1', 'usage:u3'],
    );
    assert.deepEqual(await store.teamRefused(), { count: 1, reason: 'invalid input syntax for type json' });
    await store.close();
    // Reopened twice: the marks are stored, not kept in memory.
    for (let round = 0; round < 2; round++) {
      const { store: reopened } = await openStore(directory);
      assert.deepEqual(
        (await reopened.teamOutbox(10)).map((item) => item.key),
        ['usage:u1', 'usage:u3'],
      );
      assert.equal((await reopened.teamRefused()).count, 1);
      assert.equal((await reopened.usageTotals()).calls, 3, 'the local record itself is kept');
      await reopened.close();
    }
  });

  it('a store written before the outbox existed (schema 1) gains it on opening, keeping what it held', async () => {
    const directory = tempDir();
    const SQL = await initSqlJs({ locateFile: () => WASM });
    const db = new SQL.Database();
    db.exec(`BEGIN; ${MIGRATIONS[0]}; PRAGMA user_version = 1; COMMIT;`);
    db.run("INSERT INTO usage VALUES ('old', 'c0', 'openai', 'gpt', 5, 5, 0, 0, 0.25, 1, '1970-01-01')");
    fs.writeFileSync(path.join(directory, 'store.sqlite'), db.export());
    db.close();
    const { store } = await openStore(directory);
    assert.equal((await store.usageTotals()).costUsd, 0.25);
    await store.recordUsage(usage('u2', 11));
    assert.deepEqual(
      (await store.teamOutbox(10)).map((item) => item.key),
      ['usage:u2'],
    );
    await store.close();
  });
});
