/**
 * What a worktree's making says beyond success: a write failure on a (nearly) full disk said
 * to be one, and what a fresh checkout leaves out (submodules, LFS content).
 */
import { existsSync, statfsSync } from 'node:fs';
import * as path from 'node:path';
import { WorktreeError } from '../../core/session/worktree-port';
import { readSmall, type RepositoryPrograms } from './repository-config';

/** Below this much free space, a write failure is taken for a full disk (git does not always say). */
const NEARLY_FULL_BYTES = 4 * 1024 * 1024;

/** A write failure where the disk is (nearly) full, said so: git's words name a file, not the cause. */
export function diskFull(error: unknown, folder: string): unknown {
  if (!(error instanceof WorktreeError) || error.kind !== 'write-failed' || /disk is full/.test(error.message))
    return error;
  try {
    const stats = statfsSync(folder);
    const free = stats.bavail * stats.bsize;
    if (free >= NEARLY_FULL_BYTES) return error;
    return new WorktreeError(
      'write-failed',
      `The disk is full: ${Math.round(free / 1024)} KB are free where worktrees are made (${folder}). Free some space, or choose another folder for worktrees.\n${error.message}`,
    );
  } catch {
    return error;
  }
}

/** What the user should know about a fresh checkout: submodules left empty, LFS files as pointers. */
export function checkoutNotices(root: string, programs: RepositoryPrograms): string[] {
  const notices: string[] = [];
  if (existsSync(path.join(root, '.gitmodules')))
    notices.push(
      'This repository has submodules; they are not initialized in the worktree (their folders are empty). Run `git submodule update --init` there if the session needs them.',
    );
  if (/filter=lfs/.test(readSmall(path.join(root, '.gitattributes'))) && !programs.userFilters.has('lfs'))
    notices.push(
      "This repository uses Git LFS, but your git configuration has no LFS filter (`git lfs install`), so LFS files are pointer files in the worktree; an LFS filter defined only in the repository's own configuration is not run by OpenAgent. Run `git lfs pull` in the worktree if the session needs them.",
    );
  return notices;
}
