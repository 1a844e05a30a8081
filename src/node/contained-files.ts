/**
 * Reads, writes and deletes of files inside one folder tree with no gap between checking where a
 * path leads and using it. A path checked by its real path can still be redirected afterwards: a
 * folder on the way swapped for a symbolic link to somewhere else makes a write by path land
 * there. So nothing here is opened by its full path. Each folder is opened from the one above it
 * (starting at the tree's root) without following a link, and the file is then created, opened,
 * renamed or removed inside the folder that is already open.
 *
 * Node has no openat(). On Linux `/proc/self/fd/<fd>/<name>` is looked up inside the folder that
 * descriptor holds, whatever has happened to its path since, which gives the same guarantee.
 * Elsewhere (macOS, or no /proc) each folder is opened by path and then checked to be the folder
 * now at that path, before and after the write; a swap and a swap back between two of those
 * checks can still go unseen there.
 *
 * Writes replace the file (a temp file renamed over it), never write into it: a file with other
 * hard links (a package manager's shared store, a link to a protected file) gets a new file under
 * this name and its other names keep what they had.
 */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants, existsSync, statSync, type Dirent, type Stats } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { isInside, PathError } from '../core/workspace/workspace-path';

const NOFOLLOW = fsConstants.O_NOFOLLOW ?? 0;
const FOLDER_FLAGS = fsConstants.O_RDONLY | (fsConstants.O_DIRECTORY ?? 0) | NOFOLLOW;
// Never blocks on a FIFO or a device put where a file was expected.
const READ_FLAGS = fsConstants.O_RDONLY | NOFOLLOW | (fsConstants.O_NONBLOCK ?? 0);
const APPEND_FLAGS =
  fsConstants.O_WRONLY | fsConstants.O_APPEND | fsConstants.O_CREAT | NOFOLLOW | (fsConstants.O_NONBLOCK ?? 0);
const TEMP_FLAGS = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | NOFOLLOW;

export interface ContainedOptions {
  /**
   * Whether to reach names through `/proc/self/fd` (default: when it exists). False takes the
   * path-and-check way other systems use; the tests use it to exercise that way on Linux.
   */
  descriptorPaths?: boolean;
}

/** What a write found and did. */
export interface ContainedWrite {
  /** Other hard links the replaced file had: they keep its old content (0 for a new file). */
  otherLinks: number;
}

/**
 * A folder of the tree held open: its entries are read and its subfolders opened from it, so a
 * folder swapped for a link after it was listed is not followed (the listing of what is below it
 * stops there instead of showing what the link leads to).
 */
export interface HeldFolder {
  /** The folder's entries (a link is a link here, never what it leads to). */
  entries(): Promise<Dirent[]>;
  /** The subfolder `name`, opened from this one; undefined when it is no longer a real folder. */
  child(name: string): Promise<HeldFolder | undefined>;
  close(): Promise<void>;
}

interface OpenFolder {
  handle: fs.FileHandle;
  /** The real path the folder had when it was opened (for messages and the path-and-check way). */
  path: string;
  /** How to name `name` inside this very folder. */
  entry(name: string): string;
}

export class ContainedFiles {
  private readonly descriptorPaths: boolean;

  constructor(
    private readonly root: string,
    options: ContainedOptions = {},
  ) {
    this.descriptorPaths = options.descriptorPaths ?? (process.platform === 'linux' && existsSync('/proc/self/fd'));
    this.rootIdentity = identityOf(root);
  }

  /**
   * The workspace folder's device and inode when this was made (or first used): a root later
   * renamed away and replaced by a link to another folder (or by another folder) is refused, so
   * writes never follow the root's path somewhere else.
   */
  private rootIdentity: { dev: number; ino: number } | undefined;

  /** The path each folder descriptor was opened at (for messages; a reused number is set again). */
  private readonly folderPaths = new Map<number, string>();

  /**
   * Replaces (or creates) `absolute` — a path whose folders are real folders inside the root, as
   * resolveWorkspacePath gives it — with `pieces`, written one after the other. Missing folders
   * are made. An existing file's permissions (and owner, where allowed) carry over.
   */
  write(absolute: string, pieces: readonly Uint8Array[]): Promise<ContainedWrite> {
    return this.plainErrors(() => this.writeHere(absolute, pieces));
  }

