/**
 * The workspace's protected set (issue 32), decided once on real paths for the file tools'
 * assessment (call-risk.ts) and the sandbox (bubblewrap.ts, seatbelt.ts) alike:
 * - every entry the policy's name rules protect (protected-paths.ts), at any depth: `.git`
 *   folders and files, `.vscode`, `.openagent`, `.github`, `.husky`, `.githooks`,
 *   `.devcontainer`, `.env*` files, package manifests and package-manager rc files. Lock files
 *   are left out here: the file tools still ask about them (name rule), but an install run
 *   confined rewrites them;
 * - the git folder a `.git` file names (submodules, worktrees, `gitdir: any/folder`), and the
 *   common folder that one names (`commondir`);
 * - what a repository's configuration names: the `core.hooksPath` folder (a git hooks folder),
 *   included configuration files, and any workspace file a value names as a program
 *   (`core.fsmonitor = ./watch`, `filter.x.clean = scripts/clean`): git runs them;
 * - the file `yarnPath` names in a `.yarnrc.yml` (yarn runs it on every command).
 * Dependency folders (`node_modules` and the like) are not walked: a package manager rewrites
 * them whole, so `npm install` works confined; their manifests are not protected from commands.
 * Files with more than one hard link are listed too (the sandbox makes them read-only: a write
 * would change their other names, outside the workspace perhaps), and so are protected files
 * that have other names (the sandbox breaks those links before a run).
 * The walk is bounded (WALK_LIMITS) and follows no link except to protect its target.
 */
import {
  chmodSync,
  constants,
  copyFileSync,
  lstatSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  type Dirent,
  type Stats,
} from 'node:fs';
import * as path from 'node:path';
import { isLockFile, isProtectedPath } from '../../core/policy/protected-paths';
import { isInside } from '../../core/workspace/workspace-path';

/** The walk's caps: beyond them, what was not seen is not protected (README, "Known limits"). */
export const WALK_LIMITS = {
  /** Folders deep below the workspace root. */
  depth: 12,
  /** Folder entries read in all. */
  entries: 50_000,
  /** Git configuration files read (includes too). */
  configs: 64,
  /** Files inside protected folders checked for other names (`objects` left out). */
  protectedFiles: 5_000,
  /** Unprotected files checked for other names (an `lstat` each, shallow ones first). */
  linkChecks: 5_000,
  /** Multiply-linked files made read-only; more are left as they are. */
  linkedFiles: 256,
};

/** Folders a package manager rewrites whole: not walked. */
const DEPENDENCY_FOLDERS = new Set(['node_modules', 'bower_components', 'jspm_packages', '.pnpm-store']);
/** Inside protected folders: content-addressed stores git checks itself, often hard-linked by `git clone --local`. */
const UNCHECKED_INSIDE_PROTECTED = new Set(['objects', 'lfs']);
const MAX_SMALL_FILE = 64 * 1024;

export interface ProtectedPath {
  /** The real absolute path. */
  absolute: string;
  kind: 'file' | 'folder';
  /** Why it is protected, for messages. */
  why: string;
  /** Its identity when walked (`dev:ino`): a run that moved it aside is noticed. */
  identity: string;
}

export interface ProtectedSet {
  /** The real workspace root. */
  root: string;
  paths: ProtectedPath[];
  /** Unprotected workspace files with more than one name (hard links). */
  linked: string[];
  /** Protected files with more than one name. */
  protectedLinked: string[];
  /** A cap was reached: what lies beyond it was not looked at. */
  truncated: boolean;
}

/**
 * The set for `root`. `links: false` skips looking for other names of unprotected files (a
 * `lstat` a file, most of the walk's cost): the file tools break links on write anyway.
 */
export function protectedSet(root: string, options: { links?: boolean } = {}): ProtectedSet {
  return new Walk(realOr(root), options.links ?? true).run();
}

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

/** Whether `absolute` (a real path) is a protected path of the set or inside one. */
export function protectedBy(set: ProtectedSet, absolute: string): ProtectedPath | undefined {
  return set.paths.find(
    (entry) => absolute === entry.absolute || (entry.kind === 'folder' && isInside(entry.absolute, absolute)),
  );
}

class Walk {
  private readonly found = new Map<string, ProtectedPath>();
  private readonly linked: string[] = [];
  private readonly gitDirs: Array<{ gitdir: string; worktree: string }> = [];
  private readonly configsRead = new Set<string>();
  private truncated = false;
  private linkChecks = 0;

  constructor(
    private readonly root: string,
    private readonly links: boolean,
  ) {}

  run(): ProtectedSet {
    let seen = 0;
    let folders = [''];
    for (let depth = 0; depth <= WALK_LIMITS.depth && folders.length > 0; depth++) {
      const next: string[] = [];
      for (const folder of folders) {
        for (const entry of this.read(path.join(this.root, folder))) {
          if (++seen > WALK_LIMITS.entries) {
            this.truncated = true;
            return this.finish();
          }
          const relative = folder ? `${folder}/${entry.name}` : entry.name;
          if (this.visit(entry, relative)) next.push(relative);
        }
      }
      folders = next;
    }
    if (folders.length > 0) this.truncated = true;
    return this.finish();
  }

