/**
 * The team control plane as one window or CLI run sees it (SPEC 5a): the team policy (fetched,
 * kept for when the database is away, applied under the user's and the workspace's), budget
 * reservations for the BudgetGuard, and the outbox drain that carries usage and audit records
 * from the embedded store to the team database — at once when it answers, later when it was
 * away, never twice (the database skips ids it has), and a record the database refuses for what
 * it holds set aside instead of holding back the rest. Its status (connected, unreachable, why)
 * is for the status bar and the developer panel.
 */
import type { AgentPolicy, PolicyProblem } from '../policy/agent-policy';
import type { Limit, SharedBudget, SharedReservation } from '../policy/budget';
import type { TeamStandings } from '../policy/budget-status';
import { PolicyFile } from '../policy/policy-file';
import type { ConversationStore, TeamOutboxItem } from '../ports';
import type { AnyTool } from '../tools/tool';
import { createTeamMemoryTools } from './team-memory-tools';
import {
  TeamRecordsRefusedError,
  type TeamAudit,
  type TeamIdentity,
  type TeamLimit,
  type TeamPolicyVersion,
  type TeamStore,
  type TeamUsage,
} from './team-store';
import type { TeamStatus } from './team-status';

/** The last team policy seen, kept across restarts: a member offline still follows it. */
export interface TeamPolicyCache {
  /** Undefined: none kept. Rejects, saying why, when what is kept there is no policy text. */
  read(): Promise<string | undefined>;
  write(text: string): Promise<void>;
}

export interface TeamPlaneOptions {
  store: TeamStore;
  identity: TeamIdentity;
  cache: TeamPolicyCache;
  /** The embedded store, whose outbox holds what the team database has not received. */
  outbox: () => Promise<ConversationStore | undefined>;
  now: () => number;
  newId: () => string;
  /** A team policy with mistakes is not applied; told once per text. */
  onPolicyMistakes: (problems: PolicyProblem[]) => void;
  /** First wait before sending again after the database was away (doubles up to 60 s). */
  retryMs?: number;
  /** Records sent per round trip. */
  batchSize?: number;
}

/** An unsettled reservation is released after this long (its process died mid-call). */
export const RESERVATION_TTL_MS = 15 * 60_000;
const MAX_RETRY_MS = 60_000;

export class TeamPlane {
  private current: TeamStatus = { state: 'connecting' };
  private readonly listeners = new Set<(status: TeamStatus) => void>();
  private readonly policyFile: PolicyFile;
  private version: TeamPolicyVersion | undefined;
  private draining: Promise<void> | undefined;
  private again = false;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private retryMs: number;
  private disposed = false;
  /** Set by dispose (once): a last drain runs, no retry is scheduled. */
  private closing: Promise<void> | undefined;

  constructor(private readonly options: TeamPlaneOptions) {
    this.policyFile = new PolicyFile(options.onPolicyMistakes);
    this.retryMs = options.retryMs ?? 1_000;
  }

  get identity(): TeamIdentity {
    return this.options.identity;
  }

  get status(): TeamStatus {
    return this.current;
  }

