/**
 * The user's review of the agent's edits, hunk by hunk: keep or undo one hunk, a file's or a
 * turn's. The state is folded from the conversation's events (review-state.ts); every decision
 * is an event too, so it is kept with the conversation and comes back after a reload. An undo
 * changes a file only where the hunk's lines are still exactly as the agent left them, as one
 * edit the user can undo again (the host's ReviewedFiles: a WorkspaceEdit in VS Code). What was
 * undone is told to the model at the top of its next turn, and recorded (review_note) so a
 * reopened conversation gives the model the same history.
 */
import * as path from 'node:path';
import type { AgentEvent, AgentEventBody } from '../events/events';
import type { Inbox } from '../events/inbox';
import { splitLines } from '../text/line-diff';
import { placeHunks, replaceLines, type LineReplacement, type PlacementRequest } from './hunks';
import { undoneNote, type UndoneHunk } from './review-note';
import { isReviewEvent, ReviewState, type FileReview, type ReviewedHunk } from './review-state';

/** The files under review as the user sees them (host: open documents and WorkspaceEdit). */
export interface ReviewedFiles {
  /** The text as the user sees it now (an editor's unsaved text too); undefined when the file does not exist. */
  read(absolute: string): Promise<string | undefined>;
  /** Replaces the text, which must still be `expected`, with `text` in one edit the user can undo; false when it changed meanwhile. */
  replace(absolute: string, expected: string, text: string): Promise<boolean>;
  /** Deletes the file, whose text must still be `expected` (undoably where the host can); false when it changed meanwhile. */
  delete(absolute: string, expected: string): Promise<boolean>;
}

/** What the review needs of the conversation session. */
export interface ReviewSession {
  readonly history: readonly AgentEvent[];
  readonly isRunning: boolean;
  onEvent(listener: (event: AgentEvent) => void): () => void;
  onReset(listener: () => void): () => void;
  /** Records an event in the conversation on screen; false when there is none. */
  report(body: Extract<AgentEventBody, { type: 'review_decision' | 'review_note' }>): boolean;
  addInbox(inbox: Inbox): void;
}

/** Which hunks: those named of one file, a file's (of one turn or all), a turn's, or all pending ones. */
export interface ReviewTarget {
  turn?: number;
  path?: string;
  hunks?: readonly number[];
}

export interface ReviewOutcome {
  status: 'done' | 'busy' | 'nothing';
  kept: number;
  undone: number;
  /** Hunks left as they are, with why. */
  refused: Array<{ path: string; count: number; reason: string }>;
}

/** A pending hunk and where it is in a file's text (undefined: its lines are no longer as the agent left them). */
export interface HunkPlace {
  turn: number;
  path: string;
  hunk: ReviewedHunk;
  /** 0-based line where the agent's lines start. */
  line: number | undefined;
}

type Item = { file: FileReview; hunk: ReviewedHunk };

const CHANGED_SINCE = 'its lines are no longer as the agent left them (changed by you or a later turn)';

