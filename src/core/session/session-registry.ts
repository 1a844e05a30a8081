/**
 * The sessions of one window (SPEC 5b): the window's own, working in the workspace, and every
 * session the user started in a worktree. Each is a ConversationSession composed for its place
 * (the host's `compose`), so several run at once, each with its own files, shell, sandbox and
 * checkpoints. One is shown — in the chat, the developer panel and the palette's commands —
 * and the list says of each where it works, its state, the files it changed and its cost.
 *
 * The sessions beside the window's own are kept (the host's per-window storage) and come back after a reload
 * or a crash: each reopens its conversation, so a run the window closed on shows as stopped and
 * can be continued. A kept session whose worktree folder is gone comes back too, marked so, for
 * the user to keep its branch or discard it: nothing a session wrote is dropped silently.
 */
import { z } from 'zod';
import type { ConversationSession } from './conversation-session';
import type { ChatKeeping } from './chat-keeper';
import { SessionTally, type SessionSummary } from './session-summary';
import type { WorkPlace } from './work-place';

/** The most sessions a window keeps (a list longer than this is a runaway, not a workflow). */
export const MAX_SESSIONS = 50;
/** A run of a session ended: what its worktree holds may have changed. */
const RUN_ENDS = new Set(['done', 'interrupted', 'error']);
/** The longest session name kept (names are shown in notifications and the list). */
export const MAX_SESSION_NAME = 80;

export interface SessionEntry {
  readonly id: string;
  readonly name: string;
  readonly place: WorkPlace;
  readonly session: ConversationSession;
}

export interface SessionView extends SessionSummary {
  id: string;
  name: string;
  place: WorkPlace;
  shown: boolean;
  /** The worktree folder is gone (deleted or moved by hand): the session cannot run there. */
  missing: boolean;
}

export interface SessionRegistryDeps {
  /** Composes a session working at `place`, named `name` (its approvals say so). */
  compose(place: WorkPlace, name: string): ConversationSession;
  /** Where the list is kept for the next window; without it, worktree sessions do not come back. */
  keeping?: ChatKeeping;
  /** The window's folder: a kept list of another folder's is not this window's. */
  workspace: string;
  /** Whether a worktree folder is still there. */
  exists(root: string): Promise<boolean>;
  newId(): string;
  onKeepError?: (error: unknown) => void;
  /**
   * How many files a worktree session's branch changed against its base, as Review lists them
   * (commands' writes included, which the conversation's checkpoints do not see); undefined when
   * git cannot tell. Asked when a run of the session ends and when the list comes back.
   */
  countChanges?(place: Extract<WorkPlace, { kind: 'worktree' }>): Promise<number | undefined>;
}

const placeSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('workspace'), root: z.string().max(4_096).optional() }),
  z
    .object({
      kind: z.literal('worktree'),
      root: z.string().min(1).max(4_096),
      worktree: z.object({
        name: z.string().max(MAX_SESSION_NAME * 4),
        root: z.string().min(1).max(4_096),
        branch: z.string().startsWith('openagent/').max(300),
        base: z.object({ commit: z.string().min(1).max(100), branch: z.string().max(300).optional() }),
        gitDir: z.string().min(1).max(4_096),
        worktreeGitDir: z.string().min(1).max(4_096),
        workspaceRoot: z.string().min(1).max(4_096),
      }),
    })
    .refine((place) => place.root === place.worktree.root),
]);
const keptSchema = z.object({
  version: z.literal(1),
  workspace: z.string().max(4_096),
  shown: z.string().max(200).optional(),
  sessions: z
    .array(
      z.object({
        id: z.string().min(1).max(200),
        name: z.string().min(1).max(MAX_SESSION_NAME),
        place: placeSchema,
        conversationId: z.string().min(1).max(200).optional(),
      }),
    )
    .max(MAX_SESSIONS),
});
type Kept = z.infer<typeof keptSchema>;

