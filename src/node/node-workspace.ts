/**
 * WorkspaceFiles on the plain file system: the CLI's workspace and the unit tests'. (The
 * extension's adapter writes through WorkspaceEdit instead, so edits can be undone.)
 */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { WorkspaceFiles } from '../core/ports';
import { decodeText, encodeText, type DecodedText, type TextContent } from '../core/workspace/text-file';
import { globToRegExp } from '../core/workspace/glob';
import { isInside, PathError } from '../core/workspace/workspace-path';

/** Folders never listed: version control and dependency trees. */
const ALWAYS_IGNORED = new Set(['.git', 'node_modules']);

export class NodeWorkspace implements WorkspaceFiles {
  private ignored: Promise<(name: string) => boolean> | undefined;

  constructor(readonly root: string) {}

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

  async readText(absolute: string): Promise<DecodedText> {
    return decodeText(await fs.readFile(absolute));
  }

  async readBytes(absolute: string): Promise<Uint8Array> {
    return fs.readFile(absolute);
  }

  async writeText(absolute: string, text: TextContent, format?: Omit<DecodedText, 'text'>): Promise<void> {
    await this.writeBytes(absolute, [encodeText(text, format ?? { encoding: 'utf8', bom: false, lineEnding: '\n' })]);
  }

  async writeUtf8Bytes(absolute: string, pieces: readonly Uint8Array[]): Promise<void> {
    await this.writeBytes(absolute, pieces);
  }

  /**
   * Writes through a temp file and a rename, so a crash never leaves half a file — and so that
   * nothing is written through a link. The path was checked (resolveWorkspacePath) before, but a
   * folder can be swapped for a symlink between that check and the write, so:
   * - missing folders are made one at a time, each checked to be a real folder inside the root;
   * - the folder's real path is taken again at the moment of writing and must be inside the root;
   * - the temp file has a random name and is created exclusively without following a link;
   * - the rename happens in that real folder (a link at the target is replaced, not followed);
   * - the folder is checked once more afterwards, and a swap is reported.
   */
  private async writeBytes(absolute: string, pieces: readonly Uint8Array[]): Promise<void> {
    const realRoot = await fs.realpath(this.root);
    const directory = await this.ensureDirectory(path.dirname(absolute), realRoot);
    // `absolute` was resolved (and approved) as a real path: a folder on the way that resolves
    // elsewhere now became a link after the check, and the write would land where nobody looked.
    if (directory !== path.dirname(absolute))
      throw new PathError(`${absolute}: a folder on its path became a symbolic link after it was checked.`);
    const target = path.join(directory, path.basename(absolute));
    const temp = path.join(directory, `.openagent-${randomBytes(8).toString('hex')}.tmp`);
    const handle = await fs.open(
      temp,
      fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL | (fsConstants.O_NOFOLLOW ?? 0),
      0o644,
    );
    try {
      // Each writeFile goes on from where the last one ended.
      for (const piece of pieces) await handle.writeFile(piece);
    } finally {
      await handle.close();
    }
    try {
      if ((await fs.realpath(directory)) !== directory)
        throw new PathError(`${absolute}: its folder changed while writing.`);
      await fs.rename(temp, target);
    } catch (error) {
      await fs.rm(temp, { force: true });
      throw error;
    }
    if ((await fs.realpath(directory).catch(() => undefined)) !== directory)
      throw new PathError(`${absolute}: its folder was replaced while writing; check where the file went.`);
  }

  /** The real path of `directory`, made folder by folder; each must be a real folder inside the root. */
  private async ensureDirectory(directory: string, realRoot: string): Promise<string> {
    const real = await fs.realpath(directory).catch(() => undefined);
    if (real !== undefined) {
      if (!isInside(realRoot, real)) throw new PathError(`${directory} leads outside the workspace.`);
      return real;
    }
    const parent = path.dirname(directory);
    if (parent === directory) throw new PathError(`${directory} cannot be made.`);
    const realParent = await this.ensureDirectory(parent, realRoot);
    const made = path.join(realParent, path.basename(directory));
    await fs.mkdir(made).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    // Made by us or by someone else meanwhile: either way it must be a real folder, not a link.
    const stat = await fs.lstat(made);
    if (!stat.isDirectory()) throw new PathError(`${made} is not a folder (a link or a file took its place).`);
    return made;
  }

  async delete(absolute: string): Promise<void> {
    await fs.rm(absolute, { force: true });
  }

  async list(
    absoluteDirectory: string,
    options: { recursive: boolean; limit: number; pattern?: string },
  ): Promise<{ entries: string[]; truncated: boolean }> {
    const isIgnored = await (this.ignored ??= this.loadGitignore());
    // A pattern matches files below the folder, by their path relative to it.
    const matcher = options.pattern === undefined ? undefined : globToRegExp(options.pattern);
    const recursive = options.recursive || matcher !== undefined;
    const entries: string[] = [];
    const queue = [absoluteDirectory];
    while (queue.length > 0) {
      const directory = queue.shift()!;
      const children = await fs.readdir(directory, { withFileTypes: true });
      children.sort((a, b) => a.name.localeCompare(b.name));
      for (const child of children) {
        if (ALWAYS_IGNORED.has(child.name) || isIgnored(child.name)) continue;
        const absolute = path.join(directory, child.name);
        if (recursive && child.isDirectory()) queue.push(absolute);
        const below = path.relative(absoluteDirectory, absolute).split(path.sep).join('/');
        if (matcher && (child.isDirectory() || !matcher.test(below))) continue;
        if (entries.length >= options.limit) return { entries, truncated: true };
        entries.push(path.relative(this.root, absolute) + (child.isDirectory() ? '/' : ''));
      }
    }
    return { entries, truncated: false };
  }

  /** The root .gitignore's simple patterns: names and `*.ext` (enough for the CLI's listing). */
  private async loadGitignore(): Promise<(name: string) => boolean> {
    const text = await fs.readFile(path.join(this.root, '.gitignore'), 'utf8').catch(() => undefined);
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
