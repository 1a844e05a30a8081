/**
 * What a confined command may touch, whatever confines it (bubblewrap on Linux, Seatbelt on
 * macOS), decided once here:
 * - inside the workspace, whole top-level entries are read-only: `.git` (hooks, config,
 *   commondir, submodules — git reads too many control files to protect them one by one, so
 *   git commands that write the repository ask and run outside), `.github`, `.openagent`,
 *   `.vscode`, `.husky`, `.githooks`, `.devcontainer`, and `.env*` files. Being top-level
 *   mount points, they cannot be renamed away either. Missing ones get an empty read-only
 *   placeholder for the run (removed after it), so they cannot be created meanwhile;
 * - deeper, the protected set (protected-set.ts) is read-only too: nested repositories, the
 *   git folders `.git` files name, hooks folders, manifests, and files with other names;
 * - the home folder is hidden whole (an empty, throw-away one in its place) except the tools
 *   commands need, bound back read-only — with the credentials inside those hidden again
 *   (home-tools.ts).
 */
import { lstatSync, readdirSync, readlinkSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import type { ProtectedSet } from './protected-set';
import { isInsidePath as isInside } from '../../core/workspace/platform-path';

/** Top-level entries of the workspace that confined commands may not change. */
export const PROTECTED_TOP = [
  '.git',
  '.github',
  '.openagent',
  '.vscode',
  '.husky',
  '.githooks',
  '.devcontainer',
  // Claude Code's agents (tool lists), hooks and rules: honoured as configuration (issue 35).
  '.claude',
];

/** One confined run: where, with what, allowed what. */
export interface ConfinementPlan {
  /** The workspace's real path (writable), if there is one. */
  root: string | undefined;
  cwd: string;
  env: Record<string, string>;
  network: boolean;
  home: string;
  /** Other home folders to hide whole (the account's, when `HOME` names another folder). */
  otherHomes?: readonly string[];
  /** More paths to hide (the editor's storage of conversations). */
  hidden: readonly string[];
  /** An empty folder to put in place of a missing protected one. */
  placeholder?: string;
  /** An empty file to cover a secret file with. */
  emptyFile?: string;
  /** The PATH the command gets: its folders inside the home folder are bound back. */
  pathDirectories?: readonly string[];
  /** The workspace's protected entries as they are before the run (protectedEntries). */
  entries?: ReturnType<typeof protectedEntries>;
  /** The workspace's protected set (protected-set.ts), walked before the run. */
  protectedSet?: ProtectedSet;
}

export type EntryKind = 'file' | 'folder' | 'link';

export function kindOf(absolute: string): 'file' | 'folder' | undefined {
  try {
    const stat = lstatSync(absolute);
    if (stat.isSymbolicLink()) return lstatSync(realpathSync(absolute)).isDirectory() ? 'folder' : 'file';
    return stat.isDirectory() ? 'folder' : 'file';
  } catch {
    return undefined;
  }
}

/** What a top-level entry is right now, without following a link: to notice it changed. */
export function entryState(absolute: string): string {
  try {
    const stat = lstatSync(absolute);
    if (stat.isSymbolicLink()) return `link:${readlinkSync(absolute)}`;
    return stat.isDirectory() ? 'folder' : 'file';
  } catch {
    return 'missing';
  }
}

/** The workspace's protected entries: each top-level name with its real path and state. */
export function protectedEntries(root: string): Array<{ name: string; absolute: string; state: string }> {
  let envFiles: string[] = [];
  try {
    envFiles = readdirSync(root).filter((name) => /^\.env/i.test(name));
  } catch {
    // No root to read.
  }
  return [...PROTECTED_TOP, ...envFiles].map((name) => {
    const absolute = path.join(root, name);
    return { name, absolute, state: entryState(absolute) };
  });
}

/** Whether `root` is the home folder or holds it: then the home's secrets cannot be hidden. */
export function holdsHome(root: string, home: string): boolean {
  return isInside(root, home);
}

/**
 * More folders a confined command may not change, for the protected top-level entries as they
 * are: for an entry that is a link, its target and every folder between the workspace and it
 * (renaming one would swap it). What lies deeper is the protected set's (protected-set.ts).
 */
export function protectedTargets(root: string, entries = protectedEntries(root)): string[] {
  const targets: string[] = [];
  for (const entry of entries) {
    if (!entry.state.startsWith('link:')) continue;
    let target: string;
    try {
      target = realpathSync(entry.absolute);
    } catch {
      continue;
    }
    for (let folder = target; folder !== root && folder.startsWith(`${root}${path.sep}`); folder = path.dirname(folder))
      targets.push(folder);
  }
  return targets.filter((target) => target !== root && target.startsWith(`${root}${path.sep}`));
}
