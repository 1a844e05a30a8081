/**
 * Approvals by named teammates on PostgreSQL (issue 37): the TeamApprovals port over the
 * functions of approval-schema.ts. Requests, decisions and withdrawals are function calls the
 * database checks (who may decide is the database's call, by the login); changes are announced
 * with NOTIFY, heard on one LISTEN connection of its own that comes back after a drop (and says
 * so, for the callers to read again what they may have missed).
 */
import { Client, type Pool } from 'pg';
import type {
  NewTeamApproval,
  TeamApprovalCreated,
  TeamApprovalRecord,
  TeamApprovals,
  TeamApprovalSignal,
  TeamApprovalState,
  TeamApprovalVerdict,
  TeamMemberEntry,
} from '../core/team/team-approvals';
import { TeamApprovalRefusedError } from '../core/team/team-approvals';
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
import { APPROVAL_CHANNEL, MAX_PROMPT_CHARS, MAX_REASON_CHARS, MAX_SHOWN_CHARS } from './approval-schema';

const COLUMNS = `id, requester, repository, conversation_id, agent_id, tool, arguments, shown, last_user_message,
  matched, approvers, state, decided_by, reason,
  (extract(epoch FROM created_at) * 1000)::float8 AS created_ms,
  (extract(epoch FROM deadline) * 1000)::float8 AS deadline_ms,
  (extract(epoch FROM decided_at) * 1000)::float8 AS decided_ms,
  greatest(0, extract(epoch FROM deadline - now()) * 1000)::float8 AS remaining_ms`;

interface RequestRow {
  id: string;
  requester: string;
  repository: string | null;
  conversation_id: string;
  agent_id: string;
  tool: string;
  arguments: unknown;
  shown: string;
  last_user_message: string | null;
  matched: string[];
  approvers: string[];
  state: TeamApprovalState;
  decided_by: string | null;
  reason: string | null;
  created_ms: number;
  deadline_ms: number;
  decided_ms: number | null;
  remaining_ms: number;
}

/** How long the LISTEN connection waits before trying again after a drop (doubling to the most). */
const RELISTEN_FIRST_MS = 250;
const RELISTEN_MOST_MS = 5_000;

export class PgTeamApprovals implements TeamApprovals {
  readonly target: string;
  private readonly pool: Pool;
  private readonly secrets: string[];
  private readonly listeners = new Set<(signal: TeamApprovalSignal) => void>();
  private listener: Client | undefined;
  private relisten: ReturnType<typeof setTimeout> | undefined;
  private relistenDelay = RELISTEN_FIRST_MS;
  private closed = false;

  constructor(
    private readonly url: string,
    options: TeamPoolOptions = {},
  ) {
    this.target = describeTarget(url);
    this.secrets = secretsOf(url);
    this.pool = createTeamPool(url, { max: 2, ...options });
  }

  async request(request: NewTeamApproval): Promise<TeamApprovalCreated> {
    const payload = jsonForPostgres({
      id: request.id,
      requester: request.requester,
      repository: request.repository ?? null,
      conversation_id: request.conversationId,
      agent_id: request.agentId,
      tool: request.tool,
      arguments: request.arguments ?? null,
      shown: bounded(request.shown, MAX_SHOWN_CHARS),
      last_user_message:
        request.lastUserMessage === undefined ? null : bounded(request.lastUserMessage, MAX_PROMPT_CHARS),
      matched: request.matched,
      approvers: request.approvers,
      timeout_ms: Math.max(1, Math.round(request.timeoutMs)),
    });
    return this.refusing(async () => {
      const result = await this.pool.query<{ result: { created: boolean; unknown: string[] } }>(
        'SELECT openagent_request_approval($1::jsonb) AS result',
        [payload],
      );
      const record = await this.read(request.id);
      if (!record) throw new Error(`approval request ${request.id} was not stored`);
      return { record, unknown: result.rows[0]!.result.unknown };
    });
  }

  get(id: string): Promise<TeamApprovalRecord | undefined> {
    return this.run(async () => {
      await this.pool.query('SELECT openagent_expire_approvals()');
      return this.read(id);
    });
  }

  withdraw(id: string): Promise<boolean> {
    return this.refusing(async () => {
      const result = await this.pool.query<{ withdrawn: boolean }>(
        'SELECT openagent_withdraw_approval($1) AS withdrawn',
        [id],
      );
      return result.rows[0]!.withdrawn;
    });
  }

  pendingForMe(): Promise<TeamApprovalRecord[]> {
    return this.run(async () => {
      await this.pool.query('SELECT openagent_expire_approvals()');
      const result = await this.pool.query<RequestRow>(
        `SELECT ${COLUMNS} FROM approval_requests
         WHERE state = 'pending' AND deadline > now() AND requester_role <> session_user
           AND openagent_approver_of(approvers, session_user::text) IS NOT NULL
           AND openagent_approver_of(approvers, session_user::text) <> requester
         ORDER BY created_at, id LIMIT 200`,
      );
      return result.rows.map(toRecord);
    });
  }

  decide(
    id: string,
    verdict: TeamApprovalVerdict,
    reason?: string,
  ): Promise<{ won: boolean; record: TeamApprovalRecord }> {
    return this.refusing(async () => {
      const result = await this.pool.query<{ result: { won: boolean } }>(
        'SELECT openagent_decide_approval($1, $2, $3) AS result',
        // A NUL or a lone surrogate cannot be stored in text: replaced, as in every record sent.
        [
          id,
          verdict === 'approve',
          reason === undefined ? null : (JSON.parse(jsonForPostgres(bounded(reason, MAX_REASON_CHARS))) as string),
        ],
      );
      const record = await this.read(id);
      return { won: result.rows[0]!.result.won, record: record! };
    });
  }

