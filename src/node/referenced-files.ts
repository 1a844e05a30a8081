/**
 * The workspace files a repository's hook or MCP server runs, hashed into the fingerprint the
 * user's "Allow" is kept under: `bash .claude/hooks/check.sh`, `"$CLAUDE_PROJECT_DIR"/.claude/
 * hooks/check.py` or `node ./tools/server.js` run a file the repository (or the agent, which
 * writes in the workspace) can change after the allow. With its content in the fingerprint, a
 * changed file is another fingerprint: the allow no longer holds and the user is asked again.
 *
 * Which files: every word of the command and its arguments (for a shell command line, the words
 * the project's shell analyser reads, `bash -c` strings and `$(…)` included; for environment
 * values such as NODE_OPTIONS, their words too; `--opt=value` counts `value`) that names a
 * path inside the workspace, relative to the working folder or absolute. Variables the formats
 * define for the workspace root (`$CLAUDE_PROJECT_DIR`, `${workspaceFolder}`) are put in first;
 * a word still holding a variable, a substitution, a glob or a `~` is decided at run time and
 * not followed. For each such path:
 * - a regular file: its sha256 (at most MAX_HASHED_FILES files, each at most MAX_HASHED_BYTES;
 *   a bigger one counts by its size and change times; files past the count by name only);
 * - a link: followed only while its target stays inside the workspace; one leading out counts
 *   by where it leads, its target is not read;
 * - a FIFO, device, socket or folder: named as such, never opened (a FIFO would block, a device
 *   read without end);
 * - nothing there: named as missing, so a file created after the allow asks again.
 * Hashes are cached by (device, inode, size, mtime, ctime): hooks that run on every tool call
 * stat their files, they do not read them again.
 *
 * NOT covered (said in the README too): files the program itself reads, sources or imports
 * (`source ./lib.sh` inside the script, `require('./helper')`, a Python module beside it), the
 * interpreters' module search paths (NODE_PATH, PYTHONPATH, node_modules), programs found on
 * PATH, files outside the workspace, words decided at run time, and a file changed between the
 * check and the run.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { analyseCommand } from '../core/policy/shell-command';
import { isInside } from '../core/workspace/workspace-path';
import { openRegularFile } from '../store/regular-file';

/** At most this many files are read and hashed for one definition; more are named, not read. */
export const MAX_HASHED_FILES = 32;
/** A bigger file counts by its size and change times (reading it at every tool call would cost too much). */
export const MAX_HASHED_BYTES = 16 * 1024 * 1024;
/** Words looked at for one definition (a 10,000-character command has fewer). */
const MAX_WORDS = 2_000;
const CACHE_ENTRIES = 1_024;

export interface ReferencedFilesRequest {
  /** The workspace root. */
  root: string;
  /** The folder the program runs in: absolute, or relative to the root (default: the root). */
  cwd?: string;
  /** Words as the program receives them (an MCP server's command and arguments), variables already put in. */
  words?: readonly string[];
  /** Shell command lines and values whose words count too (a hook's command, NODE_OPTIONS). */
  lines?: readonly string[];
  /** Variables put into `lines` before they are read (`CLAUDE_PROJECT_DIR` → the root). */
  variables?: Readonly<Record<string, string>>;
}

export interface ReferencedFile {
  /** Relative to the workspace root, `/`-separated. */
  path: string;
  state: 'file' | 'large' | 'missing' | 'folder' | 'fifo' | 'device' | 'socket' | 'other' | 'outside' | 'unread';
}

export interface ReferencedFileSet {
  /** One line per path (`file tools/server.js <sha256>`): what the fingerprint covers. No content. */
  entries: string[];
  /** The paths that exist, for the question ("runs tools/server.js"). */
  files: ReferencedFile[];
}

/** Hashes of files by what identifies a version of them; one per process (wiring) or per test. */
export class ReferencedFiles {
  private readonly hashes = new Map<string, string>();
  /** How many files were read (not answered from the cache): for tests and benchmarks. */
  reads = 0;

  async examine(request: ReferencedFilesRequest): Promise<ReferencedFileSet> {
    const root = await realOr(request.root);
    const cwdText = request.cwd === undefined ? root : path.resolve(root, request.cwd);
    const cwd = await realOr(cwdText);
    const words = [...(request.words ?? [])];
    for (const line of request.lines ?? []) words.push(...shellWords(line, request.variables ?? {}));
    const entries: string[] = [];
    const files: ReferencedFile[] = [];
    const seen = new Set<string>();
    let hashed = 0;
    for (const word of candidates(words).slice(0, MAX_WORDS)) {
      const absolute = path.resolve(cwd, word);
      if (!isInside(root, absolute) && !isInside(path.resolve(request.root), absolute)) continue;
      const lexical = isInside(root, absolute) ? absolute : path.join(root, path.relative(request.root, absolute));
      if (seen.has(lexical)) continue;
      seen.add(lexical);
      const shown = path.relative(root, lexical).split(path.sep).join('/') || '.';
      const found = await this.look(root, lexical, hashed < MAX_HASHED_FILES);
      if (found.state === 'file' || found.state === 'large') hashed++;
      entries.push(`${found.state} ${shown}${found.detail ? ` ${found.detail}` : ''}`);
      if (found.state !== 'missing') files.push({ path: shown, state: found.state });
    }
    return { entries, files };
  }