  private async writeHere(absolute: string, pieces: readonly Uint8Array[]): Promise<ContainedWrite> {
    const { realRoot, folders, name } = await this.split(absolute);
    const folder = await this.walk(realRoot, folders, true);
    try {
      const existing = await fs.lstat(folder.entry(name)).catch(missingAsUndefined);
      if (existing?.isDirectory()) throw new PathError(`${absolute} is a folder.`);
      const replaced = existing?.isFile() ? existing : undefined;
      await this.replaceIn(folder, name, absolute, pieces, replaced);
      return { otherLinks: replaced ? replaced.nlink - 1 : 0 };
    } finally {
      await folder.handle.close();
    }
  }

  /**
   * Gives `absolute` a file of its own when it has other hard links: a copy with the same bytes,
   * mode, owner and times put in its place, so that a later write into it in place (VS Code
   * saves that way) changes no other name. Returns how many other links there were (0: nothing
   * done). The times are kept so an editor that compares them sees no change on disk.
   */
  separate(absolute: string): Promise<number> {
    return this.plainErrors(() => this.separateHere(absolute));
  }

  private async separateHere(absolute: string): Promise<number> {
    const real = await fs.realpath(this.rebase(absolute, await fs.realpath(this.root)));
    const { realRoot, folders, name } = await this.split(real, absolute);
    const folder = await this.walk(realRoot, folders, false);
    try {
      return await this.separateIn(folder, name, absolute);
    } finally {
      await folder.handle.close();
    }
  }

  private async separateIn(folder: OpenFolder, name: string, absolute: string): Promise<number> {
    const handle = await fs.open(folder.entry(name), READ_FLAGS);
    let bytes: Buffer;
    let shared: Stats;
    try {
      shared = await handle.stat();
      if (!shared.isFile() || shared.nlink <= 1) return 0;
      bytes = await handle.readFile();
    } finally {
      await handle.close();
    }
    await this.replaceIn(folder, name, absolute, [bytes], shared, { atime: shared.atime, mtime: shared.mtime });
    return shared.nlink - 1;
  }

  /**
   * Adds `bytes` at the end of `absolute` (made, with its missing folders, when it does not
   * exist), in one O_APPEND write so that writers in several processes each add whole pieces. A
   * file with other hard links first gets a copy of its own (their content stays as it was); a
   * link, a folder, a FIFO or a device at that name is refused with nothing written. With
   * `create`, an existing file is refused too (EEXIST).
   */
  append(absolute: string, bytes: Uint8Array, create = false): Promise<ContainedWrite> {
    return this.plainErrors(() => this.appendHere(absolute, bytes, create));
  }

  private async appendHere(absolute: string, bytes: Uint8Array, create = false): Promise<ContainedWrite> {
    const { realRoot, folders, name } = await this.split(absolute);
    const folder = await this.walk(realRoot, folders, true);
    try {
      const existing = await fs.lstat(folder.entry(name)).catch(missingAsUndefined);
      if (existing && !existing.isFile())
        throw new PathError(`${absolute} is not a regular file (a link, a folder or a device); nothing was written.`);
      const otherLinks = existing && existing.nlink > 1 ? await this.separateIn(folder, name, absolute) : 0;
      const flags = APPEND_FLAGS | (create ? fsConstants.O_EXCL : 0);
      const handle = await fs.open(folder.entry(name), flags, 0o666).catch((error: NodeJS.ErrnoException) => {
        throw isLinkError(error) ? new PathError(`${absolute} became a symbolic link; nothing was written.`) : error;
      });
      try {
        const opened = await handle.stat();
        if (!opened.isFile() || opened.nlink > 1)
          throw new PathError(
            `${absolute} changed while it was opened (not a file of its own now); nothing was written.`,
          );
        // O_APPEND: every write of it lands at the end, whoever wrote last.
        await handle.writeFile(bytes);
        await handle.sync();
      } finally {
        await handle.close();
      }
      return { otherLinks };
    } finally {
      await folder.handle.close();
    }
  }

