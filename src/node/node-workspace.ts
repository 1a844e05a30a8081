/**
 * WorkspaceFiles on the plain file system: the CLI's workspace and the unit tests'. (The
 * extension's adapter writes through WorkspaceEdit instead, so edits can be undone.)
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { WorkspaceFiles, WrittenFile } from '../core/ports';
import { decodeText, encodeText, type DecodedText, type TextContent } from '../core/workspace/text-file';
import { compileGlob } from '../core/workspace/glob';
import { ContainedFiles, type ContainedOptions, type HeldFolder } from './contained-files';
import { LinkedSecrets } from './linked-secrets';

/** Folders never listed: version control and dependency trees. */
const ALWAYS_IGNORED = new Set(['.git', 'node_modules']);

export class NodeWorkspace implements WorkspaceFiles {
  private ignored: Promise<(name: string) => boolean> | undefined;

  private readonly contained: ContainedFiles;
  /** Hard links to secret files, found by device and inode (linked-secrets.ts). */
  private readonly linked: LinkedSecrets;

  /**
   * Reads and writes go through ContainedFiles: by descriptors opened folder by folder from the
   * root, so a folder swapped for a link after a path was checked cannot redirect them.
   */
  constructor(
    readonly root: string,
    options: ContainedOptions = {},
  ) {
    this.linked = new LinkedSecrets(root);
    this.contained = new ContainedFiles(root, options);
  }

  async realpath(absolute: string): Promise<string | undefined> {
    try {
      return await fs.realpath(absolute);
    } catch {
      return undefined;
    }
  }

  async readlink(absolute: string): Promise<string | undefined> {
    try {
      return await fs.readlink(absolute);
    } catch {
      return undefined;
    }
  }

  async stat(absolute: string): Promise<{ type: 'file' | 'directory'; size: number } | undefined> {
    try {
      const stat = await fs.stat(absolute);
      return { type: stat.isDirectory() ? 'directory' : 'file', size: stat.size };
    } catch {
      return undefined;
    }
  }

  linkedSecret(absolute: string): Promise<string | undefined> {
    return this.linked.find(absolute);
  }

  /**
   * Reads the path as it was checked (callers give resolved real paths): nothing on it is
   * followed, so a name swapped for a link after the check (to `.env`, or outside) fails the read.
   */
  async readText(absolute: string): Promise<DecodedText> {
    return decodeText(await this.contained.readAsIs(absolute));
  }

  async readBytes(absolute: string): Promise<Uint8Array> {
    return this.contained.readAsIs(absolute);
  }

  async writeText(absolute: string, text: TextContent, format?: Omit<DecodedText, 'text'>): Promise<WrittenFile> {
    return this.contained.write(absolute, [
      encodeText(text, format ?? { encoding: 'utf8', bom: false, lineEnding: '\n' }),
    ]);
  }

  async writeUtf8Bytes(absolute: string, pieces: readonly Uint8Array[]): Promise<WrittenFile> {
    return this.contained.write(absolute, pieces);
  }

  /** Removes the file's name from its folder, reached the same way as a write. */
  async delete(absolute: string): Promise<void> {
    await this.contained.remove(absolute);
  }

