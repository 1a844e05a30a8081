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
 * - what a repository's configuration names (git-named-places.ts): the `core.hooksPath`
 *   folder (a git hooks folder), included configuration files, and any workspace file a word
 *   of a value names (`core.fsmonitor = sh scripts/watch`, `alias.x = !tools/run`): git runs
 *   them, through the shell;
 * - the file `yarnPath` names in a `.yarnrc.yml` (yarn runs it on every command).
 * A named place that does not exist yet is listed as missing: the file tools ask before making
 * it, and the sandbox puts an empty read-only stand-in there for the run (protected-run.ts).
 * Dependency folders (`node_modules` and the like) are not walked: a package manager rewrites
 * them whole, so `npm install` works confined; their manifests are not protected from commands.
 * Files with more than one hard link are listed too (the sandbox makes them read-only: a write
 * would change their other names, outside the workspace perhaps), and so are protected files
 * that have other names (the sandbox breaks those links before a run).
 * The walk is bounded (WALK_LIMITS) and follows no link except to protect its target. What it
 * did not look at because of a cap is read-only to confined commands (fail closed, and said),
 * and every folder above a protected path is listed so that the sandbox can keep it from being
 * renamed (a rename would carry the protected path away and let another take its place).
 */
import { lstatSync, readdirSync, readFileSync, type Dirent, type Stats } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isLockFile, isProtectedPath } from '../../core/policy/protected-paths';
import { isInside } from '../../core/workspace/workspace-path';
import {
  configValues,
  gitdirValues,
  HOOKS_KEY,
  isIncludeKey,
  isProgramKey,
  pathLike,
  valueWords,
} from './git-named-places';
import { lstatOr, readlinkOr, realOrUndefined, realOr } from './quiet-fs';

/** The walk's caps: beyond them, what was not seen is read-only to confined commands. */
export const WALK_LIMITS = {
  /** Folders deep below the workspace root (the entries cap bounds the work: this only stops pathological depth). */
  depth: 64,
  /** Folder entries read in all. */
  entries: 50_000,
  /** Git configuration files read (includes too). */
  configs: 64,
  /** Files inside protected folders checked for other names (`objects` left out). */
  protectedFiles: 5_000,
  /** Unprotected files checked for other names (an `lstat` each, shallow ones first). */
  linkChecks: 5_000,
  /** Multiply-linked files made read-only one by one; beyond, their folders are. */
  linkedFiles: 256,
  /** Folders made read-only for what the walk did not see; beyond, their parents are. */
  unseenFolders: 256,
};

/** Folders a package manager rewrites whole: not walked. */
const DEPENDENCY_FOLDERS = new Set(['node_modules', 'bower_components', 'jspm_packages', '.pnpm-store']);
/** Inside protected folders: content-addressed stores git checks itself, often hard-linked by `git clone --local`. */
const UNCHECKED_INSIDE_PROTECTED = new Set(['objects', 'lfs']);
const MAX_SMALL_FILE = 64 * 1024;

export interface ProtectedPath {
  /** The real absolute path (for a missing one: its real parent, and the names still to make). */
  absolute: string;
  kind: 'file' | 'folder';
  /** Why it is protected, for messages. */
  why: string;
  /** Its identity when walked (`dev:ino`, `missing`): a run that moved it aside is noticed. */
  identity: string;
}

export interface ProtectedSet {
  /** The real workspace root. */
  root: string;
  paths: ProtectedPath[];
  /** Places the set names that do not exist yet (a hooks folder, an included config, a program). */
  missing: ProtectedPath[];
  /** Unprotected workspace files with more than one name (hard links). */
  linked: string[];
  /** Protected files with more than one name. */
  protectedLinked: string[];
  /** Protected names that are links, below the top level: put back after a run if replaced. */
  links: Array<{ absolute: string; target: string }>;
  /** Folders the walk did not look into (a cap was reached): read-only to confined commands. */
  unseen: string[];
  /** Folders above protected paths (none inside a read-only one): kept from being renamed. */
  guards: string[];
  /** A cap was reached: what lies beyond it was not looked at (and is in `unseen`). */
  truncated: boolean;
}

