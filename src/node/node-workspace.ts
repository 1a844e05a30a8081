/**
 * WorkspaceFiles on the plain file system: the CLI's workspace and the unit tests'. (The
 * extension's adapter writes through WorkspaceEdit instead, so edits can be undone.)
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { WorkspaceFiles, WrittenFile } from '../core/ports';
import { decodeText, encodeText, type DecodedText, type TextContent } from '../core/workspace/text-file';
import { globToRegExp } from '../core/workspace/glob';
import { ContainedFiles, type ContainedOptions } from './contained-files';
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

  async readText(absolute: string): Promise<DecodedText> {
    return decodeText(await this.contained.read(absolute));
  }

  async readBytes(absolute: string): Promise<Uint8Array> {
    return this.contained.read(absolute);
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
