/**
 * The files side of a rewind (SPEC 5b): the turns after the point are undone newest first from
 * their checkpoints, so every file they changed is back byte for byte as it was at the point; a
 * file changed since the agent last wrote it is named before anything is written (the same
 * question "Revert This Turn" asks), and a file that could not be restored is named after.
 *
 * Checkpoints live in memory with the conversation: after a window reload (or a reopening) the
 * copies of earlier turns are gone. Then nothing is restored — all or nothing, since restoring only
 * the newer turns would leave files in a state that never existed — and the plan says why, so the
 * history can still be taken back. The same copies give the files as they were at a point, for a
 * fork into a fresh worktree.
 */
import * as path from 'node:path';
import type { StoredMessage } from '../ports';
import type { Checkpoints } from '../workspace/checkpoints';
import { laterTurns } from './fork-points';

/** What a rewind would do to the files, for the question asked before it. */
export interface RewindFilePlan {
  /** The turns whose changes are undone, newest first (their numbers as the chat shows them). */
  turns: number[];
  /** Every file they changed, relative to the workspace folder ("/"), and what undoing does. */
  files: Array<{
    path: string;
    /** 'created': the later turns made it, so it is deleted; 'modified': its earlier bytes are written back. */
    change: 'created' | 'modified';
    /** Changed since the agent last wrote it (by the user, a command…): restoring loses that change. */
    changedSince: boolean;
  }>;
  /** False when the checkpoints are gone (`reason` says why): the files can only be left as they are. */
  restorable: boolean;
  reason?: string;
  /** A turn under way at the point (see LaterTurns.partial): it is undone whole. */
  partialTurn?: number;
}

export interface FileRestoreOutcome {
  restored: string[];
  deleted: string[];
  failed: Array<{ path: string; reason: string }>;
}

/** A file as it was at a point in the conversation; `bytes` null: it did not exist then. */
export interface FileAtPoint {
  path: string;
  bytes: Uint8Array | null;
}

export interface FilesAtPoint {
  /** Files a later turn changed, as they were at the point. Every other file is as it is now. */
  files: FileAtPoint[];
  /** Files whose earlier content is not known (too large to keep, or the checkpoints are gone). */
  unknown: Array<{ path: string; reason: string }>;
  partialTurn?: number;
}

/** Commands (bash) can change files too; checkpoints only see the file tools' writes. */
export const COMMAND_CHANGES_NOTE =
  'Changes made by commands the agent ran (bash) are not tracked and stay as they are.';

/**
 * What undoing the turns after `cutSeq` would do. `checkpoints`: those of the conversation on
 * screen, undefined when it has none in memory (reopened, or never run in this window).
 */
export async function planFileRestore(
  checkpoints: Checkpoints | undefined,
  stored: readonly StoredMessage[],
  cutSeq: number,
): Promise<RewindFilePlan> {
  const later = laterTurns(stored, cutSeq);
  const partial = later.partial !== undefined ? { partialTurn: later.partial } : {};
  const kept = new Set(checkpoints?.keptTurns() ?? []);
  const missing = later.turns.filter((turn) => !kept.has(turn));
  if (!checkpoints || missing.length > 0) {
    const files = filesReported(stored, later.turns);
    return {
      turns: later.turns,
      files: files.map((file) => ({ ...file, changedSince: false })),
      restorable: later.turns.length === 0,
      ...(later.turns.length > 0
        ? {
            reason: `The earlier content of these files is not kept any more: checkpoints live in memory, and turn${missing.length === 1 ? '' : 's'} ${missing.join(', ')} ${missing.length === 1 ? 'was' : 'were'} run before the window was reloaded or the conversation reopened.`,
          }
        : {}),
      ...partial,
    };
  }
  // A file's newest turn decides whether it changed since (older turns are expected to differ).
  const files = new Map<string, RewindFilePlan['files'][number]>();
  for (const turn of later.turns) {
    const plan = await checkpoints.plan(turn);
    if (!plan) continue;
    const conflicts = new Set(plan.conflicts);
    for (const file of plan.files) {
      const relative = relativeTo(checkpoints.root, file.path);
      const newest = files.get(relative);
      files.set(relative, {
        path: relative,
        // The oldest turn's view wins: created there means absent at the point.
        change: file.change,
        changedSince: newest ? newest.changedSince : conflicts.has(file.path),
      });
    }
  }
  return { turns: later.turns, files: [...files.values()], restorable: true, ...partial };
}