/**
 * The set for `root`. `links: false` skips looking for other names of unprotected files (a
 * `lstat` a file, most of the walk's cost): the file tools break links on write anyway.
 */
export function protectedSet(root: string, options: { links?: boolean } = {}): ProtectedSet {
  return new Walk(realOr(root), options.links ?? true).run();
}

/** Whether `absolute` (a real path) is a protected path of the set (or a missing one) or inside one. */
export function protectedBy(set: ProtectedSet, absolute: string): ProtectedPath | undefined {
  return [...set.paths, ...set.missing].find(
    (entry) => absolute === entry.absolute || (entry.kind === 'folder' && isInside(entry.absolute, absolute)),
  );
}

/** The note for the output when the walk stopped at a cap. */
export function unseenNote(set: ProtectedSet): string | undefined {
  if (set.unseen.length === 0) return undefined;
  const shown = set.unseen.slice(0, 5).map((folder) => path.relative(set.root, folder) || '.');
  return `[the workspace is larger than the sandbox looks through (${WALK_LIMITS.entries.toLocaleString('en')} entries, ${WALK_LIMITS.depth} folders deep): what it did not see is read-only to this command: ${shown.join(', ')}${set.unseen.length > 5 ? ', …' : ''}]`;
}

class Walk {
  private readonly found = new Map<string, ProtectedPath>();
  private readonly missing = new Map<string, ProtectedPath>();
  private readonly linked: string[] = [];
  private readonly links: Array<{ absolute: string; target: string }> = [];
  private readonly gitDirs: Array<{ gitdir: string; worktree: string }> = [];
  private readonly configsRead = new Set<string>();
  private unseen: string[] = [];
  private truncated = false;
  private linkChecks = 0;

  constructor(
    private readonly root: string,
    private readonly checkLinks: boolean,
  ) {}