  /** A temp file in `folder`, written, flushed and renamed over `name`: never a write into it. */
  private async replaceIn(
    folder: OpenFolder,
    name: string,
    absolute: string,
    pieces: readonly Uint8Array[],
    replaced: Stats | undefined,
    times?: { atime: Date; mtime: Date },
  ): Promise<void> {
    const temp = `.openagent-${randomBytes(8).toString('hex')}.tmp`;
    // A new file gets the usual 0666 less the umask; a replaced one its own mode, set below.
    const handle = await fs.open(folder.entry(temp), TEMP_FLAGS, replaced ? 0o600 : 0o666);
    let written: Stats | undefined;
    try {
      try {
        // Each writeFile goes on from where the last one ended.
        for (const piece of pieces) await handle.writeFile(piece);
        if (replaced) await keepOwnerAndMode(handle, replaced);
        if (times) await handle.utimes(times.atime, times.mtime);
        await handle.sync();
        written = await handle.stat();
      } finally {
        await handle.close();
      }
      if (!this.descriptorPaths) await this.checkStill(folder, absolute);
      await fs.rename(folder.entry(temp), folder.entry(name));
    } catch (error) {
      await fs.unlink(folder.entry(temp)).catch(() => undefined);
      throw error;
    }
    // The rename itself reaches the disk too (a crash keeps the old file or the new one).
    await folder.handle.sync().catch(() => undefined);
    if (!this.descriptorPaths) {
      const landed = await fs.lstat(path.join(folder.path, name)).catch(missingAsUndefined);
      await this.checkStill(folder, absolute, 'was replaced while writing; check where the file went');
      if (landed === undefined || landed.dev !== written?.dev || landed.ino !== written.ino)
        throw new PathError(`${absolute}: its folder was replaced while writing; check where the file went.`);
    }
  }

  /**
   * The bytes of `absolute`, which may be reached through links as long as its real path is
   * inside the root; read from that real path with nothing followed, so a folder swapped after
   * the real path was taken fails the read instead of reading elsewhere. `accept` sees that real
   * path first and may refuse it by throwing (it is the path then read, with no gap).
   */
  read(absolute: string, accept?: (real: string) => void, inspect?: (opened: Stats) => void): Promise<Buffer> {
    return this.plainErrors(() => this.readHere(absolute, accept, inspect));
  }

  private async readHere(
    absolute: string,
    accept?: (real: string) => void,
    inspect?: (opened: Stats) => void,
  ): Promise<Buffer> {
    const real = await fs.realpath(this.rebase(absolute, await fs.realpath(this.root)));
    const { realRoot, folders, name } = await this.split(real, absolute);
    accept?.(real);
    return this.readIn(realRoot, folders, name, absolute, inspect);
  }

  /**
   * The bytes of `absolute` taken as the real path it was checked to be (the file tools resolve
   * and check a path first): a link anywhere on it below the root, the file itself included,
   * fails the read. So a file swapped for a link to another (the workspace's `.env`) after the
   * check of its path is not read through that link.
   */
  readAsIs(absolute: string): Promise<Buffer> {
    return this.plainErrors(() => this.readAsIsHere(absolute));
  }

  private async readAsIsHere(absolute: string): Promise<Buffer> {
    const { realRoot, folders, name } = await this.split(absolute);
    return this.readIn(realRoot, folders, name, absolute);
  }

  /** `inspect` sees the opened file's stats (the file read, not one at its path a moment before) and may refuse it. */
  private async readIn(
    realRoot: string,
    folders: string[],
    name: string,
    absolute: string,
    inspect?: (opened: Stats) => void,
  ): Promise<Buffer> {
    const folder = await this.walk(realRoot, folders, false);
    try {
      const handle = await fs.open(folder.entry(name), READ_FLAGS).catch((error: NodeJS.ErrnoException) => {
        throw isLinkError(error) ? new PathError(`${absolute} became a symbolic link while it was read.`) : error;
      });
      try {
        const opened = await handle.stat();
        if (!opened.isFile()) throw new PathError(`${absolute} is not a regular file.`);
        inspect?.(opened);
        return await handle.readFile();
      } finally {
        await handle.close();
      }
    } finally {
      await folder.handle.close();
    }
  }

