/**
 * The team store on PostgreSQL (SPEC 5a): the port's adapter over the schema of
 * team-schema.ts. Budget reservations and usage settlement run inside the database
 * (SECURITY DEFINER functions, one transaction each), so many editors and CLIs spending at
 * once see one set of counters and cannot overspend; audit rows are appended as the member
 * (row-level security checks who writes them). Every failure to reach the database is a
 * TeamUnreachableError, never a hang (see connection.ts for the timeouts).
 */
import { randomUUID } from 'node:crypto';
import type { Pool, PoolClient } from 'pg';
import type {
  ReserveRequest,
  ReserveResult,
  TeamAudit,
  TeamLimit,
  TeamMemoryScope,
  TeamNote,
  TeamPolicyVersion,
  TeamStanding,
  TeamStore,
  TeamUsage,
  TeamUsageRow,
} from '../core/team/team-store';
import { TeamRecordsRefusedError, TeamUnreachableError } from '../core/team/team-store';
import {
  classifyTeamError,
  createTeamPool,
  describeTarget,
  messageOf,
  secretsOf,
  withTeamErrors,
  type TeamPoolOptions,
} from './connection';
import { jsonForPostgres } from './pg-json';
import { LATEST_SCHEMA_VERSION } from './team-schema';
import { schemaVersion } from './migrations';

interface CounterKey {
  scope: string;
  subject: string;
  period: string;
}

export class PgTeamStore implements TeamStore {
  /** user@host:port/database, for messages (never the password). */
  readonly target: string;
  private readonly pool: Pool;
  private readonly secrets: string[];

  constructor(url: string, options: TeamPoolOptions = {}) {
    this.target = describeTarget(url);
    this.secrets = secretsOf(url);
    this.pool = createTeamPool(url, options);
  }

  async ping(): Promise<void> {
    const version = await this.schemaVersion();
    if (version === 0)
      throw new TeamUnreachableError(
        `The team database at ${this.target} has no team schema: run \`openagent team init\` as its admin.`,
      );
    if (version < LATEST_SCHEMA_VERSION)
      throw new TeamUnreachableError(
        `The team database at ${this.target} has schema version ${version}; this OpenAgent needs ${LATEST_SCHEMA_VERSION}: run \`openagent team init\` as its admin.`,
      );
  }

  /** The schema version the database is at (0: no team schema). */
  schemaVersion(): Promise<number> {
    return this.run(() => schemaVersion(this.pool));
  }

  policy(): Promise<TeamPolicyVersion | undefined> {
    return this.policyHistory(1).then((versions) => versions[0]);
  }

  setPolicy(text: string, changedBy: string): Promise<TeamPolicyVersion> {
    return this.run(async () => {
      const result = await this.pool.query<PolicyRow>(
        'INSERT INTO team_policy (text, changed_by) VALUES ($1, $2) RETURNING version, text, changed_by, changed_at',
        [text, changedBy],
      );
      return toPolicy(result.rows[0]!);
    });
  }

  policyHistory(limit: number): Promise<TeamPolicyVersion[]> {
    return this.run(async () => {
      const result = await this.pool.query<PolicyRow>(
        'SELECT version, text, changed_by, changed_at FROM team_policy ORDER BY version DESC LIMIT $1',
        [limit],
      );
      return result.rows.map(toPolicy);
    });
  }

  async reserve(request: ReserveRequest): Promise<ReserveResult> {
    const keys = request.limits.map((limit) => counterKey(limit, request.member, request.conversationId, request.time));
    const usd = amount(request.estimate.usd, 'estimate.usd');
    const tokens = Math.ceil(amount(request.estimate.tokens, 'estimate.tokens'));
    return this.run(async () => {
      const result = await this.pool.query<{ result: ReserveAnswer }>(
        'SELECT openagent_reserve($1, $2, $3, $4, $5, $6, $7, $8, $9) AS result',
        [
          request.id,
          request.member,
          request.conversationId,
          String(usd),
          tokens,
          utcDay(request.time),
          utcMonth(request.time),
          Math.max(0, Math.round(request.ttlMs)),
          jsonForPostgres(
            request.limits.map((limit, index) => ({ i: index, ...keys[index], unit: limit.unit, value: limit.value })),
          ),
        ],
      );
      const answer = result.rows[0]!.result;
      const before = answer.values.map(Number);
      if (!answer.granted) {
        const index = answer.refused!;
        const standings = request.limits.map((limit, at) => ({ limit, committed: before[at]! }));
        return { granted: false, limit: request.limits[index]!, committed: Number(answer.committed), standings };
      }
      // The amounts were read before this call's estimate was added (unless it was a retry).
      const standings = request.limits.map((limit, at) => ({
        limit,
        committed: answer.retried ? before[at]! : before[at]! + (limit.unit === 'usd' ? usd : tokens),
      }));
      return { granted: true, standings };
    });
  }