  run(): ProtectedSet {
    let seen = 0;
    let folders = [''];
    for (let depth = 0; folders.length > 0; depth++) {
      if (depth > WALK_LIMITS.depth) {
        this.unseen = folders;
        break;
      }
      const next: string[] = [];
      for (let at = 0; at < folders.length; at++) {
        const folder = folders[at]!;
        const entries = this.read(path.join(this.root, folder));
        if (seen + entries.length > WALK_LIMITS.entries) {
          // Fail closed: this folder, the rest of this level and what was queued below.
          this.unseen = [...folders.slice(at), ...next];
          break;
        }
        seen += entries.length;
        for (const entry of entries) {
          const relative = folder ? `${folder}/${entry.name}` : entry.name;
          if (this.visit(entry, relative)) next.push(relative);
        }
      }
      if (this.unseen.length > 0) break;
      folders = next;
    }
    if (this.unseen.length > 0) this.truncated = true;
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
      } else if (this.checkLinks && this.linkChecks++ < WALK_LIMITS.linkChecks) {
        const stat = lstatOr(absolute);
        if (stat && stat.nlink > 1) this.linked.push(absolute);
      }
      return false;
    }
    if (entry.isSymbolicLink() && (isProtectedPath(`${name}/x`) || (isProtectedPath(name) && !isLockFile(name)))) {
      // A protected name that is a link: what it leads to is protected (when in the workspace),
      // and the link is put back after a run that replaced it (top-level ones: os-sandbox.ts).
      if (relative.includes('/')) {
        const target = readlinkOr(absolute);
        if (target !== undefined) this.links.push({ absolute, target });
      }
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
    const missing = [...this.missing.values()].filter((entry) => !this.found.has(entry.absolute));
    const inSet = (file: string) => paths.some((entry) => entry.absolute === file || isInside(entry.absolute, file));
    const linked = this.linked.filter((file) => !inSet(file));
    if (this.linkChecks > WALK_LIMITS.linkChecks) this.truncated = true;
    // Linked files beyond the cap: their folders are read-only instead (fail closed).
    const unseen = coalesce(
      [
        ...this.unseen.map((relative) => path.join(this.root, relative)),
        ...linked.slice(WALK_LIMITS.linkedFiles).map((file) => path.dirname(file)),
      ],
      this.root,
    );
    const readOnly = new Set([
      ...paths.filter((entry) => entry.kind === 'folder').map((entry) => entry.absolute),
      ...missing.filter((entry) => entry.kind === 'folder').map((entry) => entry.absolute),
      ...unseen,
    ]);
    const places = [...paths, ...missing].map((entry) => entry.absolute);
    const guards = new Set<string>();
    for (const place of [...places, ...this.links.map((link) => link.absolute)])
      for (
        let folder = path.dirname(place);
        folder !== this.root && isInside(this.root, folder);
        folder = path.dirname(folder)
      )
        if (!within(readOnly, folder, this.root)) guards.add(folder);
    return {
      root: this.root,
      paths,
      missing,
      linked: linked.slice(0, WALK_LIMITS.linkedFiles),
      protectedLinked: this.protectedLinked(paths),
      links: this.links,
      unseen,
      guards: [...guards].sort((a, b) => a.length - b.length),
      truncated: this.truncated || unseen.length > 0,
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
    for (const gitdir of gitdirValues(smallText(absolute) ?? '')) {
      const base = path.dirname(absolute);
      const target =
        this.place(gitdir, base, 'folder', `the git folder ${relative} names`) ?? this.outsideFolder(gitdir, base);
      if (target) this.gitDirs.push({ gitdir: target, worktree: base });
    }
  }

  /** A git folder's configuration: the common folder, hooks folder, includes and programs it names. */
  private gitConfig({ gitdir, worktree }: { gitdir: string; worktree: string }): void {
    const common = smallText(path.join(gitdir, 'commondir'))?.replace(/[\r\n]+$/, '');
    if (common) {
      const target =
        this.place(common, gitdir, 'folder', `the common git folder of ${this.shown(gitdir)}`) ??
        this.outsideFolder(common, gitdir);
      if (target && !this.gitDirs.some((known) => known.gitdir === target))
        this.gitDirs.push({ gitdir: target, worktree });
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
        if (key === HOOKS_KEY) this.place(value, worktree, 'folder', `the hooks folder ${this.shown(file)} names`);
        else if (isIncludeKey(key)) {
          const included = this.place(value, path.dirname(file), 'file', `configuration ${this.shown(file)} includes`);
          if (included) pending.push(included);
        } else {
          // Any word that names a workspace file (git runs programs through the shell: `sh x`,
          // `!tools/run`, `$GIT_DIR/../x`); a missing one only where the key runs a program.
          for (const word of valueWords(value)) {
            const target = this.inWorkspace(word, worktree);
            if (!target) continue;
            const stat = lstatOr(target.absolute);
            if (stat?.isFile()) this.add(target.absolute, 'file', `a program ${this.shown(file)} names`);
            else if (!stat && isProgramKey(key) && pathLike(word))
              this.place(word, worktree, 'file', `a program ${this.shown(file)} names`);
          }
        }
      }
    }
  }

  /** `yarnPath` in a `.yarnrc.yml`: the file yarn runs in place of itself. */
  private yarnPath(absolute: string, relative: string): void {
    const value = /^\s*yarnPath:\s*["']?([^"'\n#]+?)["']?\s*(#.*)?$/m.exec(smallText(absolute) ?? '')?.[1];
    if (value) this.place(value, path.dirname(absolute), 'file', `the yarn ${relative} runs`);
  }

  /**
   * A place named by `value` from `base`: protected if it is there (and of that kind), listed
   * as missing if nothing is there yet. Returns its real path when it exists.
   */
  private place(value: string, base: string, kind: 'file' | 'folder', why: string): string | undefined {
    const target = this.inWorkspace(value, base);
    if (!target) return undefined;
    const stat = lstatOr(target.absolute);
    if (!stat) {
      if (!this.missing.has(target.absolute))
        this.missing.set(target.absolute, { absolute: target.absolute, kind, why, identity: 'missing' });
      return undefined;
    }
    if (stat.isDirectory() !== (kind === 'folder')) return undefined;
    this.add(target.absolute, kind, why);
    return target.absolute;
  }

  /**
   * The real path `value` names from `base` (`~/` is the home folder, as git reads it), if it
   * is inside the workspace and not the root; a missing one gets its real parent.
   */
  private inWorkspace(value: string, base: string): { absolute: string } | undefined {
    let named = value;
    if (named === '~' || named.startsWith('~/')) named = path.join(os.homedir(), named.slice(1));
    else if (named.startsWith('~')) return undefined;
    const target = realFuture(path.resolve(base, named));
    return target && target !== this.root && isInside(this.root, target) ? { absolute: target } : undefined;
  }

  /**
   * The real path of a git folder outside the workspace (a worktree's, under the main
   * repository's `.git/worktrees/`; a submodule's in a parent repository): not protected here —
   * outside the root it is read-only to confined commands and refused to the file tools — but
   * its configuration is read, since what it names relative to the worktree (`core.hooksPath =
   * tools/hooks`, `core.fsmonitor = sh scripts/w.sh`) lies in this workspace.
   */
  private outsideFolder(value: string, base: string): string | undefined {
    const target = realOrUndefined(path.resolve(base, value));
    if (!target || isInside(this.root, target)) return undefined;
    return lstatOr(target)?.isDirectory() ? target : undefined;
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

/** Whether `folder` or a folder above it (up to `root`) is in `folders`. */
function within(folders: ReadonlySet<string>, folder: string, root: string): boolean {
  for (let at = folder; ; at = path.dirname(at)) {
    if (folders.has(at)) return true;
    if (at === root || path.dirname(at) === at) return false;
  }
}

/**
 * At most WALK_LIMITS.unseenFolders folders covering `folders`: the deepest are replaced by
 * their parents until few enough (never above the root; those inside another are dropped).
 */
function coalesce(folders: string[], root: string): string[] {
  let result = [...new Set(folders)];
  for (;;) {
    const all = new Set(result);
    result = result.filter((folder) => folder === root || !within(all, path.dirname(folder), root));
    if (result.length <= WALK_LIMITS.unseenFolders) return result;
    const deepest = Math.max(...result.map((folder) => folder.split(path.sep).length));
    result = [
      ...new Set(
        result.map((folder) =>
          folder.split(path.sep).length === deepest && folder !== root ? path.dirname(folder) : folder,
        ),
      ),
    ];
  }
}

/** The real path of `file`, or of its deepest existing folder with the missing names after it. */
function realFuture(file: string): string | undefined {
  let existing = file;
  const rest: string[] = [];
  for (let links = 0; links < 40;) {
    const real = realOrUndefined(existing);
    if (real !== undefined) return path.join(real, ...rest);
    const target = readlinkOr(existing);
    if (target !== undefined) {
      // A dangling link: writing to it would make its target.
      links++;
      existing = path.resolve(path.dirname(existing), target);
      continue;
    }
    const parent = path.dirname(existing);
    if (parent === existing) return undefined;
    rest.unshift(path.basename(existing));
    existing = parent;
  }
  return undefined;
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

/** For the file tools' assessment (call-risk.ts): the set's places, missing ones too, without the hard-link search. */
export async function protectedPlaces(root: string): Promise<ProtectedPath[]> {
  const set = protectedSet(root, { links: false });
  return [...set.paths, ...set.missing];
}