  /** Looks at one entry; true if it is a folder to walk into. */
  private visit(entry: Dirent, relative: string): boolean {
    const absolute = path.join(this.root, relative);
    const name = entry.name;
    const isGit = name.toLowerCase() === '.git';
    if (entry.isDirectory()) {
      if (isProtectedPath(`${name}/x`)) {
        this.add(absolute, 'folder', relative);
        if (isGit) this.gitDirs.push({ gitdir: absolute, worktree: path.dirname(absolute) });
        return false;
      }
      return !DEPENDENCY_FOLDERS.has(name);
    }
    if (entry.isFile()) {
      if (isGit) this.gitFile(absolute, relative);
      else if (isProtectedPath(name) && !isLockFile(name)) {
        this.add(absolute, 'file', relative);
        if (/^\.yarnrc\.yml$/i.test(name)) this.yarnPath(absolute, relative);
      } else if (this.links && this.linkChecks++ < WALK_LIMITS.linkChecks) {
        const stat = lstatOr(absolute);
        if (stat && stat.nlink > 1) this.linked.push(absolute);
      }
      return false;
    }
    if (entry.isSymbolicLink() && (isProtectedPath(`${name}/x`) || (isProtectedPath(name) && !isLockFile(name)))) {
      // A protected name that is a link: what it leads to is protected (when in the workspace).
      const target = realOrUndefined(absolute);
      const stat = target && lstatOr(target);
      if (!target || !stat) return false;
      this.add(target, stat.isDirectory() ? 'folder' : 'file', `${relative} (a link)`);
      if (isGit && stat.isDirectory()) this.gitDirs.push({ gitdir: target, worktree: path.dirname(absolute) });
      else if (isGit) this.gitFile(target, relative);
    }
    return false;
  }

  private finish(): ProtectedSet {
    // Configurations last: every git folder found so far, and the folders they lead to.
    for (let at = 0; at < this.gitDirs.length; at++) this.gitConfig(this.gitDirs[at]!);
    const paths = [...this.found.values()].sort((a, b) => a.absolute.length - b.absolute.length);
    const inSet = (file: string) => paths.some((entry) => entry.absolute === file || isInside(entry.absolute, file));
    const linked = this.linked.filter((file) => !inSet(file));
    if (linked.length > WALK_LIMITS.linkedFiles || this.linkChecks > WALK_LIMITS.linkChecks) this.truncated = true;
    return {
      root: this.root,
      paths,
      linked: linked.slice(0, WALK_LIMITS.linkedFiles),
      protectedLinked: this.protectedLinked(paths),
      truncated: this.truncated,
    };
  }

  /** Protected files, and files inside protected folders, that have other names. */
  private protectedLinked(paths: ProtectedPath[]): string[] {
    const result: string[] = [];
    let budget = WALK_LIMITS.protectedFiles;
    const check = (file: string, stat: Stats | undefined) => {
      if (stat?.isFile() && stat.nlink > 1) result.push(file);
    };
    for (const entry of paths) {
      if (entry.kind === 'file') {
        check(entry.absolute, lstatOr(entry.absolute));
        continue;
      }
      let folders = [entry.absolute];
      while (folders.length > 0 && budget > 0) {
        const next: string[] = [];
        for (const folder of folders) {
          for (const child of this.read(folder)) {
            if (--budget < 0) {
              this.truncated = true;
              break;
            }
            const absolute = path.join(folder, child.name);
            if (child.isDirectory() && !UNCHECKED_INSIDE_PROTECTED.has(child.name)) next.push(absolute);
            else if (child.isFile()) check(absolute, lstatOr(absolute));
          }
        }
        folders = next;
      }
    }
    return [...new Set(result)];
  }

  /** A `.git` file: the folder it names is a git folder (a submodule's, a worktree's). */
  private gitFile(absolute: string, relative: string): void {
    this.add(absolute, 'file', relative);
    const gitdir = /^gitdir:\s*(.+?)\s*$/m.exec(smallText(absolute) ?? '')?.[1];
    if (!gitdir) return;
    const target = realOrUndefined(path.resolve(path.dirname(absolute), gitdir));
    if (!target || !lstatOr(target)?.isDirectory()) return;
    this.add(target, 'folder', `the git folder ${relative} names`);
    this.gitDirs.push({ gitdir: target, worktree: path.dirname(absolute) });
  }