interface Tracked extends SessionEntry {
  tally: SessionTally;
  missing: boolean;
  /** A worktree's changed files as git counts them (see countChanges). */
  gitFiles?: number;
  stop(): void;
}

export class SessionRegistry {
  private readonly entries: Tracked[] = [];
  private shownId: string;
  private readonly listeners = new Set<() => void>();
  private readonly showListeners = new Set<(entry: SessionEntry) => void>();
  private restoring: Promise<void> | undefined;
  /** Nothing is written before the kept list has been read back: it would be overwritten. */
  private restored = false;
  private lastKept: string | undefined;
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly deps: SessionRegistryDeps,
    /** The window's own session, in the workspace: always first, never removed. */
    here: { session: ConversationSession; name?: string; root: string | undefined },
  ) {
    const first = this.track('here', here.name ?? 'Workspace', { kind: 'workspace', root: here.root }, here.session);
    this.shownId = first.id;
  }

  /** Every session, the window's own first, with what the list shows. */
  list(): SessionView[] {
    return this.entries.map((entry) => ({
      ...entry.tally.summary,
      ...(entry.gitFiles !== undefined
        ? { filesChanged: Math.max(entry.gitFiles, entry.tally.summary.filesChanged) }
        : {}),
      id: entry.id,
      name: entry.name,
      place: entry.place,
      shown: entry.id === this.shownId,
      missing: entry.missing,
    }));
  }

  get(id: string): SessionEntry | undefined {
    return this.entries.find((entry) => entry.id === id);
  }

  get shown(): SessionEntry {
    return this.get(this.shownId) ?? this.entries[0]!;
  }

  /** How many sessions run now, and how many wait for the user (an approval). */
  counts(): { running: number; waiting: number } {
    let running = 0;
    let waiting = 0;
    for (const entry of this.entries) {
      const { state } = entry.tally.summary;
      if (state === 'running') running++;
      if (state === 'waiting') waiting++;
    }
    return { running, waiting };
  }

  /** The list changed: a session added, removed, shown, or one's state, files or cost. */
  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Another session is shown: the chat and the panel follow it. */
  onDidShow(listener: (entry: SessionEntry) => void): () => void {
    this.showListeners.add(listener);
    return () => this.showListeners.delete(listener);
  }

  /** A new session working at `place`; not shown until `show`. Names are trimmed and cut to length. */
  create(name: string, place: WorkPlace): SessionEntry {
    if (this.entries.length >= MAX_SESSIONS)
      throw new Error(`This window has ${MAX_SESSIONS} sessions: finish or discard some first.`);
    const entry = this.track(this.deps.newId(), cleanName(name), place, this.deps.compose(place, cleanName(name)));
    this.changed();
    return entry;
  }

  show(id: string): SessionEntry {
    const entry = this.get(id);
    if (!entry) throw new Error(`There is no session ${id} in this window.`);
    if (this.shownId !== id) {
      this.shownId = id;
      for (const listener of this.showListeners) listener(entry);
      this.changed();
    }
    return entry;
  }

  /**
   * Ends a worktree session (after Apply, Keep Branch or Discard): its run is stopped and its
   * parts disposed; its conversation stays in the history. The window's own cannot be removed.
   */
  async remove(id: string): Promise<void> {
    const index = this.entries.findIndex((entry) => entry.id === id);
    if (index <= 0) return;
    const [entry] = this.entries.splice(index, 1);
    if (this.shownId === id) this.show(this.entries[0]!.id);
    entry!.stop();
    await entry!.session.dispose();
    this.changed();
  }

  /** Brings back the kept worktree sessions, once (later calls wait for the first); never rejects. */
  restore(): Promise<void> {
    return (this.restoring ??= this.load()
      .catch((error: unknown) => this.deps.onKeepError?.(error))
      .finally(() => {
        this.restored = true;
        this.changed();
      }));
  }

  /** Resolves when the list as it is now has been kept. */
  async flush(): Promise<void> {
    let last: Promise<void> | undefined;
    while (last !== this.writing) {
      last = this.writing;
      await last;
    }
  }

  async dispose(): Promise<void> {
    for (const entry of this.entries.splice(1)) {
      entry.stop();
      await entry.session.dispose();
    }
    this.entries[0]?.stop();
  }

  private async load(): Promise<void> {
    const kept = await this.read();
    if (!kept || kept.workspace !== this.deps.workspace) return;
    for (const saved of kept.sessions) {
      if (this.get(saved.id) || this.entries.length >= MAX_SESSIONS) continue;
      // A session "here" works in this window's folder, whatever was kept.
      const place: WorkPlace =
        saved.place.kind === 'worktree' ? saved.place : { kind: 'workspace', root: this.entries[0]!.place.root };
      const entry = this.track(saved.id, saved.name, place, this.deps.compose(place, saved.name));
      if (place.kind === 'worktree') entry.missing = !(await this.deps.exists(place.root).catch(() => false));
      if (saved.conversationId) await entry.session.open(saved.conversationId).catch(() => false);
      entry.tally = new SessionTally(entry.session.history);
      if (!entry.missing) this.countChanges(entry);
    }
    if (kept.shown && this.get(kept.shown)) this.show(kept.shown);
  }

  private async read(): Promise<Kept | undefined> {
    try {
      const text = await this.deps.keeping?.read();
      if (text === undefined || text.length > 1_000_000) return undefined;
      const parsed = keptSchema.safeParse(JSON.parse(text));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  private track(id: string, name: string, place: WorkPlace, session: ConversationSession): Tracked {
    const stops = [
      session.onEvent((event) => {
        const before = JSON.stringify(entry.tally.summary);
        entry.tally.add(event);
        // Streaming fires per token: the list changes only when what it shows does.
        if (JSON.stringify(entry.tally.summary) !== before || event.type === 'user_message') this.changed();
        if (RUN_ENDS.has(event.type) && event.agentId === 'lead') this.countChanges(entry);
      }),
      session.onReset(() => {
        entry.tally = new SessionTally();
        this.changed();
      }),
    ];
    const entry: Tracked = {
      id,
      name,
      place,
      session,
      tally: new SessionTally(session.history),
      missing: false,
      stop: () => stops.forEach((stop) => stop()),
    };
    this.entries.push(entry);
    return entry;
  }

  /** Asks git how many files a worktree session changed; the list changes when the count does. */
  private countChanges(entry: Tracked): void {
    const place = entry.place;
    if (place.kind !== 'worktree' || !this.deps.countChanges) return;
    this.deps.countChanges(place).then(
      (count) => {
        if (count === undefined || count === entry.gitFiles || !this.entries.includes(entry)) return;
        entry.gitFiles = count;
        this.changed();
      },
      () => undefined,
    );
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
    this.keep();
  }

  /** Writes the list (in order: a later write never lands before an earlier one). */
  private keep(): void {
    const keeping = this.deps.keeping;
    if (!keeping || !this.restored) return;
    const kept: Kept = {
      version: 1,
      workspace: this.deps.workspace,
      shown: this.shownId,
      sessions: this.entries.slice(1).map((entry) => ({
        id: entry.id,
        name: entry.name,
        place: entry.place,
        ...(entry.session.currentId ? { conversationId: entry.session.currentId } : {}),
      })),
    };
    const text = JSON.stringify(kept);
    if (text === this.lastKept) return;
    this.lastKept = text;
    this.writing = this.writing
      .then(() => keeping.write(text))
      .catch((error: unknown) => this.deps.onKeepError?.(error));
  }
}

/** A session's name as shown: one line of visible characters, never empty, at most MAX_SESSION_NAME. */
export function cleanName(name: string): string {
  // Control and format characters (newlines, bidi overrides, zero-width) would forge or hide text.
  const visible = name
    .replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return [...(visible || 'Session')].slice(0, MAX_SESSION_NAME).join('');
}
