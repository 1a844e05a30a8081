/**
 * The file side of a fork into a new worktree (core/session/worktree-fork.ts) on the real disk.
 * The paths come from a conversation's records, which a hand-edited or hostile store can fill
 * with anything, so each one is checked before it is used: relative, no `..`, `.` or empty part,
 * no backslash or NUL, nothing in a `.git`. Reads stay inside the session's folder (its real
 * path: a link out is refused). Writes go inside the worktree's own root only: every folder on
 * the way is looked at without following links (a link, even one pointing inside, is refused:
 * the worktree is fresh from git, and a link there is the repository's, not the fork's), the
 * file is opened with O_NOFOLLOW, and the folder it lands in is checked to be inside the root.
 */
import { constants, existsSync, promises as fs, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { ForkFileRefusal, type ForkFileAccess } from '../../core/session/worktree-fork';
import type { Worktree } from '../../core/session/worktree-port';
import { MAX_CHECKPOINT_BYTES } from '../../core/workspace/checkpoints';
import { isInsidePath as isInside, samePath } from '../../core/workspace/platform-path';

/**
 * `sourceRoot`: the folder the conversation worked in (its paths are relative to it). When it is
 * a subfolder of its repository, the same subfolder of the worktree is written.
 */
export class NodeForkFiles implements ForkFileAccess {
  private readonly source: string;
  /** The session folder's place in its repository (`""` at the top), with `/`. */
  private readonly prefix: string;

  constructor(sourceRoot: string) {
    this.source = realpathSync(sourceRoot);
    this.prefix = repositoryPrefix(this.source);
  }

  async read(relative: string): Promise<Uint8Array | null> {
    const parts = checkedParts(relative);
    const file = path.join(this.source, ...parts);
    let real: string;
    try {
      real = await fs.realpath(file);
    } catch (error) {
      if (isMissing(error)) return null;
      throw error;
    }
    if (!inside(this.source, real)) throw new ForkFileRefusal('it is a link to outside the workspace');
    const stat = await fs.stat(real);
    if (!stat.isFile()) throw new ForkFileRefusal('it is not a file');
    if (stat.size > MAX_CHECKPOINT_BYTES)
      throw new ForkFileRefusal(`it is ${(stat.size / 1_048_576).toFixed(0)} MB, too large to copy`);
    return new Uint8Array(await fs.readFile(real));
  }

  async write(worktree: Worktree, relative: string, bytes: Uint8Array | null): Promise<void> {
    const parts = [...(this.prefix ? this.prefix.split('/') : []), ...checkedParts(relative)];
    const root = realpathSync(worktree.root);
    let folder = root;
    for (const part of parts.slice(0, -1)) {
      const next = path.join(folder, part);
      const stat = await lstatOrUndefined(next);
      if (!stat) {
        // Nothing to delete below a folder that is not there.
        if (bytes === null) return;
        await fs.mkdir(next);
      } else if (stat.isSymbolicLink()) throw new ForkFileRefusal(`${part} in its path is a link in the worktree`);
      else if (!stat.isDirectory()) throw new ForkFileRefusal(`${part} in its path is not a folder in the worktree`);
      folder = next;
    }
    // Whatever happened on the way, the file's folder must be the worktree's.
    if (!inside(root, await fs.realpath(folder), true)) throw new ForkFileRefusal('it would land outside the worktree');
    const target = path.join(folder, parts.at(-1)!);
    const stat = await lstatOrUndefined(target);
    if (stat?.isDirectory()) throw new ForkFileRefusal('it is a folder in the worktree');
    if (bytes === null) {
      // Unlinking a link removes the link, never what it points at.
      if (stat) await fs.unlink(target);
      return;
    }
    if (stat?.isSymbolicLink()) throw new ForkFileRefusal('it is a link in the worktree');
    const handle = await fs.open(
      target,
      constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW,
      0o666,
    );
    try {
      await handle.writeFile(bytes);
    } finally {
      await handle.close();
    }
  }
}

/** The parts of a recorded relative path, or a refusal naming what is wrong with it. */
function checkedParts(relative: string): string[] {
  if (typeof relative !== 'string' || relative.length === 0 || relative.length > 4_096)
    throw new ForkFileRefusal('the recorded path is empty or too long');
  // eslint-disable-next-line no-control-regex
  if (/[\u0000\\]/.test(relative)) throw new ForkFileRefusal('the recorded path holds a NUL or a backslash');
  if (path.isAbsolute(relative) || /^[a-zA-Z]:/.test(relative))
    throw new ForkFileRefusal('the recorded path is absolute: it points outside the worktree');
  const parts = relative.split('/');
  if (parts.some((part) => part === '' || part === '.' || part === '..'))
    throw new ForkFileRefusal('the recorded path climbs out (`..`) or is not plain');
  if (parts.some((part) => part.toLowerCase() === '.git'))
    throw new ForkFileRefusal("the recorded path is in a .git: the repository's own files are never written");
  return parts;
}

/** Where `folder` sits in its repository: the path from the nearest folder holding `.git`. */
function repositoryPrefix(folder: string): string {
  for (let top = folder; ;) {
    if (existsSync(path.join(top, '.git'))) return path.relative(top, folder).split(path.sep).join('/');
    const up = path.dirname(top);
    if (up === top) return '';
    top = up;
  }
}

function inside(root: string, real: string, orSame = false): boolean {
  if (samePath(root, real)) return orSame;
  return isInside(root, real);
}

async function lstatOrUndefined(file: string) {
  try {
    return await fs.lstat(file);
  } catch (error) {
    if (isMissing(error)) return undefined;
    throw error;
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
