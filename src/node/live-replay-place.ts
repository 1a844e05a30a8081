/**
 * Where a live-tools replay's tools run: a fresh git worktree on `openagent/replay-<short>` at the
 * commit the recorded run started from (through the Worktrees port, which takes a hash only and
 * refuses one the repository lacks), or — where the recorded place had no git — a scratch copy
 * of the folder in a temp place. The copy is of what a tool could read there and nothing more:
 * a link that leads out of the folder, a FIFO (reading one would hang), a socket or a device is
 * not copied (each named), a link inside it is copied as a link to the same place in the copy,
 * and the whole is bounded in files and bytes (refused with a clear error, nothing left).
 * The place is left for the user to inspect.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunManifest } from '../core/replay/recording';
import { WorktreeError, type Worktree } from '../core/session/worktree-port';
import { GitWorktrees } from './worktrees/git-worktrees';
import { isInsidePath as isInside, samePath } from '../core/workspace/platform-path';

export interface LivePlace {
  /** The folder the live tools are rooted in (absolute, real). */
  root: string;
  worktree?: Worktree;
  /** What the user should know: a scratch copy, what was left out of it. */
  notices: string[];
}

export interface LivePlaceOptions {
  manifest: RunManifest;
  /** The folder the CLI runs in: used when the recorded folder is not on this machine. */
  cwd: string;
  /** Where worktrees and scratch copies are made (outside the repository). */
  baseFolder: string;
  short: string;
  limits?: ScratchLimits;
}

export interface ScratchLimits {
  files: number;
  bytes: number;
  /** Folders deep (a link loop or a crafted tree cannot walk forever). */
  depth: number;
}

export const LIVE_SCRATCH_LIMITS: ScratchLimits = { files: 20_000, bytes: 200 * 1024 * 1024, depth: 64 };
const SKIPPED = new Set(['.git', 'node_modules']);

/** A scratch copy that cannot be made, in words for the user. */
export class ScratchCopyError extends Error {}

/** Makes the place; a WorktreeError or ScratchCopyError when there can be none (nothing made). */
export async function makeLivePlace(options: LivePlaceOptions): Promise<LivePlace> {
  const recorded = options.manifest.place;
  const folder = isDirectory(recorded.root) ? recorded.root : options.cwd;
  const name = `replay-${options.short}`;
  if (recorded.commit !== undefined) {
    try {
      const worktrees = new GitWorktrees({ workspaceRoot: folder, baseFolder: () => options.baseFolder });
      const made = await worktrees.create({ name, baseCommit: String(recorded.commit) });
      return { root: made.worktree.root, worktree: made.worktree, notices: made.notices };
    } catch (error) {
      // A commit the repository lacks (or one shaped like an option) is refused: no stand-in world.
      if (!(error instanceof WorktreeError) || error.kind !== 'not-a-repository') throw error;
    }
  }
  fs.mkdirSync(options.baseFolder, { recursive: true });
  const target = fs.mkdtempSync(path.join(options.baseFolder, `${name}-`));
  let left: Array<{ path: string; why: string }>;
  try {
    left = copyFolder(folder, target, options.limits ?? LIVE_SCRATCH_LIMITS);
  } catch (error) {
    fs.rmSync(target, { recursive: true, force: true });
    throw error;
  }
  const root = fs.realpathSync(target);
  const notices = [
    `${recorded.commit !== undefined ? `${folder} is not a git repository` : 'The recorded place had no git'}: the tools run in a scratch copy of ${folder} as it is now (${root}), not as it was when the run was recorded.`,
  ];
  if (left.length > 0)
    notices.push(
      `Not copied (${left.length}): ${left
        .slice(0, 10)
        .map((entry) => `${entry.path} (${entry.why})`)
        .join(', ')}${left.length > 10 ? ', …' : ''}.`,
    );
  return { root, notices };
}

/**
 * Copies `from` into the empty folder `to`; returns what it left out and why. Too large or too
 * deep: a ScratchCopyError, and `to` is removed.
 */
export function copyFolder(from: string, to: string, limits: ScratchLimits): Array<{ path: string; why: string }> {
  const source = fs.realpathSync(from);
  const left: Array<{ path: string; why: string }> = [];
  const plan: Array<{ kind: 'folder' | 'file' | 'link'; relative: string; target?: string }> = [];
  let files = 0;
  let bytes = 0;
  const tooLarge = () =>
    new ScratchCopyError(
      `${from} is too large for a scratch copy (more than ${limits.files} files or ${Math.round(limits.bytes / 1024 / 1024)} MB): make it a git repository with a commit, and replay in a worktree.`,
    );
  // Walked with a stack of its own: a deep tree cannot exhaust the call stack.
  const work: Array<{ relative: string; depth: number }> = [{ relative: '', depth: 0 }];
  while (work.length > 0) {
    const { relative, depth } = work.pop()!;
    if (depth > limits.depth)
      throw new ScratchCopyError(`${from} is nested more than ${limits.depth} folders deep: no scratch copy made.`);
    for (const entry of fs.readdirSync(path.join(source, relative), { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const child = relative ? `${relative}/${entry.name}` : entry.name;
      const absolute = path.join(source, child);
      if (entry.isDirectory()) {
        plan.push({ kind: 'folder', relative: child });
        work.push({ relative: child, depth: depth + 1 });
      } else if (entry.isFile()) {
        files++;
        bytes += fs.lstatSync(absolute).size;
        if (files > limits.files || bytes > limits.bytes) throw tooLarge();
        plan.push({ kind: 'file', relative: child });
      } else if (entry.isSymbolicLink()) {
        const inside = linkInside(source, absolute);
        if (inside === undefined) left.push({ path: child, why: 'a link that leads out of the folder' });
        else plan.push({ kind: 'link', relative: child, target: inside });
      } else
        left.push({
          path: child,
          why: entry.isFIFO() ? 'a FIFO' : entry.isSocket() ? 'a socket' : 'a device',
        });
    }
  }
  try {
    for (const item of plan) {
      const target = path.join(to, item.relative);
      if (item.kind === 'folder') fs.mkdirSync(target, { recursive: true });
      else if (item.kind === 'file')
        fs.copyFileSync(path.join(source, item.relative), target, fs.constants.COPYFILE_EXCL);
      else {
        fs.mkdirSync(path.dirname(target), { recursive: true });
        // Relative, to the same place in the copy: never back into the original folder.
        fs.symlinkSync(path.relative(path.dirname(target), path.join(to, item.target!)) || '.', target);
      }
    }
  } catch (error) {
    fs.rmSync(to, { recursive: true, force: true });
    throw error;
  }
  return left;
}

/** Where a link leads, relative to `root`, when it stays inside it (followed to its end); else undefined. */
function linkInside(root: string, link: string): string | undefined {
  let real: string;
  try {
    real = fs.realpathSync(link);
  } catch {
    return undefined; // dangling, or a loop: nothing to copy
  }
  if (!isInside(root, real) || samePath(root, real)) return undefined;
  const relative = path.relative(root, real);
  return relative.split(path.sep).join('/');
}

function isDirectory(folder: string): boolean {
  try {
    return folder !== '' && fs.statSync(folder).isDirectory();
  } catch {
    return false;
  }
}