/** Undoes the plan's turns, newest first; each file's outcome is that of the oldest turn that had it. */
export async function restoreFiles(checkpoints: Checkpoints, plan: RewindFilePlan): Promise<FileRestoreOutcome> {
  const outcome = new Map<string, { kind: 'restored' | 'deleted' } | { kind: 'failed'; reason: string }>();
  for (const turn of plan.turns) {
    const result = await checkpoints.revert(turn);
    for (const file of result.restored) outcome.set(relativeTo(checkpoints.root, file), { kind: 'restored' });
    for (const file of result.deleted) outcome.set(relativeTo(checkpoints.root, file), { kind: 'deleted' });
    for (const failure of result.failed)
      outcome.set(relativeTo(checkpoints.root, failure.path), { kind: 'failed', reason: failure.reason });
  }
  const done: FileRestoreOutcome = { restored: [], deleted: [], failed: [] };
  for (const [file, result] of outcome)
    if (result.kind === 'failed') done.failed.push({ path: file, reason: result.reason });
    else done[result.kind].push(file);
  return done;
}

/** The files the turns after `cutSeq` changed, as they were at the cut (nothing is written). */
export function filesAtPoint(
  checkpoints: Checkpoints | undefined,
  stored: readonly StoredMessage[],
  cutSeq: number,
): FilesAtPoint {
  const later = laterTurns(stored, cutSeq);
  const partial = later.partial !== undefined ? { partialTurn: later.partial } : {};
  const kept = new Set(checkpoints?.keptTurns() ?? []);
  const images = new Map<string, FileAtPoint | { path: string; reason: string }>();
  const gone =
    'its earlier content is not kept any more (the checkpoints were lost with a window reload or a reopening)';
  // Newest first: each older turn's image replaces the newer one's.
  for (const turn of later.turns) {
    if (!checkpoints || !kept.has(turn)) {
      for (const file of filesReported(stored, [turn])) images.set(file.path, { path: file.path, reason: gone });
      continue;
    }
    for (const change of checkpoints.changes(turn)) {
      const relative = relativeTo(checkpoints.root, change.path);
      const image = checkpoints.beforeImage(turn, change.path);
      if (image?.kind === 'bytes') images.set(relative, { path: relative, bytes: image.bytes });
      else if (image?.kind === 'absent') images.set(relative, { path: relative, bytes: null });
      else
        images.set(relative, {
          path: relative,
          reason: image ? `it was ${(image.size / 1_048_576).toFixed(0)} MB, too large to keep a copy of` : gone,
        });
    }
  }
  const result: FilesAtPoint = { files: [], unknown: [], ...partial };
  for (const image of images.values())
    if ('reason' in image) result.unknown.push(image);
    else result.files.push(image);
  return result;
}

/** The files the turns' `files_changed` events named (what is known without the checkpoints). */
function filesReported(
  stored: readonly StoredMessage[],
  turns: readonly number[],
): Array<{ path: string; change: 'created' | 'modified' }> {
  const wanted = new Set(turns);
  const files = new Map<string, 'created' | 'modified'>();
  for (const message of stored) {
    const event = message.content as { type?: unknown; turn?: unknown; files?: unknown } | null;
    if (message.role !== 'event' || event?.type !== 'files_changed' || !wanted.has(event.turn as number)) continue;
    for (const file of Array.isArray(event.files) ? (event.files as Array<{ path?: unknown; change?: unknown }>) : [])
      if (typeof file.path === 'string') files.set(file.path, file.change === 'created' ? 'created' : 'modified');
  }
  return [...files].map(([file, change]) => ({ path: file, change }));
}

function relativeTo(root: string, absolute: string): string {
  return path.relative(root, absolute).split(path.sep).join('/');
}
