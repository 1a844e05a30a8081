/**
 * Sessions in their own git worktrees (issue 33): the value "where a session works" when that is
 * a worktree, and the port that makes, lists, reviews, applies, keeps and discards them. The
 * node side (src/node/worktrees/) runs real git; the editor and the CLI only see this file.
 *
 * A worktree session works in a folder outside the workspace, on its own branch
 * `openagent/<slug>` started from a base commit. Nothing it wrote is lost until the user
 * discards it: applying and keeping commit what the worktree still holds to its branch first.
 */

/** Where a worktree session works. */
export interface Worktree {
  /** The session's name as the user gave it (control characters removed, shortened): for display. */
  name: string;
  /** The worktree's folder (absolute, real path): every tool of the session is rooted here. */
  root: string;
  /** Its branch, always `openagent/<slug>`. */
  branch: string;
  /** What it started from. */
  base: WorktreeBase;
  /** The repository's git folder (the common one, `.git` of the main working tree). */
  gitDir: string;
  /** The worktree's own git folder, which its `.git` file names (`<gitDir>/worktrees/<id>`). */
  worktreeGitDir: string;
  /** The user's working tree it was made from, and where Apply writes. */
  workspaceRoot: string;
}

export interface WorktreeBase {
  /** The commit the branch started from (full hash). */
  commit: string;
  /** The branch that commit was the tip of, if any (undefined: a detached HEAD). */
  branch?: string;
}

export interface CreateWorktreeRequest {
  /** The session's name; the branch and folder names are made from it (any text is accepted). */
  name: string;
  /** Start from this local branch's tip instead of the current HEAD. */
  baseBranch?: string;
  /**
   * Start from this commit (a full or abbreviated hash) instead of HEAD: a re-run of a recorded
   * run starts where that run started. Wins over `baseBranch`; a commit the repository does not
   * have is `no-such-commit`, and nothing is made.
   */
  baseCommit?: string;
}

export interface CreatedWorktree {
  worktree: Worktree;
  /**
   * What the user should know, one sentence each: started from HEAD while the working tree had
   * uncommitted changes, the name was taken, submodules not initialized, LFS files as pointers…
   */
  notices: string[];
}

/**
 * - `ready`: the folder is there;
 * - `folder-missing`: the folder was deleted or moved by hand (the branch still holds every
 *   committed change: reopen it, keep the branch or discard);
 * - `branch-only`: a branch `openagent/*` without a worktree (kept, or left by a crash).
 */
export type WorktreeState = 'ready' | 'folder-missing' | 'branch-only';

export interface ListedWorktree {
  worktree: Worktree;
  state: WorktreeState;
  /** For any state but `ready`: one sentence for the session list. */
  note?: string;
}

export type ChangeKind = 'added' | 'modified' | 'deleted' | 'renamed' | 'type-changed';

export interface WorktreeChange {
  /** Relative to the worktree's root, with `/`. */
  path: string;
  kind: ChangeKind;
  /** For `renamed`: where it was. */
  previousPath?: string;
}

export type ApplyMode = 'merge' | 'squash';

export interface ApplyRequest {
  /**
   * `merge`: a merge commit on the user's current branch. `squash`: every change of the branch
   * put into the user's working tree and index, not committed (the user commits it).
   */
  mode: ApplyMode;
}

/** What Apply did. It never overwrites what the user has not committed. */
export type ApplyOutcome =
  | {
      kind: 'applied';
      mode: ApplyMode;
      /** Files the apply changed in the user's working tree. */
      files: string[];
      /** The merge commit (merge mode); undefined for squash (staged, not committed). */
      commit?: string;
      notices: string[];
    }
  | {
      kind: 'conflicts';
      mode: ApplyMode;
      /** Files with conflicts, relative to the workspace root: for the editor's merge editor. */
      files: string[];
      notices: string[];
    }
  | {
      /**
       * Nothing was changed. `overlapping`: files the user changed (or has untracked or ignored)
       * that the branch changes too; `staged`: a merge needs the index clean.
       */
      kind: 'refused';
      reason: 'overlapping-changes' | 'staged-changes' | 'merge-in-progress';
      files: string[];
      message: string;
    }
  | { kind: 'nothing-to-apply'; notices: string[] };

/** What the worktree-session parts call; one per repository (the workspace the window has open). */
export interface Worktrees {
  /** A new worktree on a new branch, in a new folder under the base folder. */
  create(request: CreateWorktreeRequest): Promise<CreatedWorktree>;
  /** Every `openagent/*` worktree and branch of the repository, including ones whose folder is gone. */
  list(): Promise<ListedWorktree[]>;
  /** A worktree again for a listed one whose folder is gone, or a branch kept without one. */
  reopen(listed: ListedWorktree): Promise<CreatedWorktree>;
  /** Files changed on the branch and uncommitted in the worktree, against its base commit. */
  changes(worktree: Worktree): Promise<WorktreeChange[]>;
  /**
   * What `git diff --cached` and `git diff` say in the worktree (its uncommitted work, staged and
   * not): the `@git` mention of a worktree session. Never runs an external diff or text conversion.
   */
  uncommittedDiff(worktree: Worktree): Promise<{ staged: string; unstaged: string }>;
  /** A file as it was at the base commit (undefined: it did not exist): the left side of the review. */
  original(worktree: Worktree, path: string): Promise<Uint8Array | undefined>;
  /** Commits what the worktree holds to its branch, then merges or squashes it into the user's tree. */
  apply(worktree: Worktree, request: ApplyRequest): Promise<ApplyOutcome>;
  /** Commits what the worktree holds to its branch, then removes the folder; the branch stays. */
  keep(worktree: Worktree): Promise<{ notices: string[] }>;
  /** Removes the folder and the branch, with whatever they held. The caller asks the user first. */
  discard(worktree: Worktree): Promise<void>;
}

export type WorktreeErrorKind =
  /** The workspace is not in a git repository (the caller may offer `git init`, or to run here). */
  | 'not-a-repository'
  /** The repository has no commit yet: there is nothing to start a worktree from. */
  | 'no-commits'
  | 'git-missing'
  | 'git-too-old'
  /** The base folder is unusable (inside the workspace, `/`, not writable…). */
  | 'base-folder'
  /** The base branch named does not exist. */
  | 'no-such-branch'
  /** The base commit named is not in the repository (garbage-collected, another clone). */
  | 'no-such-commit'
  /** Not a worktree this port made (branch outside `openagent/`, folder not its own). */
  | 'not-a-session-worktree'
  /** The disk is full or a file could not be written. */
  | 'write-failed'
  /** Git said no, for another reason (its words are in the message). */
  | 'git-failed';

/** A failure with a message for the user; `kind` lets the caller offer the right way out. */
export class WorktreeError extends Error {
  constructor(
    readonly kind: WorktreeErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'WorktreeError';
  }
}

/** The branch namespace every session branch lives in. */
export const SESSION_BRANCH_PREFIX = 'openagent/';
