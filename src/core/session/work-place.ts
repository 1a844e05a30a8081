import type { Worktree } from './worktree-port';

/**
 * Where a session works (SPEC 5b): the window's workspace folder, or a git worktree of its
 * repository on a branch of its own, outside the workspace. A session's parts — its files, shell,
 * sandbox, search and checkpoints — are composed for its place, so every tool of a worktree
 * session is rooted in the worktree.
 */
export type WorkPlace =
  | {
      kind: 'workspace';
      /** The workspace folder (undefined in a window without one). */
      root: string | undefined;
    }
  | {
      kind: 'worktree';
      /** The worktree's folder (the same as `worktree.root`). */
      root: string;
      /** Its branch `openagent/<slug>`, base commit and repository (worktree-port.ts). */
      worktree: Worktree;
    };

/** One line for lists and notifications: "workspace" or "worktree openagent/fix-login". */
export function placeLabel(place: WorkPlace): string {
  return place.kind === 'workspace' ? 'workspace' : `worktree ${place.worktree.branch}`;
}
