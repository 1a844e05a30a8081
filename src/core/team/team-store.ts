/**
 * The team control plane's port (SPEC 5a): what the core needs from the team's database —
 * the org-level policy, budget reservations that hold across machines, the shared audit trail
 * and usage, and team memory. One adapter implements it on PostgreSQL (src/team); the core
 * never sees SQL. Everything here is opt-in: with no team configured nothing calls it.
 */

/** Who is working, as the team knows them: the member's identity (an e-mail) and the repository. */
export interface TeamIdentity {
  member: string;
  /** The repository the workspace belongs to (its normalised remote URL, or the folder's name). */
  repository?: string;
}

/** One version of the team policy (an agent.yaml text). */
export interface TeamPolicyVersion {
  version: number;
  text: string;
  changedBy: string;
  /** Epoch milliseconds. */
  changedAt: number;
}

export type TeamLimitScope = 'team' | 'member' | 'conversation';
/** `day` and `month` are UTC periods of the call's time; `total` is a conversation's whole life. */
export type TeamPeriod = 'day' | 'month' | 'total';

/** A limit enforced in the database: the team's, one member's, or one conversation's. */
export interface TeamLimit {
  scope: TeamLimitScope;
  period: TeamPeriod;
  unit: 'usd' | 'tokens';
  value: number;
  /** The policy key that sets it (team_daily_usd, member_monthly_tokens, per_conversation_usd…). */
  key: string;
}

/** Where a limit stands: what is spent plus what open reservations hold, in the limit's unit. */
export interface TeamStanding {
  limit: TeamLimit;
  committed: number;
}

export interface ReserveRequest {
  /** Unique per model call; the usage record that settles it carries the same id. */
  id: string;
  member: string;
  conversationId: string;
  /** What the call is estimated to cost (input estimate plus an output allowance). */
  estimate: { usd: number; tokens: number };
  /** The limits in force (from the merged policy); the reservation is refused if any would pass. */
  limits: TeamLimit[];
  /** Epoch milliseconds: day and month are the UTC period of this time. */
  time: number;
  /** A reservation never settled (its process died) is released after this long. */
  ttlMs: number;
}

export type ReserveResult =
  | { granted: true; standings: TeamStanding[] }
  /** `committed` is what the limit's scope had committed before this call's estimate. */
  | { granted: false; limit: TeamLimit; committed: number; standings: TeamStanding[] };

/** A model call's usage as the team records it; the same id may arrive twice and counts once. */
export interface TeamUsage {
  id: string;
  member: string;
  repository?: string;
  conversationId: string;
  provider: string;
  model: string;
  inputTokens: number;
  outputTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  costUsd: number;
  /** Epoch milliseconds. */
  time: number;
  /** The reservation this call took: settled (released and replaced by the real cost) on arrival. */
  reservationId?: string;
}

/** One audit record as the team keeps it (append-only: members cannot change or delete rows). */
export interface TeamAudit {
  id: string;
  member: string;
  repository?: string;
  conversationId: string;
  /** Epoch milliseconds. */
  time: number;
  kind: 'model_call' | 'tool_call' | 'budget' | 'policy';
  /** Already redacted by the recorder. */
  data: Record<string, unknown>;
}

export type TeamMemoryScope = 'team' | 'repository' | 'member';

export interface TeamNote {
  id: string;
  scope: TeamMemoryScope;
  repository?: string;
  member: string;
  text: string;
  createdAt: number;
}

export interface TeamUsageRow {
  member: string;
  calls: number;
  inputTokens: number;
  outputTokens: number;
  costUsd: number;
}

export interface TeamStore {
  /** Checks the database answers (and the schema is there); throws TeamUnreachableError otherwise. */
  ping(): Promise<void>;
  /** The newest team policy; undefined when none was ever set. */
  policy(): Promise<TeamPolicyVersion | undefined>;
  /** Stores a new version (the caller validated the text). Needs the admin's rights. */
  setPolicy(text: string, changedBy: string): Promise<TeamPolicyVersion>;
  /** Newest first. */
  policyHistory(limit: number): Promise<TeamPolicyVersion[]>;
  /**
   * Atomically: refuses when any limit's committed amount plus the estimate would pass it;
   * otherwise holds the estimate against every counter of the call (team, member, conversation).
   */
  reserve(request: ReserveRequest): Promise<ReserveResult>;
  /**
   * Appends audit and usage records, skipping ids already there (so a batch sent twice counts
   * once). A usage record adds its cost to the team's, the member's and the conversation's
   * counters and settles its reservation when that is still open. Returns how many were new.
   * Throws TeamRecordsRefusedError when the database refuses the batch for what it holds.
   */
  append(batch: { audit: TeamAudit[]; usage: TeamUsage[] }): Promise<{ audit: number; usage: number }>;
  /** What limits stand at now (for "Show Usage and Budget"). */
  standings(request: {
    member: string;
    conversationId?: string;
    limits: TeamLimit[];
    time: number;
  }): Promise<TeamStanding[]>;
  /** Usage per member for a UTC month (YYYY-MM) or day (YYYY-MM-DD); one member's only when given. */
  usage(query: { month?: string; day?: string; member?: string }): Promise<TeamUsageRow[]>;
  /** Audit records at or after `since`, oldest first, at most `limit`, after the record `after` (paging). */
  audit(query: { since: number; limit: number; after?: { time: number; id: string } }): Promise<TeamAudit[]>;
  /** Adds a note to team memory. */
  remember(note: Omit<TeamNote, 'id' | 'createdAt'>): Promise<TeamNote>;
  /** Full-text search over the notes the identity can see: the team's, the repository's, the member's own. */
  searchMemory(query: {
    text: string;
    identity: TeamIdentity;
    scopes?: TeamMemoryScope[];
    limit: number;
  }): Promise<TeamNote[]>;
  close(): Promise<void>;
}

/**
 * The team database refused records for what they hold (a value it cannot store, a broken
 * constraint): sending them again would fail again, unlike when it is away.
 */
export class TeamRecordsRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TeamRecordsRefusedError';
  }
}

/** The team database could not be reached (or refused the connection): work may go on locally. */
export class TeamUnreachableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TeamUnreachableError';
  }
}
