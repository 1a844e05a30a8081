/**
 * What a confined run does with the protected set (protected-set.ts) on the host, before and
 * after the command: separate protected files from their other names (hard links), put an
 * empty, read-only stand-in where a named place is missing (so the command cannot create it),
 * take those stand-ins away after, put back protected names that were links, and say what a
 * command moved.
 */
import {
  chmodSync,
  constants,
  copyFileSync,
  lstatSync,
  mkdirSync,
  readlinkSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  symlinkSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import * as path from 'node:path';
import type { ProtectedSet } from './protected-set';
import { lstatOr } from './quiet-fs';

/**
 * Before a confined run: each protected file with other names gets a fresh copy of itself in
 * its place (same content, mode and times), so that writing through the other names — which
 * the walk may not see (dependency folders, outside the workspace) — cannot change it. Returns
 * the note for the output, if any was separated or could not be.
 */
export function separateLinks(set: ProtectedSet): string | undefined {
  const done: string[] = [];
  const failed: string[] = [];
  for (const file of set.protectedLinked) {
    const shown = path.relative(set.root, file);
    const copy = path.join(path.dirname(file), `.${path.basename(file)}.openagent-${process.pid}-${Date.now()}`);
    try {
      const stat = statSync(file);
      copyFileSync(file, copy, constants.COPYFILE_EXCL);
      chmodSync(copy, stat.mode & 0o7777);
      utimesSync(copy, stat.atime, stat.mtime);
      renameSync(copy, file);
      const fresh = lstatSync(file);
      for (const entry of set.paths) if (entry.absolute === file) entry.identity = `${fresh.dev}:${fresh.ino}`;
      done.push(shown);
    } catch (error) {
      rmSync(copy, { force: true });
      failed.push(`${shown} (${(error as Error).message})`);
    }
  }
  return (
    [
      done.length
        ? `[separated ${done.join(', ')} from its other names (hard links): writing those no longer changes a protected file]`
        : '',
      failed.length
        ? `[could not separate ${failed.join(', ')} from its other names: a write through them changes it]`
        : '',
    ]
      .filter(Boolean)
      .join('\n') || undefined
  );
}

/**
 * Before a bubblewrap run: each missing place the set names (a hooks folder, an included
 * config, a program, a git folder that do not exist yet) is made empty — with the folders
 * leading to it — so that it can be bound read-only and the command cannot create it. Returns
 * what was made, parents first: to take away after the run (takeAway).
 */
export function standIns(set: ProtectedSet): string[] {
  const made: string[] = [];
  for (const entry of set.missing) {
    const parents: string[] = [];
    for (let folder = path.dirname(entry.absolute); folder !== set.root; folder = path.dirname(folder)) {
      if (lstatOr(folder)) break;
      parents.unshift(folder);
    }
    try {
      for (const folder of parents) {
        mkdirSync(folder);
        made.push(folder);
      }
      if (entry.kind === 'folder') mkdirSync(entry.absolute, { mode: 0o755 });
      else writeFileSync(entry.absolute, '', { flag: 'wx', mode: 0o644 });
      made.push(entry.absolute);
    } catch {
      // Made meanwhile (by the user or another run): it exists now and is bound as it is.
    }
  }
  return made;
}

/** After a run: stand-ins (and top-level placeholders) that are still empty go, deepest first. */
export function takeAway(paths: readonly string[]): void {
  for (const absolute of [...paths].sort((a, b) => b.length - a.length)) {
    const stat = lstatOr(absolute);
    try {
      if (stat?.isDirectory()) rmdirSync(absolute);
      else if (stat?.isFile() && stat.size === 0) unlinkSync(absolute);
    } catch {
      // Not empty: the user put something there meanwhile (the sandbox could not): it stays.
    }
  }
}

/**
 * After a confined run: a protected name that was a link at depth (`app/.git`, `app/package.json`)
 * and is something else now is put back — the link itself lives in a writable folder.
 */
export function restoreLinks(set: ProtectedSet): string | undefined {
  const restored: string[] = [];
  const failed: string[] = [];
  for (const link of set.links) {
    let now: string | undefined;
    try {
      now = readlinkSync(link.absolute);
    } catch {
      now = undefined;
    }
    if (now === link.target) continue;
    const shown = path.relative(set.root, link.absolute);
    try {
      rmSync(link.absolute, { recursive: true, force: true });
      symlinkSync(link.target, link.absolute);
      restored.push(shown);
    } catch (error) {
      failed.push(`${shown} (${(error as Error).message})`);
    }
  }
  return (
    [
      restored.length
        ? `[put back ${restored.join(', ')}: a confined command may not replace a protected path; ask the user to approve a command that does]`
        : '',
      failed.length ? `[could not put back ${failed.join(', ')}: check these protected paths before running git]` : '',
    ]
      .filter(Boolean)
      .join('\n') || undefined
  );
}

/**
 * After a confined run: protected paths that are no longer where they were (a folder above one
 * was renamed, and something else may stand in its place). The note asks to check them.
 */
export function movedAside(set: ProtectedSet): string | undefined {
  const moved = set.paths.filter((entry) => {
    const stat = lstatOr(entry.absolute);
    return !stat || `${stat.dev}:${stat.ino}` !== entry.identity;
  });
  if (moved.length === 0) return undefined;
  const shown = moved.slice(0, 10).map((entry) => path.relative(set.root, entry.absolute));
  return `[protected paths moved or replaced during the run: ${shown.join(', ')}${moved.length > 10 ? ', …' : ''}; a confined command may not do that: check them before running git or installs there]`;
}