  /** A git folder's configuration: the common folder, hooks folder, includes and programs it names. */
  private gitConfig({ gitdir, worktree }: { gitdir: string; worktree: string }): void {
    const common = smallText(path.join(gitdir, 'commondir'))?.trim();
    if (common) {
      const target = realOrUndefined(path.resolve(gitdir, common));
      if (target && lstatOr(target)?.isDirectory() && !this.found.has(target)) {
        this.add(target, 'folder', `the common git folder of ${this.shown(gitdir)}`);
        this.gitDirs.push({ gitdir: target, worktree });
      }
    }
    const pending = ['config', 'config.worktree'].map((name) => path.join(gitdir, name));
    while (pending.length > 0) {
      const file = pending.shift()!;
      if (this.configsRead.has(file)) continue;
      if (this.configsRead.size >= WALK_LIMITS.configs) {
        this.truncated = true;
        return;
      }
      this.configsRead.add(file);
      const text = smallText(file);
      if (text === undefined) continue;
      for (const { key, value } of configValues(text)) {
        if (key === 'core.hookspath') {
          const hooks = this.inWorkspace(value, worktree);
          if (hooks && lstatOr(hooks)?.isDirectory())
            this.add(hooks, 'folder', `the hooks folder ${this.shown(file)} names`);
        } else if (key === 'include.path' || (key.startsWith('includeif.') && key.endsWith('.path'))) {
          const included = this.inWorkspace(value, path.dirname(file));
          if (included && lstatOr(included)?.isFile()) {
            this.add(included, 'file', `configuration ${this.shown(file)} includes`);
            pending.push(included);
          }
        } else {
          // A program named by a path (`./watch`, `scripts/clean --x`, `!tools/run`): git runs it.
          const program = /^!?\s*((?:\.{0,2}\/)?[^\s'"]*\/[^\s'"]+)/.exec(value)?.[1];
          const target = program && this.inWorkspace(program, worktree);
          if (target && lstatOr(target)?.isFile()) this.add(target, 'file', `a program ${this.shown(file)} names`);
        }
      }
    }
  }

  /** `yarnPath` in a `.yarnrc.yml`: the file yarn runs in place of itself. */
  private yarnPath(absolute: string, relative: string): void {
    const value = /^\s*yarnPath:\s*["']?([^"'\n#]+?)["']?\s*(#.*)?$/m.exec(smallText(absolute) ?? '')?.[1];
    const target = value && this.inWorkspace(value, path.dirname(absolute));
    if (target && lstatOr(target)?.isFile()) this.add(target, 'file', `the yarn ${relative} runs`);
  }

  /** The real path `value` names from `base`, if it exists inside the workspace (never the root). */
  private inWorkspace(value: string, base: string): string | undefined {
    if (value.startsWith('~')) return undefined;
    const target = realOrUndefined(path.resolve(base, value));
    return target && target !== this.root && isInside(this.root, target) ? target : undefined;
  }

  private add(absolute: string, kind: 'file' | 'folder', why: string): void {
    if (absolute === this.root || !isInside(this.root, absolute) || this.found.has(absolute)) return;
    const stat = lstatOr(absolute);
    if (!stat) return;
    this.found.set(absolute, { absolute, kind, why, identity: `${stat.dev}:${stat.ino}` });
  }

  private read(folder: string): Dirent[] {
    try {
      return readdirSync(folder, { withFileTypes: true });
    } catch {
      return [];
    }
  }

  private shown(absolute: string): string {
    return path.relative(this.root, absolute) || '.';
  }
}

/** `section.key` (subsection kept, lower-cased but for the subsection) and value, per line of a git config. */
export function configValues(text: string): Array<{ key: string; value: string }> {
  const values: Array<{ key: string; value: string }> = [];
  let section = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const header = /^\[\s*([^\s\]"]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/.exec(line);
    let rest = line;
    if (header) {
      section = header[2] !== undefined ? `${header[1]!.toLowerCase()}.${header[2]}` : header[1]!.toLowerCase();
      rest = header[3] ?? '';
    }
    const pair = /^([A-Za-z][\w-]*)\s*(?:=\s*(.*))?$/.exec(rest);
    if (!pair || !section) continue;
    values.push({ key: `${section}.${pair[1]!.toLowerCase()}`, value: configValue(pair[2] ?? '') });
  }
  return values;
}

/** A git config value: quotes removed, a comment after it dropped. */
function configValue(raw: string): string {
  let value = '';
  let quoted = false;
  for (let at = 0; at < raw.length; at++) {
    const char = raw[at]!;
    if (char === '\\' && at + 1 < raw.length) value += raw[++at];
    else if (char === '"') quoted = !quoted;
    else if ((char === '#' || char === ';') && !quoted) break;
    else value += char;
  }
  return value.trim();
}

function smallText(file: string): string | undefined {
  try {
    const stat = lstatSync(file);
    if (!stat.isFile() || stat.size > MAX_SMALL_FILE) return undefined;
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}

function lstatOr(file: string): Stats | undefined {
  try {
    return lstatSync(file);
  } catch {
    return undefined;
  }
}

function realOrUndefined(file: string): string | undefined {
  try {
    return realpathSync(file);
  } catch {
    return undefined;
  }
}

function realOr(file: string): string {
  return realOrUndefined(file) ?? file;
}

/** For the file tools' assessment (call-risk.ts): the set's places, without the hard-link search. */
export async function protectedPlaces(root: string): Promise<ProtectedPath[]> {
  return protectedSet(root, { links: false }).paths;
}
