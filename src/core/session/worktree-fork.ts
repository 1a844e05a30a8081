/**
 * "Fork from here" into a new worktree (SPEC 5b, issue 33): a new git worktree on its own branch
 * whose files are as they were at the message (worktree-fork-files.ts says which and how), and
 * a fork of the conversation up to that message, for a session working there.
 *
 * Made in an order that leaves nothing half-made: everything is read and checked first (the
 * message, the files of the workspace); then the worktree is added (if git says no, nothing was
 * made); then the files are written into it; then the conversation is forked. A failure after
 * the worktree was added removes it again (folder and branch: it held nothing of the user's),
 * and the outcome says what went wrong. Files are written through `ForkFileAccess`, which writes
 * inside the worktree only: a recorded path that points outside it (`..`, absolute, through a
 * link) is refused, named, and left as at HEAD.
 */
import type { StoredConversation } from '../ports';
import type { ForkRefusal, SessionForks } from './session-forks';
import { WorktreeError, type Worktree, type WorktreeErrorKind, type Worktrees } from './worktree-port';
import { worktreeForkFiles } from './worktree-fork-files';

/** A path the file access will not read or write (outside the folder, a link, the git folder…). */
export class ForkFileRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForkFileRefusal';
  }
}

/** Reading the session's folder and writing the new worktree (node/worktrees/fork-files.ts). */
export interface ForkFileAccess {
  /** `relative`'s bytes in the session's folder now, or null when there is no such file. */
  read(relative: string): Promise<Uint8Array | null>;
  /** Writes `bytes` to `relative` in the worktree, or deletes it (null). ForkFileRefusal: not there. */
  write(worktree: Worktree, relative: string, bytes: Uint8Array | null): Promise<void>;
}

export interface WorktreeForkDeps {
  forks: SessionForks;
  worktrees: Worktrees;
  files: ForkFileAccess;
}

export interface WorktreeForkRequest {
  /** The new session's name (its branch is `openagent/<slug>`). */
  name: string;
  /** Where the fork cuts (a ForkPoint's cutSeq, or a chat message's). */
  cutSeq: number;
  /** Default: the conversation on screen. Another one's files are all "not known" (no checkpoints). */
  conversationId?: string;
  baseBranch?: string;
}

export type WorktreeForkOutcome =
  | {
      status: 'forked';
      fork: StoredConversation;
      worktree: Worktree;
      /** Files written as they were at the point, and files removed (absent then). */
      written: string[];
      deleted: string[];
      /** Files left as at HEAD because their state at the point is not known or was refused. */
      left: Array<{ path: string; reason: string }>;
      /** For the user, one sentence each: where it started, names taken, partial turns… */
      notices: string[];
    }
  | ForkRefusal
  | {
      status: 'failed';
      /** What failed; nothing of the fork is left behind (`message` says if cleaning up failed). */
      stage: 'worktree' | 'files' | 'conversation';
      /** For a worktree that could not be made: why (not a repository, no commits…). */
      kind?: WorktreeErrorKind;
      message: string;
    };

/** Files read from the workspace at most (more is not a fork, it is a copy of the repository). */
export const MAX_FORK_FILES = 10_000;