  private async look(
    root: string,
    absolute: string,
    mayRead: boolean,
  ): Promise<{ state: ReferencedFile['state']; detail?: string }> {
    let real: string;
    try {
      real = await fs.realpath(absolute);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return code === 'ENOENT' || code === 'ENOTDIR' ? { state: 'missing' } : { state: 'unread', detail: code };
    }
    if (!isInside(root, real)) return { state: 'outside', detail: `-> ${real}` };
    let stats: import('node:fs').BigIntStats;
    try {
      stats = await fs.lstat(real, { bigint: true });
    } catch (error) {
      return { state: 'unread', detail: (error as NodeJS.ErrnoException).code };
    }
    // A pipe, a device or a folder is named, never opened.
    if (stats.isDirectory()) return { state: 'folder' };
    if (stats.isFIFO()) return { state: 'fifo' };
    if (stats.isCharacterDevice() || stats.isBlockDevice()) return { state: 'device' };
    if (stats.isSocket()) return { state: 'socket' };
    if (!stats.isFile()) return { state: 'other' };
    const version = `${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
    if (stats.size > BigInt(MAX_HASHED_BYTES)) return { state: 'large', detail: version };
    if (!mayRead) return { state: 'unread', detail: `past ${MAX_HASHED_FILES} files` };
    const key = `${stats.dev}:${stats.ino}:${version}`;
    const cached = this.hashes.get(key);
    if (cached !== undefined) return { state: 'file', detail: cached };
    try {
      const digest = await this.hash(real);
      return digest.large ? { state: 'large', detail: digest.version } : { state: 'file', detail: digest.hash };
    } catch (error) {
      return { state: 'unread', detail: (error as NodeJS.ErrnoException).code ?? (error as Error).message };
    }
  }

  /** Opened without following a link or waiting on a pipe (swapped since the lstat), read up to the cap. */
  private async hash(real: string): Promise<{ hash: string; large?: false } | { large: true; version: string }> {
    const { handle } = await openRegularFile(real, constants.O_RDONLY, MAX_HASHED_BYTES);
    try {
      // The version the content belongs to, taken from the open file: a write during the read
      // changes ctime, so the next look misses the cache and reads again.
      const stats = await handle.stat({ bigint: true });
      const version = `${stats.size}:${stats.mtimeNs}:${stats.ctimeNs}`;
      const hash = createHash('sha256');
      const buffer = Buffer.allocUnsafe(1024 * 1024);
      let total = 0;
      for (;;) {
        const { bytesRead } = await handle.read(buffer, 0, buffer.length, total);
        if (bytesRead === 0) break;
        total += bytesRead;
        if (total > MAX_HASHED_BYTES) return { large: true, version };
        hash.update(buffer.subarray(0, bytesRead));
      }
      this.reads++;
      const digest = hash.digest('hex');
      this.remember(`${stats.dev}:${stats.ino}:${version}`, digest);
      return { hash: digest };
    } finally {
      await handle.close();
    }
  }

  private remember(key: string, digest: string): void {
    if (this.hashes.size >= CACHE_ENTRIES) this.hashes.delete(this.hashes.keys().next().value as string);
    this.hashes.set(key, digest);
  }
}

/**
 * The words of a shell command line, `variables` put in (as `$NAME` and `${NAME}`). Read by the
 * project's shell analyser (segments, `bash -c` strings, substitutions, redirection targets);
 * what it will not vouch for (groups, here-documents) is split crudely instead — a word too
 * many only makes the fingerprint stricter.
 */
export function shellWords(line: string, variables: Readonly<Record<string, string>>): string[] {
  const names = Object.keys(variables);
  // Variables become plain placeholder words first: the analyser keeps `$NAME` literal.
  let text = line;
  names.forEach((name, index) => {
    text = text.split(`\${${name}}`).join(placeholder(index));
    text = text.replace(new RegExp(`\\$${name}(?![A-Za-z0-9_])`, 'g'), placeholder(index));
  });
  const analysis = analyseCommand(text);
  const words = analysis.ok
    ? [
        ...analysis.segments.flatMap((segment) => segment.argv),
        ...analysis.redirections.map((redirection) => redirection.target),
      ]
    : text
        .replace(/['"\\]/g, '')
        .split(/[\s;&|<>()`]+/)
        .filter(Boolean);
  return words.map((word) =>
    names.reduce((current, name, index) => current.split(placeholder(index)).join(variables[name]!), word),
  );
}

function placeholder(index: number): string {
  return `__openagent_variable_${index}__`;
}

/** The words that may name a file: `--opt=value` adds `value`; run-time words are dropped. */
function candidates(words: readonly string[]): string[] {
  const out: string[] = [];
  for (const word of words) {
    const assigned = /^[^=]*=(.+)$/.exec(word)?.[1];
    for (const candidate of assigned === undefined ? [word] : [word, assigned]) {
      if (candidate === '' || candidate.length > 4_096 || /[\0\n\r]/.test(candidate)) continue;
      // Decided when it runs: a variable, a substitution, a glob, a home folder.
      if (/[$`*?[\uE000\uE001]/.test(candidate) || candidate.startsWith('~')) continue;
      out.push(candidate);
    }
  }
  return out;
}

async function realOr(folder: string): Promise<string> {
  try {
    return await fs.realpath(folder);
  } catch {
    return path.resolve(folder);
  }
}