  async append(batch: { audit: TeamAudit[]; usage: TeamUsage[] }): Promise<{ audit: number; usage: number }> {
    let audit: string;
    let usage: string;
    try {
      audit = jsonForPostgres(batch.audit.map(auditRecord));
      usage = jsonForPostgres(batch.usage.map(usageRecord));
    } catch (error) {
      // A record that cannot even be written down (a time that is no date) never will be.
      throw new TeamRecordsRefusedError(`A record cannot be sent to the team database: ${messageOf(error)}`, {
        cause: error,
      });
    }
    return this.run(() => this.insert(audit, usage, batch)).catch((error: unknown) => {
      throw classifyTeamError(error) === 'content'
        ? new TeamRecordsRefusedError(`The team database refused a record: ${messageOf(error)}`, { cause: error })
        : error;
    });
  }

  private insert(
    auditJson: string,
    usageJson: string,
    batch: { audit: TeamAudit[]; usage: TeamUsage[] },
  ): Promise<{ audit: number; usage: number }> {
    return this.transaction(async (client) => {
      let audit = 0;
      let usage = 0;
      if (batch.audit.length) {
        // Rows go in id order, like every writer's, so two copies of a batch never deadlock.
        const result = await client.query(
          `INSERT INTO audit (id, member, repository, conversation_id, time, kind, data)
             SELECT id, member, repository, conversation_id, time, kind, data
             FROM jsonb_to_recordset($1::jsonb) AS x(id text, member text, repository text,
               conversation_id text, time timestamptz, kind text, data jsonb)
             ORDER BY id COLLATE "C"
             ON CONFLICT (id) DO NOTHING`,
          [auditJson],
        );
        audit = result.rowCount ?? 0;
      }
      if (batch.usage.length) {
        const result = await client.query<{ count: number }>('SELECT openagent_record_usage($1::jsonb) AS count', [
          usageJson,
        ]);
        usage = result.rows[0]!.count;
      }
      return { audit, usage };
    });
  }

  async standings(request: {
    member: string;
    conversationId?: string;
    limits: TeamLimit[];
    time: number;
  }): Promise<TeamStanding[]> {
    const limits = request.limits.filter((limit) => limit.scope !== 'conversation' || request.conversationId);
    const keys = limits.map((limit) => counterKey(limit, request.member, request.conversationId ?? '', request.time));
    return this.run(async () => {
      await this.pool.query('SELECT openagent_release_stale()');
      const result = await this.pool.query<{
        scope: string;
        subject: string;
        period: string;
        usd: string;
        tokens: string;
      }>(
        `SELECT c.scope, c.subject, c.period, c.usd, c.tokens FROM budget_counters c
         JOIN jsonb_to_recordset($1::jsonb) AS k(scope text, subject text, period text)
           ON c.scope = k.scope AND c.subject = k.subject AND c.period = k.period`,
        [jsonForPostgres(keys)],
      );
      const found = new Map(result.rows.map((row) => [keyText(row), row]));
      return limits.map((limit, index) => {
        const row = found.get(keyText(keys[index]!));
        return { limit, committed: row ? Number(limit.unit === 'usd' ? row.usd : row.tokens) : 0 };
      });
    });
  }

  async usage(query: { month?: string; day?: string; member?: string }): Promise<TeamUsageRow[]> {
    const [from, to] = periodRange(query);
    return this.run(async () => {
      const result = await this.pool.query<{
        member: string;
        calls: string;
        input_tokens: string;
        output_tokens: string;
        cost_usd: string;
      }>(
        `SELECT member, count(*) AS calls, sum(input_tokens) AS input_tokens,
           sum(output_tokens) AS output_tokens, sum(cost_usd) AS cost_usd
         FROM usage WHERE time >= $1 AND time < $2 AND ($3::text IS NULL OR member = $3)
         GROUP BY member ORDER BY sum(cost_usd) DESC, member`,
        [from, to, query.member ?? null],
      );
      return result.rows.map((row) => ({
        member: row.member,
        calls: Number(row.calls),
        inputTokens: Number(row.input_tokens),
        outputTokens: Number(row.output_tokens),
        costUsd: Number(row.cost_usd),
      }));
    });
  }

