/**
 * Where worktree folders live: under a base folder the caller passes (the extension's storage,
 * or a folder the user sets), never inside the workspace or the repository — there the
 * editor's watchers and search, git itself and the sandbox's writable root would all see the
 * other sessions' files. The base folder is judged by its real path (a link into the workspace,
 * or to `/`, is refused), made if missing, and judged again once made (a link swapped in
 * meanwhile is caught).
 */
import { lstatSync, mkdirSync, readlinkSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../../core/workspace/workspace-path';
import { WorktreeError } from '../../core/session/worktree-port';

export interface ForbiddenPlaces {
  /** The workspace folder the window has open. */
  workspaceRoot: string;
  /** The working tree holding it, and the repository's git folders. */
  repositoryFolders: readonly string[];
}

/** The base folder's real path, made if missing; a WorktreeError `base-folder` when it may not be used. */
export function prepareBaseFolder(baseFolder: string, forbidden: ForbiddenPlaces): string {
  if (!baseFolder || !path.isAbsolute(baseFolder) || baseFolder.includes('\0'))
    throw new WorktreeError(
      'base-folder',
      `The folder for worktrees must be an absolute path (got ${JSON.stringify(baseFolder)}).`,
    );
  judge(baseFolder, realFuture(path.resolve(baseFolder)), forbidden);
  try {
    mkdirSync(baseFolder, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new WorktreeError(
      'write-failed',
      `The folder for worktrees ${baseFolder} could not be made: ${(error as Error).message}`,
    );
  }
  const real = realpathSync(baseFolder);
  judge(baseFolder, real, forbidden);
  if (!lstatSync(real).isDirectory())
    throw new WorktreeError('base-folder', `The folder for worktrees ${baseFolder} is not a folder.`);
  return real;
}

function judge(given: string, real: string, forbidden: ForbiddenPlaces): void {
  if (path.parse(real).root === real)
    throw new WorktreeError(
      'base-folder',
      `The folder for worktrees ${given} is the root of the file system: choose a folder of its own.`,
    );
  for (const place of [forbidden.workspaceRoot, ...forbidden.repositoryFolders]) {
    const realPlace = realOrSelf(place);
    if (real === realPlace || isInside(realPlace, real))
      throw new WorktreeError(
        'base-folder',
        `The folder for worktrees ${given}${real !== given ? ` (really ${real})` : ''} is inside ${realPlace}: worktrees must live outside the workspace and the repository, where the editor, git and the sandbox do not see them as workspace files. Choose a folder outside it.`,
      );
  }
}

/** The real path of `file`, or of its deepest existing folder with the missing names after it (links followed). */
export function realFuture(file: string): string {
  let existing = file;
  const rest: string[] = [];
  for (let links = 0; links < 40;) {
    try {
      return path.join(realpathSync(existing), ...rest);
    } catch {
      // Not there (or a dangling link: making it would make its target).
    }
    let target: string | undefined;
    try {
      target = readlinkSync(existing);
    } catch {
      target = undefined;
    }
    if (target !== undefined) {
      links++;
      existing = path.resolve(path.dirname(existing), target);
      continue;
    }
    const parent = path.dirname(existing);
    if (parent === existing) return existing;
    rest.unshift(path.basename(existing));
    existing = parent;
  }
  throw new WorktreeError('base-folder', `The folder for worktrees ${file} goes through too many links.`);
}

function realOrSelf(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/** Whether anything (a file, folder or link) is at `file`. */
export function occupied(file: string): boolean {
  try {
    lstatSync(file);
    return true;
  } catch {
    return false;
  }
}