export class EditReview {
  readonly state = new ReviewState();
  private readonly listeners = new Set<() => void>();
  private readonly unsubscribe: Array<() => void>;
  /** Reviews run one after the other (a double click must not undo against a stale text). */
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly deps: { session: ReviewSession; files: ReviewedFiles; root: () => string | undefined }) {
    const { session } = deps;
    for (const event of session.history) this.state.apply(event);
    this.unsubscribe = [
      session.onEvent((event) => {
        if (isReviewEvent(event) && this.state.apply(event)) this.notify();
      }),
      session.onReset(() => {
        this.state.clear();
        this.notify();
      }),
    ];
    session.addInbox(this.drain);
  }

  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    for (const unsubscribe of this.unsubscribe) unsubscribe();
    this.listeners.clear();
  }

  /** Files with hunks still to keep or undo, oldest turn first. */
  pendingFiles(): FileReview[] {
    return this.state.all().filter((file) => ReviewState.pending(file).length > 0);
  }

  /** Where each pending hunk of `relativePath` is in `text` (the file as the editor shows it). */
  place(relativePath: string, text: string): HunkPlace[] {
    const items = this.pendingOf(relativePath);
    // Every visible editor asks at every pause in typing: nothing to split for most of them.
    if (items.length === 0) return [];
    const lines = splitLines(text);
    const placed = placeHunks(
      lines,
      items.map((item) => this.request(item, 'added')),
    );
    return items.map((item, index) => ({
      turn: item.file.turn,
      path: relativePath,
      hunk: item.hunk,
      line: placed[index],
    }));
  }

  /** Whether `relativePath` has undone hunks the model has not been told of (an editor's Ctrl+Z may bring them back). */
  hasUntold(relativePath: string): boolean {
    return this.untold().some((item) => item.file.path === relativePath);
  }

  /**
   * The file with `turn`'s changes taken out, rebuilt from its hunks over the file now — for
   * "Open Diff" once the turn's checkpoint is gone (after a reload). Null for a file the turn
   * created; undefined when one of its hunks is no longer as the agent left it.
   */
  async beforeText(turn: number, relativePath: string): Promise<{ absolute: string; text: string | null } | undefined> {
    const file = this.state.file(turn, relativePath);
    const absolute = this.absolute(relativePath);
    if (!file || file.closed || file.unreviewable || !absolute) return undefined;
    if (file.change === 'created') return { absolute, text: null };
    const text = await this.deps.files.read(absolute);
    if (text === undefined) return undefined;
    // Undone hunks are already back as they were.
    const items = file.hunks.filter((hunk) => hunk.state !== 'undone').map((hunk) => ({ file, hunk }));
    const placed = placeHunks(
      splitLines(text),
      items.map((item) => this.request(item, 'added')),
    );
    if (placed.some((at) => at === undefined)) return undefined;
    const replacements = items.map((item, index) => ({
      at: placed[index]!,
      count: item.hunk.added.length,
      lines: item.hunk.removed,
    }));
    return { absolute, text: replaceLines(text, replacements) };
  }

  keep(target: ReviewTarget): Promise<ReviewOutcome> {
    return this.serially(async () => {
      const selected = this.select(target);
      if (selected.length === 0) return outcome('nothing');
      this.decide(selected, 'kept');
      return { ...outcome('done'), kept: selected.length };
    });
  }

  /** Undoes the target's pending hunks where their lines are as the agent left them. Not while the agent works. */
  undo(target: ReviewTarget): Promise<ReviewOutcome> {
    return this.serially(async () => {
      if (this.deps.session.isRunning) return outcome('busy');
      const selected = this.select(target);
      const result = outcome(selected.length === 0 ? 'nothing' : 'done');
      const paths = [...new Set(selected.map((item) => item.file.path))];
      for (const relativePath of paths) {
        const items = selected.filter((item) => item.file.path === relativePath);
        try {
          await this.undoInFile(relativePath, items, result);
        } catch (error) {
          // A file that cannot be read or written (now binary, no permission): said, nothing else lost.
          const reason = error instanceof Error ? error.message : String(error);
          result.refused.push({ path: relativePath, count: items.length, reason });
        }
      }
      // Files that cannot be reviewed hunk by hunk are named, so the user knows why nothing happened.
      for (const file of this.state.all())
        if (file.unreviewable && !file.closed && matches(file, target) && target.hunks === undefined)
          result.refused.push({ path: file.path, count: 1, reason: `${file.unreviewable}; use Revert This Turn` });
      return result;
    });
  }

  /**
   * Undone hunks the model was not told of yet whose agent lines are back (the user pressed
   * Ctrl+Z after the undo) become pending again, so the model is not told of an undo that is gone.
   */
  recheck(relativePath: string): Promise<void> {
    return this.serially(() => this.recheckFile(relativePath));
  }

  /** The loop's inbox: what the user undid since the model last heard, said once and recorded. */
  readonly drain = (): Promise<string[]> =>
    this.serially(async () => {
      for (const relativePath of new Set(this.untold().map((item) => item.file.path)))
        await this.recheckFile(relativePath);
      const untold = this.untold();
      if (untold.length === 0) return [];
      const text = undoneNote(
        untold.map((item): UndoneHunk => ({ path: item.file.path, hunk: item.hunk, deleted: item.file.deleted })),
      );
      this.deps.session.report({
        type: 'review_note',
        text,
        hunks: untold.map((item) => ({ turn: item.file.turn, path: item.file.path, hunk: item.hunk.index })),
      });
      return [text];
    });

  private async undoInFile(relativePath: string, items: Item[], result: ReviewOutcome): Promise<void> {
    const refuse = (count: number, reason: string) => {
      if (count > 0) result.refused.push({ path: relativePath, count, reason });
    };
    const absolute = this.absolute(relativePath);
    if (!absolute) return refuse(items.length, 'it is outside the workspace folder');
    const original = await this.deps.files.read(absolute);
    if (original === undefined) return refuse(items.length, 'the file no longer exists');
    let text = original;
    const undone: Array<{ item: Item; line: number }> = [];
    let deletes = false;
    // Newest turn first: a later turn's hunk may sit on lines an earlier turn wrote.
    const turns = [...new Set(items.map((item) => item.file.turn))].sort((a, b) => b - a);
    for (const turn of turns) {
      const targets = items.filter((item) => item.file.turn === turn);
      // Every pending hunk of the file is placed, so a target never takes lines another one has.
      const done = new Set(undone.map((entry) => entry.item.hunk));
      const others = this.pendingOf(relativePath).filter(
        (item) => !done.has(item.hunk) && !targets.some((target) => target.hunk === item.hunk),
      );
      const lines = splitLines(text);
      const placed = placeHunks(
        lines,
        [...targets, ...others].map((item) => this.request(item, 'added', undone)),
      );
      const replacements: Array<LineReplacement & { item: Item }> = [];
      targets.forEach((item, index) => {
        const at = placed[index];
        if (at === undefined) return refuse(1, CHANGED_SINCE);
        if (isCreation(item)) deletes = true;
        replacements.push({ at, count: item.hunk.added.length, lines: item.hunk.removed, item });
      });
      // Lines already put back move with the replacements above them.
      for (const entry of undone) entry.line += shiftAbove(replacements, entry.line);
      for (const replacement of replacements)
        undone.push({ item: replacement.item, line: replacement.at + shiftAbove(replacements, replacement.at) });
      text = replaceLines(text, replacements);
    }
    if (undone.length === 0) return;
    const applied = deletes
      ? await this.deps.files.delete(absolute, original)
      : await this.deps.files.replace(absolute, original, text);
    if (!applied) return refuse(undone.length, 'the file changed while it was being undone; nothing was changed');
    for (const turn of turns) {
      const entries = undone.filter((entry) => entry.item.file.turn === turn);
      if (entries.length === 0) continue;
      this.deps.session.report({
        type: 'review_decision',
        turn,
        path: relativePath,
        hunks: entries.map((entry) => entry.item.hunk.index),
        decision: 'undone',
        lines: entries.map((entry) => entry.line + 1),
        ...(deletes ? { deleted: true } : {}),
      });
    }
    result.undone += undone.length;
  }

  private async recheckFile(relativePath: string): Promise<void> {
    const items = this.untold().filter((item) => item.file.path === relativePath);
    const absolute = this.absolute(relativePath);
    if (items.length === 0 || !absolute) return;
    const text = await this.deps.files.read(absolute);
    const lines = text === undefined ? undefined : splitLines(text);
    const back = items.filter((item) => {
      if (!lines) return false;
      const expected = (item.hunk.undoneAt ?? item.hunk.afterLine + 1) - 1;
      const [restored] = placeHunks(lines, [{ hunk: item.hunk, side: 'removed', expected }]);
      if (restored !== undefined && !item.file.deleted) return false;
      const [agents] = placeHunks(lines, [{ hunk: item.hunk, side: 'added', expected }]);
      return agents !== undefined;
    });
    this.decide(back, 'reopened');
  }

  /** Records a decision on hunks, one event per file. */
  private decide(items: readonly Item[], decision: 'kept' | 'reopened'): void {
    for (const [file, hunks] of byFile(items))
      this.deps.session.report({
        type: 'review_decision',
        turn: file.turn,
        path: file.path,
        hunks: hunks.map((hunk) => hunk.index),
        decision,
      });
  }

  /** Where a hunk is expected: where the turn left it, moved by the hunks of its file undone above it. */
  private request(
    item: Item,
    side: PlacementRequest['side'],
    alsoUndone: ReadonlyArray<{ item: Item }> = [],
  ): PlacementRequest {
    const undoneNow = new Set(alsoUndone.map((entry) => entry.item.hunk));
    let expected = item.hunk.afterLine;
    for (const other of item.file.hunks)
      if (other.afterLine < item.hunk.afterLine && (other.state === 'undone' || undoneNow.has(other)))
        expected += other.removed.length - other.added.length;
    return { hunk: item.hunk, side, expected: Math.max(0, expected) };
  }

  private select(target: ReviewTarget): Item[] {
    // Hunks are numbered per file of a turn: naming them means naming both.
    if (target.hunks && (target.turn === undefined || target.path === undefined)) return [];
    return this.state
      .all()
      .filter((file) => matches(file, target))
      .flatMap((file) =>
        ReviewState.pending(file)
          .filter((hunk) => !target.hunks || target.hunks.includes(hunk.index))
          .map((hunk) => ({ file, hunk })),
      );
  }

  private pendingOf(relativePath: string): Item[] {
    return this.select({ path: relativePath });
  }

  private untold(): Item[] {
    return this.state
      .all()
      .filter((file) => !file.closed)
      .flatMap((file) =>
        file.hunks.filter((hunk) => hunk.state === 'undone' && !hunk.told).map((hunk) => ({ file, hunk })),
      );
  }

  /** The absolute path of a reviewed file; undefined for one outside the workspace (a tampered store). */
  private absolute(relativePath: string): string | undefined {
    const root = this.deps.root();
    if (!root || path.isAbsolute(relativePath)) return undefined;
    const absolute = path.resolve(root, relativePath);
    const inside = path.relative(root, absolute);
    return inside && !inside.startsWith('..') && !path.isAbsolute(inside) ? absolute : undefined;
  }

  private serially<Result>(work: () => Promise<Result>): Promise<Result> {
    const run = this.queue.then(work, work);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private notify(): void {
    for (const listener of this.listeners) listener();
  }
}

function outcome(status: ReviewOutcome['status']): ReviewOutcome {
  return { status, kept: 0, undone: 0, refused: [] };
}

function matches(file: FileReview, target: ReviewTarget): boolean {
  return (
    (target.turn === undefined || file.turn === target.turn) && (target.path === undefined || file.path === target.path)
  );
}

/** The only hunk of a file the agent created: undoing it deletes the file. */
function isCreation(item: Item): boolean {
  return item.file.change === 'created' && item.hunk.removed.length === 0 && item.hunk.atStart && item.hunk.atEnd;
}

/** How far the lines at `line` move with the replacements wholly above them. */
function shiftAbove(replacements: readonly LineReplacement[], line: number): number {
  let shift = 0;
  for (const replacement of replacements)
    if (replacement.at + replacement.count <= line && replacement.at < line)
      shift += replacement.lines.length - replacement.count;
  return shift;
}

function byFile(items: readonly Item[]): Map<FileReview, ReviewedHunk[]> {
  const files = new Map<FileReview, ReviewedHunk[]>();
  for (const item of items) files.set(item.file, [...(files.get(item.file) ?? []), item.hunk]);
  return files;
}
