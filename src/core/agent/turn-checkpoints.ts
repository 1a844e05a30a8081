/**
 * Checkpoints as a conversation sees them: a turn starts with each prompt; when a run ends, the
 * files the turn changed are reported (`files_changed`, which the chat shows with "Revert This
 * Turn") with their hunks to review (`review_hunks`); a revert is reported (`turn_reverted`) and
 * the model is told at the top of its next turn, so it does not build on edits that are gone.
 */
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import type { Checkpoints, RevertPlan } from '../workspace/checkpoints';
import type { AgentEvent, AgentEventBody } from '../events/events';
import { reviewTurn } from '../review/turn-review';

type Report = (body: Extract<AgentEventBody, { type: 'files_changed' | 'turn_reverted' | 'review_hunks' }>) => void;

export type RevertOutcome =
  | { status: 'reverted'; restored: string[]; deleted: string[]; failed: Array<{ path: string; reason: string }> }
  | { status: 'nothing_to_revert' }
  | { status: 'cancelled' };

/** The highest turn number in a conversation's events (a reopened one numbers its turns on from there). */
export function lastTurn(events: readonly AgentEvent[]): number {
  let last = 0;
  for (const event of events)
    if (event.type === 'files_changed' || event.type === 'turn_reverted' || event.type === 'review_hunks')
      last = Math.max(last, event.turn);
  return last;
}

export class TurnCheckpoints {
  /** What was last reported per turn, so a redirected run reports only when something changed. */
  private readonly reported = new Map<number, string>();
  /** The same for the current turn's hunks (a digest: they can be large). */
  private reviewed: { turn: number; digest: string } | undefined;
  private notes: string[] = [];

  constructor(
    /** The turns' before-images (a rewind plans and restores several turns at once with them). */
    readonly checkpoints: Checkpoints,
    private readonly report: Report,
  ) {}

  beginTurn(): void {
    this.checkpoints.beginTurn();
  }

  /** Feed every event of the conversation: the end of a run reports the turn's changes. */
  observe(event: AgentEvent): void {
    if (event.type !== 'done' && event.type !== 'interrupted' && event.type !== 'error') return;
    const turn = this.checkpoints.currentTurn;
    const files = this.checkpoints.changes(turn).map((file) => ({ ...file, path: this.relative(file.path) }));
    const key = JSON.stringify(files);
    if (files.length === 0) return;
    if (this.reported.get(turn) !== key) {
      this.reported.set(turn, key);
      this.report({ type: 'files_changed', turn, files });
    }
    const review = reviewTurn(
      this.checkpoints.edits(turn).map((edit) => ({ ...edit, path: this.relative(edit.path) })),
    );
    const digest = createHash('sha256').update(JSON.stringify(review)).digest('hex');
    if (this.reviewed?.turn === turn && this.reviewed.digest === digest) return;
    this.reviewed = { turn, digest };
    this.report({ type: 'review_hunks', turn, files: review });
  }

  /**
   * Reverts `turn` (default: the newest turn with changes). `confirm` is asked when files were
   * changed again since the turn wrote them; answering no cancels.
   */
  async revert(turn?: number, confirm?: (plan: RevertPlan) => Promise<boolean>): Promise<RevertOutcome> {
    const target = turn ?? this.checkpoints.latestTurn();
    const plan = target === undefined ? undefined : await this.checkpoints.plan(target);
    if (!plan) return { status: 'nothing_to_revert' };
    if (plan.conflicts.length > 0 && !(await (confirm?.(plan) ?? Promise.resolve(false))))
      return { status: 'cancelled' };
    const result = await this.checkpoints.revert(plan.turn);
    const shown = {
      restored: result.restored.map((file) => this.relative(file)),
      deleted: result.deleted.map((file) => this.relative(file)),
      failed: result.failed.map((failure) => ({ ...failure, path: this.relative(failure.path) })),
    };
    this.report({ type: 'turn_reverted', turn: plan.turn, ...shown });
    this.notes.push(describeRevert(plan.files.length, shown));
    return { status: 'reverted', ...shown };
  }

  /** A file as `turn` found it (see Checkpoints.beforeText), by its workspace-relative path. */
  before(turn: number, relativePath: string): { absolute: string; text: string | null } | undefined {
    const absolute = path.resolve(this.checkpoints.root, relativePath);
    if (path.relative(this.checkpoints.root, absolute).startsWith('..')) return undefined;
    const text = this.checkpoints.beforeText(turn, absolute);
    return text === undefined ? undefined : { absolute, text };
  }

  /** Paths as the user and the model see them: relative to the workspace folder. */
  private relative(absolute: string): string {
    return path.relative(this.checkpoints.root, absolute).split(path.sep).join('/');
  }

  /** An inbox for the loop: what the user reverted since the model last looked. */
  readonly drainNotes = (): string[] => {
    const notes = this.notes;
    this.notes = [];
    return notes;
  };
}

function describeRevert(
  count: number,
  result: { restored: string[]; deleted: string[]; failed: Array<{ path: string; reason: string }> },
): string {
  const lines = [`[The user reverted your file changes of an earlier turn (${count} files).]`];
  if (result.restored.length) lines.push(`Restored to how they were before: ${result.restored.join(', ')}`);
  if (result.deleted.length) lines.push(`Deleted (you had created them): ${result.deleted.join(', ')}`);
  for (const failed of result.failed) lines.push(`Could not restore ${failed.path}: ${failed.reason}`);
  lines.push('Read files again before editing them.');
  return lines.join('\n');
}