  audit(query: { since: number; limit: number; after?: { time: number; id: string } }): Promise<TeamAudit[]> {
    return this.run(async () => {
      const result = await this.pool.query<AuditRow>(
        `SELECT id, member, repository, conversation_id, time, kind, data FROM audit
         WHERE time >= $1 AND ($2::timestamptz IS NULL OR (time, id) > ($2, $3))
         ORDER BY time, id LIMIT $4`,
        [
          new Date(query.since).toISOString(),
          query.after ? new Date(query.after.time).toISOString() : null,
          query.after?.id ?? '',
          query.limit,
        ],
      );
      return result.rows.map((row) => ({
        id: row.id,
        member: row.member,
        ...(row.repository !== null ? { repository: row.repository } : {}),
        conversationId: row.conversation_id,
        time: row.time.getTime(),
        kind: row.kind as TeamAudit['kind'],
        data: row.data,
      }));
    });
  }

  /** How many members used a model or left an audit record since `since` (epoch ms). */
  membersSeen(since: number): Promise<number> {
    return this.run(async () => {
      const result = await this.pool.query<{ count: string }>(
        `SELECT count(*) AS count FROM (
           SELECT member FROM usage WHERE time >= $1 UNION SELECT member FROM audit WHERE time >= $1
         ) seen`,
        [new Date(since).toISOString()],
      );
      return Number(result.rows[0]!.count);
    });
  }

  async remember(note: Omit<TeamNote, 'id' | 'createdAt'>): Promise<TeamNote> {
    if (note.scope === 'repository' && !note.repository) throw new Error('A repository note needs its repository.');
    return this.run(async () => {
      const id = randomUUID();
      const result = await this.pool.query<{ created_at: Date }>(
        `INSERT INTO team_memory (id, scope, repository, member, text) VALUES ($1, $2, $3, $4, $5)
         RETURNING created_at`,
        [id, note.scope, note.scope === 'repository' ? note.repository : null, note.member, note.text],
      );
      return { ...note, id, createdAt: result.rows[0]!.created_at.getTime() };
    });
  }

  searchMemory(query: {
    text: string;
    identity: { member: string; repository?: string };
    scopes?: TeamMemoryScope[];
    limit: number;
  }): Promise<TeamNote[]> {
    const scopes = query.scopes ?? ['team', 'repository', 'member'];
    return this.run(async () => {
      const result = await this.pool.query<NoteRow>(
        `SELECT n.id, n.scope, n.repository, n.member, n.text, n.created_at
         FROM team_memory n, websearch_to_tsquery('english', $1) AS q
         WHERE n.tsv @@ q AND n.scope = ANY ($2::text[])
           AND (n.scope = 'team'
             OR (n.scope = 'repository' AND n.repository = $3)
             OR (n.scope = 'member' AND n.member = $4))
         ORDER BY ts_rank(n.tsv, q) DESC, n.created_at DESC, n.id
         LIMIT $5`,
        [query.text, scopes, query.identity.repository ?? null, query.identity.member, query.limit],
      );
      return result.rows.map((row) => ({
        id: row.id,
        scope: row.scope as TeamMemoryScope,
        ...(row.repository !== null ? { repository: row.repository } : {}),
        member: row.member,
        text: row.text,
        createdAt: row.created_at.getTime(),
      }));
    });
  }

  async close(): Promise<void> {
    await this.pool.end();
  }

  private run<T>(work: () => Promise<T>): Promise<T> {
    return withTeamErrors(this.target, work, this.secrets);
  }

