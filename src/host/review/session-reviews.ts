/**
 * The review of each session's own edits (issue 33): every session is composed with its own
 * EditReview over the files of its own folder — the workspace, or its git worktree — and the
 * editor's Keep / Undo reach the review of the session that made the hunk. A file belongs to the
 * session whose folder holds it: a worktree file to its worktree session (an undo writes there,
 * never in the workspace), a workspace file to the shown session when it works in the workspace,
 * else to a workspace session that has hunks of it to review.
 *
 * No `vscode` here: the routing is plain paths, so it is tested on real files without an editor.
 */
import * as path from 'node:path';
import type { EditReview, ReviewOutcome, ReviewTarget } from '../../core/review/edit-review';
import type { ConversationSession } from '../../core/session/conversation-session';
import type { SessionRegistry } from '../../core/session/session-registry';

/** A session with its review. */
export interface ReviewedSession {
  readonly id: string;
  readonly name: string;
  readonly review: EditReview;
  /** Its folder as it is now (undefined: a window without a folder). */
  root(): string | undefined;
}

/** A target of a lens or a menu: which hunks, and of which session (the shown one when none). */
export interface SessionReviewTarget extends ReviewTarget {
  session?: string;
}

/** A file of a session's review: the session and the file's path as its review names it. */
export interface ReviewedFile {
  session: ReviewedSession;
  /** Relative to the session's folder, with "/". */
  relative: string;
}

/** Where the sessions come from: the window's list. */
export interface ReviewedSessionSource {
  list(): ReviewedSession[];
  shownId(): string | undefined;
  /** The list changed (a session added, removed or shown). */
  onDidChange(listener: () => void): () => void;
}

export class SessionReviews {
  private readonly listeners = new Set<() => void>();
  /** Each listed review's subscription, so a review's change reaches the editor. */
  private readonly watched = new Map<EditReview, () => void>();
  private lastKey = '';
  private readonly stopSource: () => void;

  constructor(private readonly source: ReviewedSessionSource) {
    this.reconcile();
    this.stopSource = source.onDidChange(() => {
      // The registry changes with every state of a run: only a new list or shown session counts.
      if (this.reconcile()) this.fire();
    });
  }

  list(): ReviewedSession[] {
    return this.source.list();
  }

  byId(id: string): ReviewedSession | undefined {
    return this.source.list().find((session) => session.id === id);
  }

  /** The session the chat shows. */
  shown(): ReviewedSession | undefined {
    const id = this.source.shownId();
    return (id === undefined ? undefined : this.byId(id)) ?? this.source.list()[0];
  }

  /** The session a target names, else the shown one; undefined for a session that has ended. */
  of(target: SessionReviewTarget | undefined): ReviewedSession | undefined {
    return target?.session === undefined ? this.shown() : this.byId(target.session);
  }

  /**
   * Keeps or undoes the target's hunks in its session's review (the shown session's when it names
   * none); undefined when that session has ended (a lens left on screen acts on nothing).
   */
  async decide(action: 'keep' | 'undo', target: SessionReviewTarget): Promise<ReviewOutcome | undefined> {
    const session = this.of(target);
    if (!session) return undefined;
    const { session: _session, ...hunks } = target;
    return action === 'keep' ? session.review.keep(hunks) : session.review.undo(hunks);
  }

  /**
   * The session whose review a file on disk belongs to, and its path there: the deepest folder
   * that holds it; among sessions of the same folder, the shown one, else one with hunks of it.
   */
  ownerOf(absolute: string): ReviewedFile | undefined {
    const holding = this.list().flatMap((session) => {
      const relative = relativeInside(session.root(), absolute);
      return relative === undefined ? [] : [{ session, relative, depth: session.root()!.length }];
    });
    if (holding.length === 0) return undefined;
    const deepest = Math.max(...holding.map((item) => item.depth));
    const candidates = holding.filter((item) => item.depth === deepest);
    const shownId = this.shown()?.id;
    const chosen =
      candidates.find((item) => item.session.id === shownId) ??
      candidates.find((item) => item.session.review.pendingFiles().some((file) => file.path === item.relative)) ??
      candidates[0]!;
    return { session: chosen.session, relative: chosen.relative };
  }

  /** A session was added, removed or shown, or a review changed. */
  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    this.stopSource();
    for (const stop of this.watched.values()) stop();
    this.watched.clear();
    this.listeners.clear();
  }

  /** Watches the reviews listed now (and no others); true when the list or the shown one changed. */
  private reconcile(): boolean {
    const sessions = this.source.list();
    const key = JSON.stringify([this.source.shownId(), sessions.map((session) => session.id)]);
    const live = new Set(sessions.map((session) => session.review));
    for (const [review, stop] of this.watched)
      if (!live.has(review)) {
        stop();
        this.watched.delete(review);
      }
    for (const review of live) if (!this.watched.has(review)) this.watched.set(review, review.onDidChange(this.fire));
    const changed = key !== this.lastKey;
    this.lastKey = key;
    return changed;
  }

  private readonly fire = (): void => {
    for (const listener of this.listeners) listener();
  };
}

/** The window's sessions as reviewed sessions: each composed session's review and folder. */
export function sessionReviewsOf(
  registry: Pick<SessionRegistry, 'list' | 'get' | 'onDidChange' | 'shown'>,
  partsOf: (session: ConversationSession) => { review: EditReview; root(): string | undefined } | undefined,
): SessionReviews {
  return new SessionReviews({
    list: () =>
      registry.list().flatMap((view) => {
        const entry = registry.get(view.id);
        const parts = entry && partsOf(entry.session);
        return parts ? [{ id: view.id, name: view.name, review: parts.review, root: () => parts.root() }] : [];
      }),
    shownId: () => registry.shown.id,
    onDidChange: (listener) => registry.onDidChange(listener),
  });
}

/** One review over one folder (a window of one session, a test). */
export function oneSessionReviews(review: EditReview, root: () => string | undefined): SessionReviews {
  const session: ReviewedSession = { id: 'here', name: 'Workspace', review, root };
  return new SessionReviews({ list: () => [session], shownId: () => session.id, onDidChange: () => () => undefined });
}

/** `absolute` relative to `root` with "/", when `root` holds it (not `root` itself). */
export function relativeInside(root: string | undefined, absolute: string): string | undefined {
  if (!root) return undefined;
  const relative = path.relative(root, absolute);
  if (!relative || relative.startsWith('..') || path.isAbsolute(relative)) return undefined;
  return relative.split(path.sep).join('/');
}
