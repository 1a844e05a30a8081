/**
 * The approver's side of named approvers (issue 37): the requests waiting for me, kept current
 * from the team database — read again at once when NOTIFY announces a change or LISTEN comes
 * back after a drop, and every `pollMs` whatever happens (a member who was offline, or whose
 * announcements never arrive, still sees every pending request). The editor's notification and
 * the CLI both use it; neither decides anything itself: decide() asks the database, which
 * refuses anyone who may not.
 */
import type { TeamApprovalRecord, TeamApprovals, TeamApprovalVerdict } from './team-approvals';
import { DEFAULT_APPROVAL_POLL_MS } from './approval-wait';

/** What the editor's approver notification plugs into. */
export interface ApproverInboxPort {
  /** The pending requests I may decide, oldest first, as last read. */
  pending(): readonly TeamApprovalRecord[];
  /**
   * Called after every read that changed the list: the whole list, and the requests new since
   * the last call (each request is "new" once per inbox: notify on those).
   */
  onChange(
    listener: (pending: readonly TeamApprovalRecord[], added: readonly TeamApprovalRecord[]) => void,
  ): () => void;
  /** Reads the list now. */
  refresh(): Promise<readonly TeamApprovalRecord[]>;
  /** Decides as me; `won` false: someone (or the timeout) decided first — `record` says who. */
  decide(
    id: string,
    verdict: TeamApprovalVerdict,
    reason?: string,
  ): Promise<{ won: boolean; record: TeamApprovalRecord }>;
  dispose(): void;
}

export class ApproverInbox implements ApproverInboxPort {
  private list: TeamApprovalRecord[] = [];
  private readonly seen = new Set<string>();
  private readonly listeners = new Set<
    (pending: readonly TeamApprovalRecord[], added: readonly TeamApprovalRecord[]) => void
  >();
  private timer: ReturnType<typeof setInterval> | undefined;
  private stopWatching: (() => void) | undefined;
  private reading: Promise<readonly TeamApprovalRecord[]> | undefined;
  private again = false;
  private disposed = false;

  constructor(
    private readonly approvals: TeamApprovals,
    private readonly options: { pollMs?: number; onError?: (error: unknown) => void } = {},
  ) {}

  /** Starts listening and polling; the first read happens now. */
  start(): this {
    if (this.timer || this.disposed) return this;
    this.stopWatching = this.approvals.watch((signal) => {
      if (signal.kind !== 'lost') void this.refresh().catch(() => undefined);
    });
    this.timer = setInterval(
      () => void this.refresh().catch(() => undefined),
      this.options.pollMs ?? DEFAULT_APPROVAL_POLL_MS,
    );
    this.timer.unref?.();
    void this.refresh().catch(() => undefined);
    return this;
  }

  pending(): readonly TeamApprovalRecord[] {
    return this.list;
  }

  onChange(
    listener: (pending: readonly TeamApprovalRecord[], added: readonly TeamApprovalRecord[]) => void,
  ): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** One read at a time; a request to read during one reads once more after it. */
  refresh(): Promise<readonly TeamApprovalRecord[]> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = this.read().finally(() => {
      this.reading = undefined;
      if (this.again && !this.disposed) {
        this.again = false;
        void this.refresh().catch(() => undefined);
      }
    });
    return this.reading;
  }

  async decide(
    id: string,
    verdict: TeamApprovalVerdict,
    reason?: string,
  ): Promise<{ won: boolean; record: TeamApprovalRecord }> {
    const result = await this.approvals.decide(id, verdict, reason);
    void this.refresh().catch(() => undefined);
    return result;
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    this.stopWatching?.();
    this.listeners.clear();
  }

  private async read(): Promise<readonly TeamApprovalRecord[]> {
    let fresh: TeamApprovalRecord[];
    try {
      fresh = await this.approvals.pendingForMe();
    } catch (error) {
      this.options.onError?.(error);
      throw error;
    }
    if (this.disposed) return fresh;
    const added = fresh.filter((record) => !this.seen.has(record.id));
    for (const record of added) this.seen.add(record.id);
    const changed =
      added.length > 0 ||
      fresh.length !== this.list.length ||
      fresh.some((record, index) => record.id !== this.list[index]?.id);
    this.list = fresh;
    if (changed)
      for (const listener of [...this.listeners]) {
        try {
          listener(fresh, added);
        } catch {
          // A listener's failure is its own.
        }
      }
    return fresh;
  }
}