  /**
   * Breadth first, through folders held open (ContainedFiles): each subfolder is opened from the
   * folder it was listed in without following a link, so a folder swapped for a link during the
   * walk shows nothing of where the link leads.
   */
  async list(
    absoluteDirectory: string,
    options: { recursive: boolean; limit: number; pattern?: string },
  ): Promise<{ entries: string[]; truncated: boolean }> {
    const isIgnored = await (this.ignored ??= this.loadGitignore());
    // A pattern matches files below the folder, by their path relative to it.
    const matcher = options.pattern === undefined ? undefined : compileGlob(options.pattern);
    const recursive = options.recursive || matcher !== undefined;
    const entries: string[] = [];
    const realTop = await fs.realpath(absoluteDirectory);
    const walk = new HeldWalk(this.contained);
    try {
      const queue: QueuedFolder[] = [{ shown: absoluteDirectory, real: realTop }];
      while (queue.length > 0) {
        const queued = queue.shift()!;
        const folder = await walk.open(queued, queued.shown === absoluteDirectory);
        if (!folder) continue;
        const children = await folder.entries();
        let subfolders = 0;
        children.sort((a, b) => a.name.localeCompare(b.name));
        for (const child of children) {
          if (ALWAYS_IGNORED.has(child.name) || isIgnored(child.name)) continue;
          const absolute = path.join(queued.shown, child.name);
          if (recursive && child.isDirectory()) {
            queue.push({ shown: absolute, real: path.join(queued.real, child.name), name: child.name, parent: folder });
            subfolders += 1;
          }
          const below = path.relative(absoluteDirectory, absolute).split(path.sep).join('/');
          if (matcher && (child.isDirectory() || !matcher.test(below))) continue;
          if (entries.length >= options.limit) return { entries, truncated: true };
          entries.push(path.relative(this.root, absolute) + (child.isDirectory() ? '/' : ''));
        }
        await walk.listed(folder, subfolders);
      }
      return { entries, truncated: false };
    } finally {
      await walk.closeAll();
    }
  }

  /** The root .gitignore's simple patterns: names and `*.ext` (enough for the CLI's listing). */
  private async loadGitignore(): Promise<(name: string) => boolean> {
    // Read as any workspace file is: a `.gitignore` that leads outside is not read.
    const text = await this.contained
      .read(path.join(this.root, '.gitignore'))
      .then((bytes) => bytes.toString('utf8'))
      .catch(() => undefined);
    if (text === undefined) return () => false;
    const names = new Set<string>();
    const extensions: string[] = [];
    for (const raw of text.split(/\r?\n/)) {
      const line = raw.trim().replace(/^\/|\/$/g, '');
      if (!line || line.startsWith('#') || line.startsWith('!')) continue;
      if (/^\*\.[^*/]+$/.test(line)) extensions.push(line.slice(1));
      else if (!/[*?[\]/]/.test(line)) names.add(line);
    }
    return (name) => names.has(name) || extensions.some((extension) => name.endsWith(extension));
  }
}

/** Folders held open at once while listing; past this, a folder is opened again from the root. */
const MAX_HELD_FOLDERS = 64;

interface QueuedFolder {
  /** Its path as the listing names it (under the folder as given). */
  shown: string;
  /** Its real path (each folder below the top one must still be a real folder there). */
  real: string;
  /** Its name in `parent`, and the parent it is opened from while that is held. */
  name?: string;
  parent?: HeldFolder;
}

/** The held folders of one listing: a parent stays open while subfolders wait to be opened from it. */
class HeldWalk {
  private readonly waiting = new Map<HeldFolder, number>();

  constructor(private readonly contained: ContainedFiles) {}

  /** The folder, or undefined when it is no longer a real folder at its place (swapped, removed). */
  async open(queued: QueuedFolder, top: boolean): Promise<HeldFolder | undefined> {
    if (top) return this.track(await this.contained.openFolder(queued.real, true));
    const parent = queued.parent !== undefined && this.waiting.has(queued.parent) ? queued.parent : undefined;
    const folder = parent
      ? await parent.child(queued.name!)
      : await this.contained.openFolder(queued.real, true).catch(() => undefined);
    if (parent) await this.done(parent);
    return folder && this.track(folder);
  }

  /** `folder` was listed and `children` subfolders wait to be opened from it. */
  async listed(folder: HeldFolder, children: number): Promise<void> {
    if (children > 0 && this.waiting.size <= MAX_HELD_FOLDERS) this.waiting.set(folder, children);
    else await this.close(folder);
  }

  async closeAll(): Promise<void> {
    for (const folder of [...this.waiting.keys()]) await this.close(folder);
  }

  private track(folder: HeldFolder): HeldFolder {
    this.waiting.set(folder, 0);
    return folder;
  }

  private async done(parent: HeldFolder): Promise<void> {
    const left = (this.waiting.get(parent) ?? 1) - 1;
    if (left > 0) this.waiting.set(parent, left);
    else await this.close(parent);
  }

  private async close(folder: HeldFolder): Promise<void> {
    if (this.waiting.delete(folder)) await folder.close();
  }
}