  /** Adds or changes a member of the directory (the admin's right). */
  setMember(entry: TeamMemberEntry & { login: string }): Promise<void> {
    return this.run(async () => {
      await this.pool.query(
        `INSERT INTO team_members (email, db_role, groups) VALUES ($1, $2, $3)
         ON CONFLICT (email) DO UPDATE SET db_role = EXCLUDED.db_role, groups = EXCLUDED.groups`,
        [entry.email, entry.login, entry.groups],
      );
    });
  }

  /** Removes a member from the directory (the admin's right); whether they were in it. */
  removeMember(email: string): Promise<boolean> {
    return this.run(async () => {
      const result = await this.pool.query('DELETE FROM team_members WHERE email = $1', [email]);
      return (result.rowCount ?? 0) > 0;
    });
  }

  members(): Promise<TeamMemberEntry[]> {
    return this.run(async () => {
      const result = await this.pool.query<{ email: string; groups: string[] }>(
        'SELECT email, groups FROM team_members ORDER BY email',
      );
      return result.rows;
    });
  }

  watch(listener: (signal: TeamApprovalSignal) => void): () => void {
    this.listeners.add(listener);
    if (!this.listener && !this.relisten) void this.listen();
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size === 0) this.stopListening();
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listeners.clear();
    this.stopListening();
    await this.pool.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    if (this.closed || this.listeners.size === 0) return;
    const client = new Client({ connectionString: this.url, connectionTimeoutMillis: 5_000, keepAlive: true });
    this.listener = client;
    let dropped = false;
    const drop = (error?: unknown) => {
      if (dropped) return;
      dropped = true;
      if (this.listener === client) this.listener = undefined;
      client.removeAllListeners('notification');
      void client.end().catch(() => undefined);
      if (this.closed || this.listeners.size === 0) return;
      this.tell({ kind: 'lost', reason: error ? scrub(messageOf(error), this.secrets) : 'the connection ended' });
      this.relisten = setTimeout(() => {
        this.relisten = undefined;
        void this.listen();
      }, this.relistenDelay);
      this.relistenDelay = Math.min(this.relistenDelay * 2, RELISTEN_MOST_MS);
    };
    client.on('error', drop);
    client.on('end', () => drop());
    client.on('notification', (message) => {
      if (message.channel !== APPROVAL_CHANNEL || !message.payload) return;
      const change = parseChange(message.payload);
      if (change) this.tell(change);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${APPROVAL_CHANNEL}`);
      if (dropped || this.listener !== client) return;
      this.relistenDelay = RELISTEN_FIRST_MS;
      this.tell({ kind: 'listening' });
    } catch (error) {
      drop(error);
    }
  }

  private stopListening(): void {
    if (this.relisten) clearTimeout(this.relisten);
    this.relisten = undefined;
    const client = this.listener;
    this.listener = undefined;
    if (client) {
      client.removeAllListeners();
      client.on('error', () => undefined);
      void client.end().catch(() => undefined);
    }
  }

  private tell(signal: TeamApprovalSignal): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(signal);
      } catch {
        // One listener's failure is its own.
      }
    }
  }

  private async read(id: string): Promise<TeamApprovalRecord | undefined> {
    const result = await this.pool.query<RequestRow>(`SELECT ${COLUMNS} FROM approval_requests WHERE id = $1`, [id]);
    const row = result.rows[0];
    return row && toRecord(row);
  }

  private run<T>(work: () => Promise<T>): Promise<T> {
    return withTeamErrors(this.target, work, this.secrets);
  }

  /** Like run, but what the database refuses for what it is becomes TeamApprovalRefusedError. */
  private async refusing<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const kind = classifyTeamError(error);
      if (code === 'P0002' || code === '42501' || code === '23505' || kind === 'content')
        throw new TeamApprovalRefusedError(scrub(messageOf(error), this.secrets), { cause: error });
      return this.run(() => Promise.reject(error));
    }
  }
}

function toRecord(row: RequestRow): TeamApprovalRecord {
  return {
    id: row.id,
    requester: row.requester,
    ...(row.repository !== null ? { repository: row.repository } : {}),
    conversationId: row.conversation_id,
    agentId: row.agent_id,
    tool: row.tool,
    arguments: row.arguments,
    shown: row.shown,
    ...(row.last_user_message !== null ? { lastUserMessage: row.last_user_message } : {}),
    matched: row.matched,
    approvers: row.approvers,
    createdAt: Math.round(row.created_ms),
    deadline: Math.round(row.deadline_ms),
    remainingMs: Math.round(row.remaining_ms),
    state: row.state,
    ...(row.decided_by !== null ? { decidedBy: row.decided_by } : {}),
    ...(row.decided_ms !== null ? { decidedAt: Math.round(row.decided_ms) } : {}),
    ...(row.reason !== null ? { reason: row.reason } : {}),
  };
}

const STATES = new Set<TeamApprovalState>(['pending', 'approved', 'denied', 'timed_out', 'withdrawn']);

function parseChange(payload: string): TeamApprovalSignal | undefined {
  try {
    const parsed = JSON.parse(payload) as { id?: unknown; state?: unknown };
    if (typeof parsed.id !== 'string' || !STATES.has(parsed.state as TeamApprovalState)) return undefined;
    return { kind: 'changed', id: parsed.id, state: parsed.state as TeamApprovalState };
  } catch {
    return undefined;
  }
}

/** Cut to `limit` characters, saying so (the database refuses longer). */
function bounded(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const keep = limit - 64;
  return `${text.slice(0, keep)}\n… (${text.length - keep} more characters not shown)`;
}

function scrub(text: string, secrets: string[]): string {
  let result = text;
  for (const secret of secrets) result = result.split(secret).join('***');
  return result;
}