  private async transaction<T>(work: (client: PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    // pg emits a dead socket's error (a server killed mid-transaction: ECONNRESET) on the client
    // as well as failing the query in flight, and the pool listens only to idle clients: without
    // a listener here, that event would end the process. The query's own failure is what counts.
    const onError = () => undefined;
    client.on('error', onError);
    let result: T;
    try {
      await client.query('BEGIN');
      result = await work(client);
      await client.query('COMMIT');
    } catch (error) {
      // A broken connection is dropped from the pool, not handed to the next caller.
      const broken = classifyTeamError(error) === 'unreachable';
      if (!broken) await client.query('ROLLBACK').catch(() => undefined);
      client.removeListener('error', onError);
      client.release(broken ? (error as Error) : undefined);
      throw error;
    }
    client.removeListener('error', onError);
    client.release();
    return result;
  }
}

interface ReserveAnswer {
  granted: boolean;
  retried: boolean;
  refused: number | null;
  committed: string | null;
  values: string[];
}

interface PolicyRow {
  version: number;
  text: string;
  changed_by: string;
  changed_at: Date;
}

interface AuditRow {
  id: string;
  member: string;
  repository: string | null;
  conversation_id: string;
  time: Date;
  kind: string;
  data: Record<string, unknown>;
}

interface NoteRow {
  id: string;
  scope: string;
  repository: string | null;
  member: string;
  text: string;
  created_at: Date;
}

function toPolicy(row: PolicyRow): TeamPolicyVersion {
  return { version: row.version, text: row.text, changedBy: row.changed_by, changedAt: row.changed_at.getTime() };
}

/** The counter a limit is checked against; only the five counters every call holds exist. */
function counterKey(limit: TeamLimit, member: string, conversationId: string, time: number): CounterKey {
  if (limit.scope === 'conversation') {
    if (limit.period !== 'total')
      throw new Error(`A conversation limit is over its whole life (period "total"), not per ${limit.period}.`);
    return { scope: 'conversation', subject: conversationId, period: 'total' };
  }
  if (limit.period === 'total')
    throw new Error(`A ${limit.scope} limit is per day or per month, not over all time (${limit.key}).`);
  return {
    scope: limit.scope,
    subject: limit.scope === 'team' ? '' : member,
    period: limit.period === 'day' ? utcDay(time) : utcMonth(time),
  };
}

function keyText(key: CounterKey): string {
  return JSON.stringify([key.scope, key.subject, key.period]);
}

function auditRecord(record: TeamAudit) {
  return {
    id: record.id,
    member: record.member,
    repository: record.repository ?? null,
    conversation_id: record.conversationId,
    time: new Date(record.time).toISOString(),
    kind: record.kind,
    data: record.data,
  };
}

function usageRecord(record: TeamUsage) {
  return {
    id: record.id,
    member: record.member,
    repository: record.repository ?? null,
    conversation_id: record.conversationId,
    provider: record.provider,
    model: record.model,
    input_tokens: Math.round(record.inputTokens),
    output_tokens: Math.round(record.outputTokens),
    cache_read_tokens: Math.round(record.cacheReadTokens),
    cache_write_tokens: Math.round(record.cacheWriteTokens),
    // As text: numeric keeps it exact, and JSON numbers would pass through a double again.
    cost_usd: String(amount(record.costUsd, 'costUsd')),
    time: new Date(record.time).toISOString(),
    reservation_id: record.reservationId ?? null,
  };
}

function amount(value: number, what: string): number {
  if (!Number.isFinite(value) || value < 0) throw new Error(`${what} must be a finite amount of at least 0.`);
  return value;
}

export function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

export function utcMonth(time: number): string {
  return new Date(time).toISOString().slice(0, 7);
}

/** [from, to) of a UTC day or month (the current month when neither is given). */
function periodRange(query: { month?: string; day?: string }): [string, string] {
  if (query.day) {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(query.day)) throw new Error(`A day is YYYY-MM-DD, not "${query.day}".`);
    const from = new Date(`${query.day}T00:00:00Z`);
    if (Number.isNaN(from.getTime())) throw new Error(`"${query.day}" is not a day.`);
    return [from.toISOString(), new Date(from.getTime() + 86_400_000).toISOString()];
  }
  const month = query.month ?? utcMonth(Date.now());
  const match = /^(\d{4})-(\d{2})$/.exec(month);
  if (!match || Number(match[2]) < 1 || Number(match[2]) > 12) throw new Error(`A month is YYYY-MM, not "${month}".`);
  const year = Number(match[1]);
  const index = Number(match[2]) - 1;
  return [new Date(Date.UTC(year, index, 1)).toISOString(), new Date(Date.UTC(year, index + 1, 1)).toISOString()];
}
