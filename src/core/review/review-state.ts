/**
 * The state of the edit review, folded from a conversation's events — so it is the same live,
 * after a reload (the events come back from the store) and in every surface that folds them
 * (the host's editor decorations, the chat's file list). Per turn and file: its hunks, each
 * pending, kept or undone, and whether the model has been told about an undone one.
 *
 *   pending --keep--> kept
 *   pending --undo--> undone --(the user puts the agent's lines back, before the model is told)--> pending
 *   every hunk of a reverted turn --> closed (Revert This Turn put the whole files back)
 */
import type { AgentEvent } from '../events/events';
import type { Hunk, ReviewedFile } from './hunk-schema';

export type HunkState = 'pending' | 'kept' | 'undone';

export interface ReviewedHunk extends Hunk {
  /** Its index in the file's hunks (what decisions name). */
  index: number;
  state: HunkState;
  /** An undone hunk: the model was told. */
  told: boolean;
  /** An undone hunk: the 1-based line its earlier lines were put back at. */
  undoneAt?: number;
}

export interface FileReview {
  turn: number;
  path: string;
  change: ReviewedFile['change'];
  hunks: ReviewedHunk[];
  /** Why it cannot be reviewed hunk by hunk (too large, written as bytes). */
  unreviewable?: string;
  /** The turn was reverted as a whole: nothing is left to review. */
  closed: boolean;
  /** Undoing the agent's only hunk deleted the file it had created. */
  deleted: boolean;
}

/** The events the review state is folded from. */
export type ReviewEvent = Extract<
  AgentEvent,
  { type: 'review_hunks' | 'review_decision' | 'review_note' | 'turn_reverted' }
>;

export function isReviewEvent(event: AgentEvent): event is ReviewEvent {
  return (
    event.type === 'review_hunks' ||
    event.type === 'review_decision' ||
    event.type === 'review_note' ||
    event.type === 'turn_reverted'
  );
}

export class ReviewState {
  /** By turn, then path; in the order they arrived. */
  private readonly turns = new Map<number, Map<string, FileReview>>();

  clear(): void {
    this.turns.clear();
  }

  /** Folds one event in; true when the review changed. */
  apply(event: AgentEvent): boolean {
    switch (event.type) {
      case 'review_hunks':
        this.turns.set(event.turn, this.withDecisionsKept(event.turn, event.files));
        return true;
      case 'review_decision': {
        const file = this.file(event.turn, event.path);
        if (!file) return false;
        event.hunks.forEach((index, position) => {
          const hunk = file.hunks[index];
          if (!hunk) return;
          if (event.decision === 'kept' && hunk.state === 'pending') hunk.state = 'kept';
          else if (event.decision === 'undone' && hunk.state === 'pending') {
            hunk.state = 'undone';
            hunk.told = false;
            const line = event.lines?.[position];
            if (line !== undefined) hunk.undoneAt = line;
          } else if (event.decision === 'reopened' && hunk.state === 'undone' && !hunk.told) {
            hunk.state = 'pending';
            delete hunk.undoneAt;
          }
        });
        if (event.decision === 'undone' && event.deleted) file.deleted = true;
        if (event.decision === 'reopened') file.deleted = false;
        return true;
      }
      case 'review_note':
        for (const told of event.hunks) {
          const hunk = this.file(told.turn, told.path)?.hunks[told.hunk];
          if (hunk?.state === 'undone') hunk.told = true;
        }
        return true;
      case 'turn_reverted': {
        const files = this.turns.get(event.turn);
        if (!files) return false;
        for (const file of files.values()) file.closed = true;
        return true;
      }
      default:
        return false;
    }
  }

  file(turn: number, path: string): FileReview | undefined {
    return this.turns.get(turn)?.get(path);
  }

  /** Every reviewed file, oldest turn first. */
  all(): FileReview[] {
    return [...this.turns.values()].flatMap((files) => [...files.values()]);
  }

  /** The files of one turn. */
  turn(turn: number): FileReview[] {
    return [...(this.turns.get(turn)?.values() ?? [])];
  }

  /** Hunks still to be kept or undone, of open files. */
  static pending(file: FileReview): ReviewedHunk[] {
    return file.closed ? [] : file.hunks.filter((hunk) => hunk.state === 'pending');
  }

  /**
   * A turn's review again (a redirected run ends twice): hunks exactly as before keep the
   * decisions already made on them.
   */
  private withDecisionsKept(turn: number, files: ReviewedFile[]): Map<string, FileReview> {
    const earlier = this.turns.get(turn);
    const result = new Map<string, FileReview>();
    for (const file of files) {
      const before = new Map((earlier?.get(file.path)?.hunks ?? []).map((hunk) => [signature(hunk), hunk]));
      result.set(file.path, {
        turn,
        path: file.path,
        change: file.change,
        hunks: (file.hunks ?? []).map((hunk, index) => {
          const kept = before.get(signature(hunk));
          return {
            ...hunk,
            index,
            state: kept?.state ?? 'pending',
            told: kept?.told ?? false,
            ...(kept?.undoneAt !== undefined ? { undoneAt: kept.undoneAt } : {}),
          };
        }),
        ...(file.unreviewable !== undefined ? { unreviewable: file.unreviewable } : {}),
        closed: false,
        deleted: earlier?.get(file.path)?.deleted ?? false,
      });
    }
    return result;
  }
}

function signature(hunk: Hunk): string {
  return JSON.stringify([hunk.removed, hunk.added, hunk.above, hunk.below]);
}