export async function forkIntoWorktree(
  deps: WorktreeForkDeps,
  request: WorktreeForkRequest,
): Promise<WorktreeForkOutcome> {
  const source = await deps.forks.source(request.conversationId);
  if ('status' in source) return source;
  const { stored } = source;
  const first = stored[0]?.seq;
  const last = stored.at(-1)?.seq;
  if (first === undefined || last === undefined)
    return refused('The conversation has no messages yet: there is nothing to fork.');
  if (!Number.isSafeInteger(request.cutSeq) || request.cutSeq < first || request.cutSeq > last)
    return refused(
      `No message ${String(request.cutSeq)} in this conversation: its messages are numbered ${first} to ${last}.`,
    );

  const plan = worktreeForkFiles(source.checkpoints, stored, request.cutSeq);
  if (plan.files.length > MAX_FORK_FILES)
    return refused(
      `The conversation changed ${plan.files.length} files: more than ${MAX_FORK_FILES} cannot be forked into a worktree.`,
    );
  const left = [...plan.unknown];
  // The workspace is read before anything is made: a file that cannot be read is left as at HEAD.
  const images: Array<{ path: string; bytes: Uint8Array | null }> = [];
  for (const file of plan.files) {
    if (file.kind === 'bytes') images.push({ path: file.path, bytes: file.bytes });
    else if (file.kind === 'absent') images.push({ path: file.path, bytes: null });
    else
      try {
        images.push({ path: file.path, bytes: await deps.files.read(file.path) });
      } catch (error) {
        left.push({ path: file.path, reason: `it could not be read in the workspace: ${describe(error)}` });
      }
  }

  let created;
  try {
    created = await deps.worktrees.create({
      name: request.name,
      ...(request.baseBranch ? { baseBranch: request.baseBranch } : {}),
    });
  } catch (error) {
    return {
      status: 'failed',
      stage: 'worktree',
      ...(error instanceof WorktreeError ? { kind: error.kind } : {}),
      message: `The worktree could not be made, so nothing was forked: ${describe(error)}`,
    };
  }
  const { worktree } = created;

  const written: string[] = [];
  const deleted: string[] = [];
  for (const image of images) {
    try {
      await deps.files.write(worktree, image.path, image.bytes);
      (image.bytes ? written : deleted).push(image.path);
    } catch (error) {
      if (error instanceof ForkFileRefusal) {
        left.push({ path: image.path, reason: error.message });
        continue;
      }
      return undo(deps, worktree, 'files', `Writing ${image.path} into the worktree failed: ${describe(error)}`);
    }
  }

  let forked;
  try {
    forked = await deps.forks.fork(request.cutSeq, { conversationId: source.conversationId });
  } catch (error) {
    return undo(deps, worktree, 'conversation', `The conversation could not be forked: ${describe(error)}`);
  }
  if (forked.status !== 'forked') return undo(deps, worktree, 'conversation', forked.message);

  const base = `${worktree.base.commit.slice(0, 8)}${worktree.base.branch ? ` on ${worktree.base.branch}` : ''}`;
  const notices = [
    `The worktree ${worktree.root} (branch ${worktree.branch}) starts from ${request.baseBranch ? request.baseBranch : 'HEAD'} (${base}); the ${written.length + deleted.length} file${written.length + deleted.length === 1 ? '' : 's'} the conversation had changed are as they were at that message, every other file as at ${request.baseBranch ? 'that branch' : 'HEAD'}.`,
    ...created.notices,
  ];
  if (plan.partialTurn !== undefined)
    notices.push(`Turn ${plan.partialTurn} was under way at that message: its files are as before it.`);
  if (left.length > 0)
    notices.push(
      `Left as at ${request.baseBranch ? 'that branch' : 'HEAD'}: ${left.map((file) => `${file.path} (${file.reason})`).join('; ')}.`,
    );
  notices.push('Changes made by commands the agent ran (bash) are not tracked, so they are not in the worktree.');
  return { status: 'forked', fork: forked.fork, worktree, written, deleted, left, notices };
}

/** Removes the worktree made for a fork that failed after it: nothing half-made is left. */
async function undo(
  deps: WorktreeForkDeps,
  worktree: Worktree,
  stage: 'files' | 'conversation',
  message: string,
): Promise<WorktreeForkOutcome> {
  try {
    await deps.worktrees.discard(worktree);
    return { status: 'failed', stage, message: `${message} The worktree made for it was removed again.` };
  } catch (error) {
    return {
      status: 'failed',
      stage,
      message: `${message} The worktree made for it could not be removed (${describe(error)}): discard ${worktree.branch} from the session list or with git worktree remove.`,
    };
  }
}

function refused(message: string): ForkRefusal {
  return { status: 'refused', reason: 'bad_point', message };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
