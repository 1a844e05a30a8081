/**
 * The window's review comments and where each is on (issue 36), without the editor: a comment is
 * made on lines of a file of a session's changes; it follows those lines as the file changes
 * (comment-anchors.ts); Send takes a session's waiting comments as one message; once the turn
 * that received them ends they are answered and go; a turn that failed or was stopped gives
 * them back, to send again.
 */
import { linesOf, locateCode, shiftRangeThrough, type LineRange, type TextChange } from './comment-anchors';
import { reviewCommentsMessage, type CommentToSend } from './comment-message';

/** Comments kept at once in a window; past that, a new one is refused with the reason. */
export const MAX_REVIEW_COMMENTS = 1_000;
/** A comment longer than this is refused (the message carries only its first 4,000 characters anyway). */
export const MAX_COMMENT_CHARS = 100_000;

export type CommentState = 'draft' | 'sent' | 'received';

export interface ReviewComment {
  readonly id: number;
  /** The session whose changes it is on: Send goes to it. */
  readonly session: string;
  /** Relative to that session's folder, with "/". */
  readonly path: string;
  readonly absolute: string;
  /** Where it is now (0-based, inclusive). */
  range: LineRange;
  /** The code of its lines when it was made. */
  readonly code: readonly string[];
  body: string;
  outdated: boolean;
  state: CommentState;
}

export interface NewComment {
  session: string;
  path: string;
  absolute: string;
  range: LineRange;
  body: string;
  /** The file's lines now. */
  lines: readonly string[];
}

/** What Send did for one session: the message to submit and which comments it holds. */
export interface Outgoing {
  session: string;
  text: string;
  ids: number[];
  /** Comments of the session left for the next Send (the message was full). */
  left: number;
}

export class CommentBook {
  private readonly comments = new Map<number, ReviewComment>();
  private nextId = 1;
  /** Per session: the message sent and not yet seen as a prompt, then the run that received it. */
  private readonly batches = new Map<string, { text: string; ids: number[]; received: boolean }[]>();
  private readonly listeners = new Set<() => void>();

  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  list(): ReviewComment[] {
    return [...this.comments.values()];
  }

  get(id: number): ReviewComment | undefined {
    return this.comments.get(id);
  }

  /** The comments of a file (by absolute path). */
  of(absolute: string): ReviewComment[] {
    return this.list().filter((comment) => comment.absolute === absolute);
  }

  /** Comments waiting to be sent, of one session or all. */
  drafts(session?: string): ReviewComment[] {
    return this.list().filter(
      (comment) => comment.state === 'draft' && (session === undefined || comment.session === session),
    );
  }

  add(comment: NewComment): ReviewComment | { refused: string } {
    if (this.comments.size >= MAX_REVIEW_COMMENTS)
      return {
        refused: `there are already ${MAX_REVIEW_COMMENTS.toLocaleString('en-US')} review comments, the most OpenAgent keeps; send or delete some first.`,
      };
    if (!comment.body.trim()) return { refused: 'an empty comment says nothing to the agent.' };
    if (comment.body.length > MAX_COMMENT_CHARS)
      return {
        refused: `the comment is ${comment.body.length.toLocaleString('en-US')} characters; at most ${MAX_COMMENT_CHARS.toLocaleString('en-US')} (attach long text in the chat instead).`,
      };
    const code = linesOf(comment.lines, comment.range);
    const made: ReviewComment = {
      id: this.nextId++,
      session: comment.session,
      path: comment.path,
      absolute: comment.absolute,
      range: { startLine: comment.range.startLine, endLine: comment.range.startLine + code.length - 1 },
      code,
      body: comment.body,
      outdated: false,
      state: 'draft',
    };
    this.comments.set(made.id, made);
    this.fire();
    return made;
  }

  remove(id: number): void {
    if (this.comments.delete(id)) this.fire();
  }

  /** A file's document changed: its comments follow their lines, then their code. Returns those that moved or changed state. */
  changed(absolute: string, changes: readonly TextChange[], lines: readonly string[]): ReviewComment[] {
    const moved: ReviewComment[] = [];
    for (const comment of this.of(absolute)) {
      const shifted = shiftRangeThrough(comment.range, changes);
      if (this.place(comment, shifted, lines)) moved.push(comment);
    }
    if (moved.length > 0) this.fire();
    return moved;
  }

