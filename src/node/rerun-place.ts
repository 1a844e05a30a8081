/**
 * Where a re-run's live tools work (SPEC: replay and compare): a fresh git worktree on
 * `openagent/rerun-<short>` at the commit the recorded run started from, through the Worktrees
 * port; or, when there is no commit or no repository, a scratch copy of the folder (bounded:
 * files and bytes; links and `.git` are not copied). The recorded run's file changes before N
 * are put there afterwards by the core (reapply-files.ts).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunManifest } from '../core/replay/recording';
import { WorktreeError, type Worktree } from '../core/session/worktree-port';
import { GitWorktrees } from './worktrees/git-worktrees';

export interface RerunPlace {
  /** The folder the live tools are rooted in (absolute, real). */
  root: string;
  /** For the new recording's manifest. */
  manifestPlace: RunManifest['place'];
  /** The worktree made, when there was a commit and a repository. */
  worktree?: Worktree;
  /** What the user should know: a scratch copy (not the recorded commit), files left out. */
  notices: string[];
}

export interface RerunPlaceOptions {
  manifest: RunManifest;
  /** The folder the CLI runs in: the repository when the recorded folder is not on this machine. */
  cwd: string;
  /** Where worktrees and scratch copies are made (outside the repository). */
  baseFolder: string;
  /** A short name for the branch and folder (`rerun-<short>`). */
  short: string;
  limits?: { files: number; bytes: number };
}

/** A scratch copy larger than this is refused (the user can commit and re-run in a worktree). */
export const SCRATCH_LIMITS = { files: 20_000, bytes: 200 * 1024 * 1024 };
const SKIPPED = new Set(['.git', 'node_modules']);

/** Makes the place; a WorktreeError or an Error with words for the user when there can be none (nothing made). */
export async function makeRerunPlace(options: RerunPlaceOptions): Promise<RerunPlace> {
  const recorded = options.manifest.place;
  const folder = isDirectory(recorded.root) ? recorded.root : options.cwd;
  const name = `rerun-${options.short}`;
  if (recorded.commit) {
    try {
      const worktrees = new GitWorktrees({ workspaceRoot: folder, baseFolder: () => options.baseFolder });
      const made = await worktrees.create({ name, baseCommit: recorded.commit });
      const { worktree } = made;
      return {
        root: worktree.root,
        manifestPlace: { kind: 'worktree', root: worktree.root, commit: worktree.base.commit, branch: worktree.branch },
        worktree,
        notices: made.notices,
      };
    } catch (error) {
      if (!(error instanceof WorktreeError) || error.kind !== 'not-a-repository') throw error;
    }
  }
  const target = freeFolder(path.join(options.baseFolder, name));
  copyBounded(folder, target, options.limits ?? SCRATCH_LIMITS);
  const root = fs.realpathSync(target);
  return {
    root,
    manifestPlace: { kind: 'workspace', root },
    notices: [
      `${recorded.commit ? `${folder} is not a git repository` : 'The recording names no commit'}: the re-run works in a scratch copy of ${folder} as it is now (${root}), not as it was when the run was recorded.`,
    ],
  };
}

function isDirectory(folder: string): boolean {
  try {
    return folder !== '' && fs.statSync(folder).isDirectory();
  } catch {
    return false;
  }
}

function freeFolder(wanted: string): string {
  for (let attempt = 1; attempt <= 100; attempt++) {
    const candidate = attempt === 1 ? wanted : `${wanted}-${attempt}`;
    if (!fs.existsSync(candidate)) return candidate;
  }
  throw new Error(`There is no free folder name for a scratch copy at ${wanted}.`);
}

/** Copies regular files and folders (no links, no .git or node_modules); too many or too large: refused, nothing left. */
function copyBounded(from: string, to: string, limits: { files: number; bytes: number }): void {
  const plan: Array<{ source: string; target: string; folder: boolean }> = [];
  let files = 0;
  let bytes = 0;
  const walk = (source: string, target: string) => {
    for (const entry of fs.readdirSync(source, { withFileTypes: true })) {
      if (SKIPPED.has(entry.name)) continue;
      const child = path.join(source, entry.name);
      const copy = path.join(target, entry.name);
      if (entry.isDirectory()) {
        plan.push({ source: child, target: copy, folder: true });
        walk(child, copy);
      } else if (entry.isFile()) {
        files++;
        bytes += fs.statSync(child).size;
        if (files > limits.files || bytes > limits.bytes)
          throw new Error(
            `${from} is too large for a scratch copy (more than ${limits.files} files or ${Math.round(limits.bytes / 1024 / 1024)} MB): make it a git repository with a commit, and re-run in a worktree.`,
          );
        plan.push({ source: child, target: copy, folder: false });
      }
    }
  };
  walk(from, to);
  fs.mkdirSync(to, { recursive: true });
  try {
    for (const item of plan) {
      if (item.folder) fs.mkdirSync(item.target, { recursive: true });
      else fs.copyFileSync(item.source, item.target, fs.constants.COPYFILE_EXCL);
    }
  } catch (error) {
    fs.rmSync(to, { recursive: true, force: true });
    throw error;
  }
}
