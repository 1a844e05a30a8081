/**
 * The globs of instruction files' `applyTo` (instruction-files.ts): the workspace's globs
 * (src/core/workspace/glob.ts, matched without backtracking), no longer than a hand-written one
 * would be — a longer one is refused and reported.
 */
import { compileGlob as compilePathGlob, type PathMatcher } from '../workspace/glob';

export type { PathMatcher };

/** A glob longer than this is no hand-written `applyTo`; it is refused (reported). */
export const MAX_GLOB_CHARS = 256;

/** Throws on an unbalanced `{` or a glob over MAX_GLOB_CHARS, with a message saying which. */
export function compileGlob(glob: string): PathMatcher {
  if (glob.length > MAX_GLOB_CHARS) throw new Error(`longer than ${MAX_GLOB_CHARS} characters`);
  return compilePathGlob(glob);
}
