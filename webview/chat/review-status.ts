/**
 * Where the review of each turn's edits stands, for the chat's list of changed files: the same
 * fold of the conversation's events the host uses (ReviewState), reduced to what a line of the
 * list says — "2 to review", "kept", "1 kept · 1 undone", "deleted".
 */
import { isReviewEvent, ReviewState, type AgentEvent, type FileReview } from '../../src/protocol/events';

export interface FileReviewStatus {
  path: string;
  pending: number;
  kept: number;
  undone: number;
  /** Undoing the agent's hunk deleted the file it had created. */
  deleted: boolean;
  /** Why it cannot be reviewed hunk by hunk. */
  unreviewable?: string;
}

export class ReviewStatus {
  private readonly state = new ReviewState();

  reset(): void {
    this.state.clear();
  }

  /** Folds an event in; returns the turns whose files changed status. */
  apply(event: AgentEvent): number[] {
    if (!isReviewEvent(event) || !this.state.apply(event)) return [];
    if (event.type === 'review_note') return [...new Set(event.hunks.map((hunk) => hunk.turn))];
    return [event.turn];
  }

  /** The status of each file of a turn (none once the turn was reverted). */
  files(turn: number): FileReviewStatus[] {
    return this.state
      .turn(turn)
      .filter((file) => !file.closed)
      .map((file) => status(file));
  }
}

function status(file: FileReview): FileReviewStatus {
  const count = (state: string) => file.hunks.filter((hunk) => hunk.state === state).length;
  return {
    path: file.path,
    pending: count('pending'),
    kept: count('kept'),
    undone: count('undone'),
    deleted: file.deleted,
    ...(file.unreviewable ? { unreviewable: file.unreviewable } : {}),
  };
}

/** What a file's line says about its review. */
export function reviewText(status: FileReviewStatus): string {
  if (status.unreviewable) return `not reviewable hunk by hunk: ${status.unreviewable}`;
  if (status.deleted) return 'undone (deleted)';
  const parts: string[] = [];
  if (status.pending) parts.push(`${status.pending} to review`);
  if (status.kept) parts.push(status.pending || status.undone ? `${status.kept} kept` : 'kept');
  if (status.undone) parts.push(status.pending || status.kept ? `${status.undone} undone` : 'undone');
  return parts.join(' · ');
}