  /**
   * Holds the folder `absolute` open for listing. It may be reached through links as long as its
   * real path is inside the root (or is the root); it is then opened from the root down, nothing
   * followed, as a read is. With `asReal`, `absolute` is taken as the real path it must be: a link on
   * the way fails instead of being followed.
   */
  async openFolder(absolute: string, asReal = false): Promise<HeldFolder> {
    const realRoot = await fs.realpath(this.root);
    const rebased = this.rebase(absolute, realRoot);
    const real = asReal ? rebased : await fs.realpath(rebased);
    const relative = path.relative(realRoot, real);
    if (!isInside(realRoot, real) || path.isAbsolute(relative))
      throw new PathError(`${absolute} is outside the workspace.`);
    const folders = relative.split(path.sep).filter((part) => part !== '' && part !== '.');
    return this.held(await this.walk(realRoot, folders, false));
  }

  private held(folder: OpenFolder): HeldFolder {
    return {
      entries: async () => {
        const entries = await fs.readdir(this.descriptorPaths ? `/proc/self/fd/${folder.handle.fd}` : folder.path, {
          withFileTypes: true,
        });
        // By path: what was listed must have been the folder held, still at its place.
        if (!this.descriptorPaths) await this.checkStill(folder, folder.path);
        return entries;
      },
      child: async (name) => {
        try {
          return this.held(await this.openChild(folder, name, false));
        } catch (error) {
          // Gone, or swapped for a link or a file since the parent was listed: nothing to list.
          if (error instanceof PathError || (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
          throw error;
        }
      },
      close: () => folder.handle.close(),
    };
  }

  /** Removes the name `absolute` (a link itself, not its target); a missing one is no error. */
  remove(absolute: string): Promise<void> {
    return this.plainErrors(() => this.removeHere(absolute));
  }

  private async removeHere(absolute: string): Promise<void> {
    const { realRoot, folders, name } = await this.split(absolute);
    let folder: OpenFolder;
    try {
      folder = await this.walk(realRoot, folders, false);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw error;
    }
    try {
      await fs.unlink(folder.entry(name)).catch((error: NodeJS.ErrnoException) => {
        if (error.code !== 'ENOENT') throw error;
      });
    } finally {
      await folder.handle.close();
    }
  }

  /** `absolute` under the real root, if it was given under the root as written (a linked root). */
  private rebase(absolute: string, realRoot: string): string {
    return !isInside(realRoot, absolute) && isInside(this.root, absolute)
      ? path.join(realRoot, path.relative(this.root, absolute))
      : absolute;
  }

  /** The folder names from the real root down to `absolute`'s folder, and its own name. */
  private async split(
    absolute: string,
    asGiven = absolute,
  ): Promise<{ realRoot: string; folders: string[]; name: string }> {
    const realRoot = await fs.realpath(this.root);
    const relative = path.relative(realRoot, this.rebase(absolute, realRoot));
    if (!isInside(realRoot, path.join(realRoot, relative)) || path.isAbsolute(relative))
      throw new PathError(`${asGiven} is outside the workspace.`);
    const folders = relative.split(path.sep).filter((part) => part !== '' && part !== '.');
    const name = folders.pop();
    if (name === undefined) throw new PathError(`${asGiven} is the workspace folder itself, not a file.`);
    return { realRoot, folders, name };
  }

  /** Opens the folders one inside the other from the real root; with `create`, makes missing ones. */
  private async walk(realRoot: string, folders: readonly string[], create: boolean): Promise<OpenFolder> {
    let folder = this.opened(await fs.open(realRoot, FOLDER_FLAGS), realRoot);
    try {
      const held = await folder.handle.stat();
      this.rootIdentity ??= { dev: held.dev, ino: held.ino };
      if (held.dev !== this.rootIdentity.dev || held.ino !== this.rootIdentity.ino)
        throw new PathError(
          `The workspace folder ${this.root} was replaced while the agent ran (it is another folder now, or a link to one); nothing was read or written there.`,
        );
      for (const name of folders) {
        const next = await this.openChild(folder, name, create);
        await folder.handle.close();
        folder = next;
      }
      return folder;
    } catch (error) {
      await folder.handle.close();
      throw error;
    }
  }

  private async openChild(parent: OpenFolder, name: string, create: boolean): Promise<OpenFolder> {
    const where = path.join(parent.path, name);
    const open = () =>
      fs.open(parent.entry(name), FOLDER_FLAGS).catch((error: NodeJS.ErrnoException) => {
        throw isLinkError(error)
          ? new PathError(
              `${where} is a symbolic link or not a folder (it may have been swapped after the path was checked).`,
            )
          : error;
      });
    let handle: fs.FileHandle;
    try {
      handle = await open();
    } catch (error) {
      if (!create || (error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      await fs.mkdir(parent.entry(name)).catch((made: NodeJS.ErrnoException) => {
        if (made.code !== 'EEXIST') throw made;
      });
      // Made by us or by someone else meanwhile: opened without following, so a link fails.
      handle = await open();
    }
    const child = this.opened(handle, where);
    if (!this.descriptorPaths) {
      try {
        await this.checkStill(child, where);
      } catch (error) {
        await handle.close();
        throw error;
      }
    }
    return child;
  }

  /**
   * Errors name what the caller knows, not `/proc/self/fd/<n>/…`: the folder a descriptor holds
   * by the path it had. A socket at a file's name (ENXIO) or another thing that is no file is
   * said to be so.
   */
  private async plainErrors<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } catch (error) {
      const plain = (text: string) =>
        text.replace(/\/proc\/self\/fd\/(\d+)/g, (whole, fd: string) => this.folderPaths.get(Number(fd)) ?? whole);
      const failure = error as NodeJS.ErrnoException;
      if (typeof failure?.message !== 'string') throw error;
      if (failure.code === 'ENXIO' || failure.code === 'ENODEV')
        throw new PathError(`${plain(failure.path ?? 'That path')} is not a regular file.`);
      failure.message = plain(failure.message);
      if (typeof failure.path === 'string') failure.path = plain(failure.path);
      throw failure;
    }
  }

  private opened(handle: fs.FileHandle, real: string): OpenFolder {
    this.folderPaths.set(handle.fd, real);
    return {
      handle,
      path: real,
      entry: this.descriptorPaths ? (name) => `/proc/self/fd/${handle.fd}/${name}` : (name) => path.join(real, name),
    };
  }

  /** The path-and-check way: the folder now at the path is the one held open, and it is real. */
  private async checkStill(folder: OpenFolder, absolute: string, what = 'changed while it was used'): Promise<void> {
    const held = await folder.handle.stat();
    const now = await fs.lstat(folder.path).catch(missingAsUndefined);
    const real = await fs.realpath(folder.path).catch(missingAsUndefined);
    if (now?.dev !== held.dev || now.ino !== held.ino || real !== folder.path)
      throw new PathError(`${absolute}: a folder on its path ${what} (it is not a folder inside the workspace now).`);
  }
}

async function keepOwnerAndMode(handle: fs.FileHandle, replaced: { uid: number; gid: number; mode: number }) {
  // Only a privileged process may give a file away; otherwise the writer owns the new file.
  const mine = await handle.stat();
  if (mine.uid !== replaced.uid || mine.gid !== replaced.gid)
    await handle.chown(replaced.uid, replaced.gid).catch(() => undefined);
  await handle.chmod(replaced.mode & 0o7777);
}

function identityOf(folder: string): { dev: number; ino: number } | undefined {
  try {
    const stat = statSync(folder);
    return stat.isDirectory() ? { dev: stat.dev, ino: stat.ino } : undefined;
  } catch {
    return undefined;
  }
}

function isLinkError(error: NodeJS.ErrnoException): boolean {
  return error.code === 'ELOOP' || error.code === 'ENOTDIR' || error.code === 'EMLINK';
}

function missingAsUndefined(error: NodeJS.ErrnoException): undefined {
  if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
  throw error;
}
