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
      /** The worktree's folder. */
      root: string;
      /** The session's branch, `openagent/<slug>`. */
      branch: string;
      /** What the branch started from (a commit), the base its changes are shown against. */
      base: string;
    };

/** One line for lists and notifications: "workspace" or "worktree openagent/fix-login". */
export function placeLabel(place: WorkPlace): string {
  return place.kind === 'workspace' ? 'workspace' : `worktree ${place.branch}`;
}
