/**
 * Which files a fork into a new worktree writes, and as what (SPEC 5b, issue 33). The worktree
 * starts from the repository's HEAD (never from the user's uncommitted changes); on top of it,
 * every file the conversation had changed by the point is put as it was at the point:
 *
 * - a file a turn after the point changed: its bytes from before the oldest such turn (the
 *   checkpoints' before-image), or absent when that turn created it;
 * - a file changed by turns up to the point and by none after: as it is in the workspace now
 *   (no later turn touched it, so its bytes are still those of the point — save what the user or
 *   a command did to it since, which nothing records), absent when it is absent now;
 * - any other file — the conversation had not changed it by the point, even if a later turn
 *   did — is as at HEAD: a file created only after the point is absent, one edited only after
 *   is HEAD's.
 *
 * What is not known is named, not guessed, and left as at HEAD: files whose earlier bytes are
 * gone (checkpoints live in memory, lost with a reload or a reopening; files over 50 MB), and
 * files of a turn up to the point that was reverted after it (what that turn wrote is not kept).
 * Commands the agent ran (bash) are not tracked by checkpoints: their changes are not carried.
 */
import type { StoredMessage } from '../ports';
import type { Checkpoints } from '../workspace/checkpoints';
import { laterTurns } from './fork-points';
import { filesAtPoint } from './rewind-files';

/** One file of the worktree at the point. Paths are relative to the session's folder, with `/`. */
export type ForkFile =
  | { path: string; kind: 'bytes'; bytes: Uint8Array }
  | { path: string; kind: 'absent' }
  /** Changed by the turns up to the point only: its bytes (or absence) in the workspace now. */
  | { path: string; kind: 'as-now' };

export interface WorktreeForkFiles {
  files: ForkFile[];
  /** Files whose state at the point is not known: left as at HEAD, with why. */
  unknown: Array<{ path: string; reason: string }>;
  /** A turn under way at the point: its files are as before it (it is undone whole). */
  partialTurn?: number;
}

interface TurnReports {
  /** Every file each turn reported (a redirected run reports again: the union). */
  files: Map<number, Set<string>>;
  /** The seq of each turn's `turn_reverted`. */
  reverted: Map<number, number>;
}

/** The files of a worktree forked at `cutSeq` (after the message stored there), nothing read or written. */
export function worktreeForkFiles(
  checkpoints: Checkpoints | undefined,
  stored: readonly StoredMessage[],
  cutSeq: number,
): WorktreeForkFiles {
  const reports = turnReports(stored);
  const revertedAfter = new Set([...reports.reverted].filter(([, seq]) => seq > cutSeq).map(([turn]) => turn));
  const revertedBy = new Set([...reports.reverted].filter(([, seq]) => seq <= cutSeq).map(([turn]) => turn));
  // The conversation as it stood at the cut: a revert made after it had not happened yet.
  const asAtCut = stored.filter((message) => !(isEvent(message, 'turn_reverted') && message.seq > cutSeq));
  const later = new Set(laterTurns(asAtCut, cutSeq).turns);
  const at = filesAtPoint(checkpoints, stored, cutSeq);

  const result = new Map<string, ForkFile | { path: string; reason: string }>();
  // Weakest first, each later rule overriding: as now < the before-images < not known. Only
  // files the turns up to the cut changed are carried (turns after it are the before-images';
  // one reverted since put its files back as before it, so as now holds for those).
  for (const [turn, files] of reports.files) {
    if (revertedBy.has(turn) || later.has(turn)) continue;
    for (const file of files) result.set(file, { path: file, kind: 'as-now' });
  }
  for (const file of at.files)
    if (result.has(file.path))
      result.set(
        file.path,
        file.bytes ? { path: file.path, kind: 'bytes', bytes: file.bytes } : { path: file.path, kind: 'absent' },
      );
  for (const file of at.unknown) if (result.has(file.path)) result.set(file.path, file);
  for (const turn of revertedAfter) {
    if (later.has(turn)) continue;
    for (const file of reports.files.get(turn) ?? [])
      result.set(file, {
        path: file,
        reason: `turn ${turn} changed it before this message and was reverted after it: what that turn wrote is not kept`,
      });
  }
  const outcome: WorktreeForkFiles = {
    files: [],
    unknown: [],
    ...(at.partialTurn !== undefined ? { partialTurn: at.partialTurn } : {}),
  };
  for (const entry of result.values())
    if ('reason' in entry) outcome.unknown.push(entry);
    else outcome.files.push(entry);
  return outcome;
}

function turnReports(stored: readonly StoredMessage[]): TurnReports {
  const reports: TurnReports = { files: new Map(), reverted: new Map() };
  for (const message of stored) {
    const event = message.content as { type?: unknown; turn?: unknown; files?: unknown } | null;
    if (message.role !== 'event' || typeof event?.turn !== 'number') continue;
    if (event.type === 'turn_reverted') reports.reverted.set(event.turn, message.seq);
    if (event.type !== 'files_changed' || !Array.isArray(event.files)) continue;
    let files = reports.files.get(event.turn);
    if (!files) reports.files.set(event.turn, (files = new Set()));
    for (const file of event.files as Array<{ path?: unknown }>)
      if (typeof file?.path === 'string') files.add(file.path);
  }
  return reports;
}

function isEvent(message: StoredMessage, type: string): boolean {
  return message.role === 'event' && (message.content as { type?: unknown } | null)?.type === type;
}
