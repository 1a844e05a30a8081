/**
 * Approvals by named teammates (issue 37): the port the core needs from the team database. One
 * adapter implements it on PostgreSQL (src/team/pg-team-approvals.ts), where the database itself
 * decides who may decide a request; the core only asks and waits. The requesting side
 * (team-approval-gate.ts) and the approver's side (approver-inbox.ts) both build on it.
 */

export type TeamApprovalState = 'pending' | 'approved' | 'denied' | 'timed_out' | 'withdrawn';

/** What a requesting agent sends; the database adds the requesting login, the times and the state. */
export interface NewTeamApproval {
  /** Unique; sending the same request again (its answer was lost) answers the first. */
  id: string;
  /** The requesting member (as the team knows them: an e-mail). */
  requester: string;
  repository?: string;
  conversationId: string;
  agentId: string;
  tool: string;
  /** The call's arguments, redacted as the audit trail redacts them. */
  arguments: unknown;
  /** What the approver must see: the command, or the change as a diff (bounded). */
  shown: string;
  /** The conversation's last prompt (bounded), for context. */
  lastUserMessage?: string;
  /** Why the call needs an approver: the rules it matched. */
  matched: string[];
  /** Members' e-mails and `team:<group>` names; any one of them decides. */
  approvers: string[];
  /** The deadline is the database's now() plus this. */
  timeoutMs: number;
}

/** A request as the database has it: what was sent (the deadline instead of the timeout), and its state. */
export interface TeamApprovalRecord extends Omit<NewTeamApproval, 'timeoutMs'> {
  /** Epoch milliseconds (the database's clock). */
  createdAt: number;
  deadline: number;
  /** Milliseconds left until the deadline by the database's clock when read (0 once past). */
  remainingMs: number;
  state: TeamApprovalState;
  /** The approver who decided (an e-mail); the requester for a withdrawal; none for a timeout. */
  decidedBy?: string;
  decidedAt?: number;
  reason?: string;
}

export interface TeamApprovalCreated {
  record: TeamApprovalRecord;
  /** Named approvers that are no member or group of the team's directory. */
  unknown: string[];
}

/** A change the database announced (NOTIFY), or the announcements starting or stopping. */
export type TeamApprovalSignal =
  | { kind: 'changed'; id: string; state: TeamApprovalState }
  /** Listening (again): anything may have changed meanwhile, so read again. */
  | { kind: 'listening' }
  /** The announcements stopped (the connection dropped): poll until they come back. */
  | { kind: 'lost'; reason: string };

export interface TeamMemberEntry {
  email: string;
  groups: string[];
}

export type TeamApprovalVerdict = 'approve' | 'deny';

export interface TeamApprovals {
  /** Files a request. Throws TeamApprovalRefusedError when no named approver could decide it. */
  request(request: NewTeamApproval): Promise<TeamApprovalCreated>;
  /** The request now (timed out first when its deadline passed); undefined when there is none. */
  get(id: string): Promise<TeamApprovalRecord | undefined>;
  /** Takes back the caller's own pending request; whether it was still pending. */
  withdraw(id: string): Promise<boolean>;
  /** Pending requests the caller's login may decide (never its own), oldest first. */
  pendingForMe(): Promise<TeamApprovalRecord[]>;
  /**
   * Decides as the caller's login. `won` is false when another decision, the timeout or a
   * withdrawal came first (`record` says which). Throws TeamApprovalRefusedError when the
   * database refuses this login (not a named approver, the requester itself, past the deadline).
   */
  decide(
    id: string,
    verdict: TeamApprovalVerdict,
    reason?: string,
  ): Promise<{ won: boolean; record: TeamApprovalRecord }>;
  /** Announcements of changes (LISTEN/NOTIFY); returns the unsubscribe. */
  watch(listener: (signal: TeamApprovalSignal) => void): () => void;
  /** The member directory (for checking approver names). */
  members(): Promise<TeamMemberEntry[]>;
  close(): Promise<void>;
}

/** The database refused an approval operation for what it is (not because it is away). */
export class TeamApprovalRefusedError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'TeamApprovalRefusedError';
  }
}

/** Names in `approvers` the directory does not know (neither a member's e-mail nor a group). */
export function unknownApprovers(approvers: readonly string[], members: readonly TeamMemberEntry[]): string[] {
  return approvers.filter((name) =>
    name.startsWith('team:')
      ? !members.some((member) => member.groups.includes(name.slice(5)))
      : !members.some((member) => member.email === name),
  );
}
