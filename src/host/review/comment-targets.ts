/**
 * Which files take review comments, and for which session (issue 36): a file of the changes a
 * session's review holds (any turn's, kept or not), in that session's folder. A file outside
 * every session's folder, or one the agent did not change, takes none. No `vscode` here.
 */
import type { SessionReviews } from './session-reviews';

export interface CommentTarget {
  session: string;
  /** Relative to the session's folder, with "/". */
  relative: string;
}

export function commentTarget(reviews: SessionReviews, absolute: string): CommentTarget | undefined {
  const owner = reviews.ownerOf(absolute);
  if (!owner) return undefined;
  const changed = owner.session.review.state.all().some((file) => file.path === owner.relative);
  return changed ? { session: owner.session.id, relative: owner.relative } : undefined;
}
