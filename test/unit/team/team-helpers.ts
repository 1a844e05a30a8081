/** What the team store tests share: one throwaway PostgreSQL per file, the schema, members. */
import type { TeamLimit, TeamUsage } from '../../../src/core/team/team-store';
import { PgTeamStore } from '../../../src/team/pg-team-store';
import { initTeamDatabase, requirePostgres, startPostgres, type PostgresServer } from '../../harness/postgres';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

export interface TeamDatabase {
  server: PostgresServer;
  /** A store as the admin. */
  admin: PgTeamStore;
  /** A store logged in as a new member role (closed after the file's tests). */
  member(name: string): Promise<{ url: string; store: PgTeamStore }>;
}

/**
 * Starts a server before the file's tests (with the team schema in it) and stops it after.
 * Without PostgreSQL installed: fails under CI, skips loudly elsewhere.
 */
export function useTeamDatabase(): () => TeamDatabase {
  let database: TeamDatabase | undefined;
  const stores: PgTeamStore[] = [];
  before(async function () {
    this.timeout(TEST_TIMEOUT_MS);
    requirePostgres(this);
    const server = await startPostgres();
    await initTeamDatabase(server.url);
    const admin = new PgTeamStore(server.url);
    stores.push(admin);
    database = {
      server,
      admin,
      async member(name) {
        const url = await server.createMember(name);
        const store = new PgTeamStore(url);
        stores.push(store);
        return { url, store };
      },
    };
  });
  after(async function () {
    this.timeout(TEST_TIMEOUT_MS);
    for (const store of stores) await store.close().catch(() => undefined);
    await database?.server.dispose();
  });
  return () => {
    if (!database) throw new Error('The team database was not started.');
    return database;
  };
}

export function limit(
  scope: TeamLimit['scope'],
  period: TeamLimit['period'],
  unit: TeamLimit['unit'],
  value: number,
): TeamLimit {
  return { scope, period, unit, value, key: `${scope}_${period}_${unit}` };
}

let sequence = 0;
/** A unique id for a test's records. */
export function uniqueId(prefix: string): string {
  return `${prefix}-${process.pid}-${++sequence}-${Math.random().toString(36).slice(2, 8)}`;
}

export function usageRecord(
  fields: Partial<TeamUsage> & Pick<TeamUsage, 'member' | 'conversationId' | 'costUsd' | 'time'>,
): TeamUsage {
  return {
    id: uniqueId('usage'),
    provider: 'anthropic',
    model: 'claude-sonnet-4-6',
    inputTokens: 100,
    outputTokens: 50,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    ...fields,
  };
}