  onStatus(listener: (status: TeamStatus) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** The team policy in force: the newest version read (from the database, or kept from before). */
  policy(): AgentPolicy | undefined {
    return this.policyFile.current;
  }

  /** The team's policy is there but not applied (mistakes): every change asks meanwhile. */
  get policyBroken(): boolean {
    return this.policyFile.broken;
  }

  /** team_memory_search and team_memory_write, for each new conversation. */
  tools(): AnyTool[] {
    return createTeamMemoryTools(
      () => this.options.store,
      () => this.identity,
    );
  }

  /** The version in force, for "which layer decided" (undefined: none read yet). */
  get policyVersion(): TeamPolicyVersion | undefined {
    return this.version;
  }

  /**
   * Reads the team policy again (at start and before each new conversation), falling back on the
   * copy kept from last time when the database does not answer; then sends what waits.
   */
  async refresh(): Promise<void> {
    if (!this.policyFile.current && !this.version) {
      // A kept copy that is no policy text (a FIFO, a device…): what the team denies is unknown.
      const kept = await this.options.cache.read().then(
        (text) => ({ text }),
        (error: unknown) => ({ problem: error instanceof Error ? error.message : String(error) }),
      );
      if ('problem' in kept)
        this.policyFile.unusable(
          `The kept team policy cannot be used: ${kept.problem} Remove it; the team database's next answer replaces it.`,
        );
      else this.policyFile.read(kept.text);
    }
    try {
      const version = await this.options.store.policy();
      this.version = version;
      this.policyFile.read(version?.text);
      if (version) await this.options.cache.write(version.text).catch(() => undefined);
      this.connected();
    } catch (error) {
      this.unreachable(error);
    }
    this.kick();
  }

  /** The BudgetGuard's view of the team database. */
  readonly budget: SharedBudget = {
    reserve: async (conversationId, estimate, limits): Promise<SharedReservation> => {
      const id = this.options.newId();
      try {
        const result = await this.options.store.reserve({
          id,
          member: this.options.identity.member,
          conversationId,
          estimate,
          limits: limits.map(toTeamLimit),
          time: this.options.now(),
          ttlMs: RESERVATION_TTL_MS,
        });
        this.connected();
        if (!result.granted)
          return { granted: false, limit: fromTeamLimit(result.limit, limits), committed: result.committed };
        const standings = result.standings.map((standing) => ({
          limit: fromTeamLimit(standing.limit, limits),
          committed: standing.committed,
        }));
        return { granted: true, id, standings };
      } catch (error) {
        this.unreachable(error);
        throw error;
      }
    },
  };

  /** Where the team's limits stand now (Show Usage and Budget). */
  readonly standings: TeamStandings = async (limits: Limit[], conversationId?: string) => {
    const standings = await this.options.store.standings({
      member: this.options.identity.member,
      conversationId,
      limits: limits.map(toTeamLimit),
      time: this.options.now(),
    });
    return standings.map((standing) => ({
      limit: fromTeamLimit(standing.limit, limits),
      committed: standing.committed,
    }));
  };

  /** Sends what the outbox holds, soon; several kicks in a row make one drain. */
  kick(): void {
    if (this.disposed) return;
    if (this.draining) {
      this.again = true;
      return;
    }
    this.draining = this.drain().finally(() => {
      this.draining = undefined;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Waits until the outbox is sent or the database fails to take it (tests, the CLI at exit). */
  async settled(): Promise<void> {
    while (this.draining) await this.draining;
  }

  /**
   * Stops retrying, sends what waits one last time (the records of a run's last calls are often
   * written just before) without waiting for a retry when the database does not answer, and
   * closes the connection (once, however often called).
   */
  dispose(): Promise<void> {
    this.closing ??= (async () => {
      if (this.retry) clearTimeout(this.retry);
      this.retry = undefined;
      // Not disposed yet: a drain under way hands over to the one kicked by records written meanwhile.
      this.kick();
      await this.settled();
      this.disposed = true;
      await this.options.store.close();
    })();
    return this.closing;
  }

  private async drain(): Promise<void> {
    const batchSize = this.options.batchSize ?? 200;
    try {
      const store = await this.options.outbox();
      if (!store) return;
      for (;;) {
        const items = await store.teamOutbox(batchSize);
        if (items.length === 0) break;
        await this.send(store, items);
        this.connected();
        if (items.length < batchSize) break;
      }
      this.retryMs = this.options.retryMs ?? 1_000;
      await this.noteRefused(store);
    } catch (error) {
      // The database away (or failing otherwise): the records stay in the outbox and are sent
      // again later; a kick never rejects (nobody awaits it).
      this.unreachable(error);
      this.scheduleRetry();
    }
  }

  /**
   * Sends `items`; when the database refuses the batch for what it holds, halves it until the
   * records it refuses are found, sets those aside (kept in the store, no longer sent) and sends
   * the rest: one bad record never holds back the audit trail after it.
   */
  private async send(store: ConversationStore, items: TeamOutboxItem[]): Promise<void> {
    try {
      await this.options.store.append(toTeamBatch(items));
    } catch (error) {
      if (!(error instanceof TeamRecordsRefusedError)) throw error;
      if (items.length === 1) {
        await store.refusedByTeam([items[0]!.key], error.message);
        return;
      }
      const half = Math.ceil(items.length / 2);
      await this.send(store, items.slice(0, half));
      await this.send(store, items.slice(half));
      return;
    }
    // Removed only once the database has them: a crash in between sends them again, which it skips.
    await store.deliveredToTeam(items.map((item) => item.key));
  }

  private async noteRefused(store: ConversationStore): Promise<void> {
    const { count, reason } = await store.teamRefused();
    const refused = count ? { count, reason: reason ?? '' } : undefined;
    if (JSON.stringify(refused) === JSON.stringify(this.current.refused)) return;
    const { refused: _before, ...rest } = this.current;
    this.set(refused ? { ...rest, refused } : rest);
  }

  private scheduleRetry(): void {
    if (this.closing || this.disposed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.kick();
    }, this.retryMs);
    this.retry.unref?.();
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }

  private connected(): void {
    const version = this.version;
    const next: TeamStatus = {
      state: 'connected',
      ...(this.current.refused ? { refused: this.current.refused } : {}),
      ...(version
        ? { policy: { version: version.version, changedBy: version.changedBy, changedAt: version.changedAt } }
        : {}),
    };
    if (this.current.state === 'connected' && JSON.stringify(this.current) === JSON.stringify(next)) return;
    this.set(next);
  }

  private unreachable(error: unknown): void {
    const reason = error instanceof Error ? error.message : String(error);
    if (this.current.state === 'unreachable' && this.current.reason === reason) return;
    const refused = this.current.refused;
    this.set({ state: 'unreachable', reason, since: this.options.now(), ...(refused ? { refused } : {}) });
  }

  private set(status: TeamStatus): void {
    this.current = status;
    for (const listener of this.listeners) listener(status);
  }
}

const PERIODS: Record<Limit['scope'], { scope: TeamLimit['scope']; period: TeamLimit['period'] } | undefined> = {
  conversation: { scope: 'conversation', period: 'total' },
  team_daily: { scope: 'team', period: 'day' },
  team_monthly: { scope: 'team', period: 'month' },
  member_daily: { scope: 'member', period: 'day' },
  member_monthly: { scope: 'member', period: 'month' },
  daily: undefined,
  monthly: undefined,
};

function toTeamLimit(limit: Limit): TeamLimit {
  const where = PERIODS[limit.scope];
  if (!where) throw new Error(`${limit.key} is this machine's limit, not the team's.`);
  return { ...where, unit: limit.unit, value: limit.value, key: limit.key };
}

function fromTeamLimit(limit: TeamLimit, limits: Limit[]): Limit {
  return limits.find((candidate) => candidate.key === limit.key) ?? limits[0]!;
}

/** The outbox's records as the team store takes them, stamped with their member and repository. */
function toTeamBatch(items: readonly TeamOutboxItem[]): { audit: TeamAudit[]; usage: TeamUsage[] } {
  const audit: TeamAudit[] = [];
  const usage: TeamUsage[] = [];
  for (const item of items) {
    const { member, repository } = item.record.team;
    const stamp = { member, ...(repository ? { repository } : {}) };
    if (item.kind === 'audit') {
      const { team: _team, ...record } = item.record;
      audit.push({ ...record, ...stamp });
    } else {
      const { team: _team, ...record } = item.record;
      usage.push({ ...record, ...stamp });
    }
  }
  return { audit, usage };
}