  /** A file was read anew (opened, changed on disk): its comments go where their code is. */
  relocate(absolute: string, lines: readonly string[]): ReviewComment[] {
    const moved = this.of(absolute).filter((comment) => this.place(comment, comment.range, lines));
    if (moved.length > 0) this.fire();
    return moved;
  }

  /**
   * The message of each session's waiting comments, with the code they point at now (`read`:
   * the file's lines, undefined when it is gone). The comments become "sent" until `failed`.
   */
  send(read: (absolute: string) => readonly string[] | undefined, session?: string): Outgoing[] {
    const bySession = new Map<string, ReviewComment[]>();
    for (const comment of this.drafts(session)) {
      const list = bySession.get(comment.session) ?? [];
      list.push(comment);
      bySession.set(comment.session, list);
    }
    const outgoing: Outgoing[] = [];
    for (const [id, comments] of bySession) {
      const files = new Map<string, readonly string[] | undefined>();
      const toSend = comments.map((comment): CommentToSend => {
        if (!files.has(comment.absolute)) files.set(comment.absolute, read(comment.absolute));
        const lines = files.get(comment.absolute);
        if (lines) this.place(comment, comment.range, lines);
        const status = !lines ? 'missing' : comment.outdated ? 'outdated' : 'current';
        const code = status === 'current' ? linesOf(lines!, comment.range) : comment.code;
        return { path: comment.path, ...comment.range, body: comment.body, code, status };
      });
      const message = reviewCommentsMessage(toSend);
      const ids = comments.slice(0, message.included).map((comment) => comment.id);
      for (const sentId of ids) this.comments.get(sentId)!.state = 'sent';
      const batches = this.batches.get(id) ?? [];
      batches.push({ text: message.text, ids, received: false });
      this.batches.set(id, batches);
      outgoing.push({ session: id, text: message.text, ids, left: comments.length - ids.length });
    }
    if (outgoing.length > 0) this.fire();
    return outgoing;
  }

  /** The message could not be sent (no model, the queue refused it): its comments wait again. */
  failed(outgoing: Outgoing): void {
    this.drop(outgoing.session, (batch) => batch.text === outgoing.text, 'draft');
  }

  /** A prompt of a session's conversation started: when it is a message of comments, they were received. */
  prompted(session: string, text: string): void {
    const batch = this.batches.get(session)?.find((item) => !item.received && item.text.trim() === text.trim());
    if (!batch) return;
    batch.received = true;
    for (const id of batch.ids) {
      const comment = this.comments.get(id);
      if (comment) comment.state = 'received';
    }
    this.fire();
  }

  /**
   * A run of the session ended: comments it received are answered (done) and go, or wait again.
   * `next`: the queued message the end started (if it is comments, their run is only beginning).
   */
  runEnded(session: string, outcome: 'done' | 'failed' | 'stopped', next?: string): void {
    this.drop(
      session,
      (batch) => batch.received && (next === undefined || batch.text.trim() !== next.trim()),
      outcome === 'done' ? 'answered' : 'draft',
    );
  }

  /** A session's conversation was cleared (New Chat): comments on their way go back to waiting. */
  reset(session: string): void {
    this.drop(session, () => true, 'draft');
  }

  private drop(
    session: string,
    which: (batch: { text: string; received: boolean }) => boolean,
    to: 'draft' | 'answered',
  ): void {
    const batches = this.batches.get(session);
    if (!batches) return;
    const dropped = batches.filter(which);
    if (dropped.length === 0) return;
    this.batches.set(
      session,
      batches.filter((batch) => !dropped.includes(batch)),
    );
    for (const id of dropped.flatMap((batch) => batch.ids)) {
      const comment = this.comments.get(id);
      if (!comment) continue;
      if (to === 'answered') this.comments.delete(id);
      else comment.state = 'draft';
    }
    this.fire();
  }

  /** Puts a comment where its code is, from `range`; true when its place or state changed. */
  private place(comment: ReviewComment, range: LineRange, lines: readonly string[]): boolean {
    const located = locateCode(lines, range, comment.code);
    const changed =
      located.startLine !== comment.range.startLine ||
      located.endLine !== comment.range.endLine ||
      located.outdated !== comment.outdated;
    comment.range = { startLine: located.startLine, endLine: located.endLine };
    comment.outdated = located.outdated;
    return changed;
  }

  private fire(): void {
    for (const listener of this.listeners) listener();
  }
}
