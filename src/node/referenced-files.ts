/**
 * The workspace files a repository's hook or MCP server runs, hashed into the fingerprint the
 * user's "Allow" is kept under: `bash .claude/hooks/check.sh`, `"$CLAUDE_PROJECT_DIR"/.claude/
 * hooks/check.py` or `node ./tools/server.js` run a file the repository (or the agent, which
 * writes in the workspace) can change after the allow. With its content in the fingerprint, a
 * changed file is another fingerprint: the allow no longer holds and the user is asked again.
 *
 * Which files: the words of the command (for a shell command line, those the project's shell
 * analyser reads, `bash -c` strings and `$(…)` included; for environment values such as
 * NODE_OPTIONS, their words too; `--opt=value` counts `value`) that name a path inside the
 * workspace, relative to the working folder or absolute, AND name a program: the word that is
 * the program (`./check.sh`), the script an interpreter is given (`bash check`, `node
 * server.js`, `node --require ./x.js`), or any word naming a script by its extension (.sh, .py,
 * .js, .ts…, SCRIPT_EXTENSIONS) or an executable file. Other words are data and outputs (`touch
 * RAN`, `--db ./data.sqlite`, a `>` target): hashing them would ask again each time the hook
 * or server writes them. Variables the formats define for the workspace root
 * (`$CLAUDE_PROJECT_DIR`, `${workspaceFolder}`) are put in first; a word still holding a
 * variable, a substitution, a glob or a `~` is decided at run time and not followed. For each:
 * Hashes are cached by (device, inode, size, mtime, ctime): hooks that run on every tool call
 * stat their files, they do not read them again.
 *
 * NOT covered (said in the README too): files the program itself reads, sources or imports
 * (`source ./lib.sh` inside the script, `require('./helper')`, a Python module beside it), the
 * interpreters' module search paths (NODE_PATH, PYTHONPATH, node_modules), data files passed as
 * arguments, programs found on PATH, files outside the workspace, words decided at run time, and
 * a file changed between the check and the run.
 */
import { createHash } from 'node:crypto';
import { constants, type BigIntStats } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { isInside } from '../core/workspace/workspace-path';
import { openRegularFile } from '../store/regular-file';
import {
  argvWords,
  CODE_OPTIONS,
  CODE_VARIABLES,
  environmentWords,
  SCRIPT_EXTENSIONS,
  shellWords,
  type CommandWord,
} from './command-scripts';

export { classifyArgv, SCRIPT_EXTENSIONS, shellWords, type CommandWord } from './command-scripts';

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
  /** The command and arguments as the program receives them (an MCP server's), variables already put in. */
  argv?: readonly string[];
  /** Shell command lines whose words count too (a hook's command, `bash -c` strings). */
  lines?: readonly string[];
  /** Values whose words are options and arguments, never a program (NODE_OPTIONS, an env file's). */
  values?: readonly string[];
  /** The program's environment: values as `values`, and a code variable's (BASH_ENV, LD_PRELOAD) as scripts. */
  environment?: Readonly<Record<string, string>>;
  /** Variables put into `lines` and `values` before they are read (`CLAUDE_PROJECT_DIR` → the root). */
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
    const variables = request.variables ?? {};
    const words = argvWords(request.argv ?? []);
    for (const line of request.lines ?? []) words.push(...shellWords(line, variables));
    for (const value of request.values ?? []) words.push(...environmentWords({ '': value }, variables));
    words.push(...environmentWords(request.environment ?? {}, variables));
    const entries: string[] = [];
    const files: ReferencedFile[] = [];
    const seen = new Map<string, ReferencedFile['state']>();
    // An interpreter's operands: once one exists, the others of its group are data.
    const decided = new Set<number>();
    let hashed = 0;
    for (const { text: word, role, group, folders } of candidates(words).slice(0, MAX_WORDS)) {
      // A bare program name is found on PATH, never in the working folder.
      if (role === 'program' && !word.includes('/') && !word.includes(path.sep)) continue;
      for (const folder of folders ?? ['.']) {
        if (group !== undefined && decided.has(group)) break;
        const absolute = path.resolve(cwd, folder, word);
        if (!isInside(root, absolute) && !isInside(path.resolve(request.root), absolute)) continue;
        const lexical = isInside(root, absolute) ? absolute : path.join(root, path.relative(request.root, absolute));
        const byName = role !== 'argument' || SCRIPT_EXTENSIONS.test(word);
        // Any other argument counts only when it is an executable file.
        if (!seen.has(lexical) && !byName && !(await isExecutableFile(lexical))) continue;
        let state = seen.get(lexical);
        if (state === undefined) {
          const shown = path.relative(root, lexical).split(path.sep).join('/') || '.';
          const found = await this.look(root, lexical, hashed < MAX_HASHED_FILES);
          state = found.state;
          seen.set(lexical, state);
          if (state === 'file' || state === 'large') hashed++;
          entries.push(`${state} ${shown}${found.detail ? ` ${found.detail}` : ''}`);
          if (state !== 'missing') files.push({ path: shown, state });
        }
        if (group !== undefined && state !== 'missing' && state !== 'folder') decided.add(group);
      }
    }
    // The working folder as it really is, when it is not the workspace's: a folder that is a link
    // (leading out, say) re-pointed after the allow changes what relative words name.
    if (cwd !== root)
      entries.push(
        `folder ${isInside(root, cwd) ? path.relative(root, cwd).split(path.sep).join('/') : `outside ${cwd}`}`,
      );
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
    let stats: BigIntStats;
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
    // Past the cap, a file counts by its identity and change times, as a large one: changing it is still a change.
    if (!mayRead)
      return { state: 'unread', detail: `past ${MAX_HASHED_FILES} files ${stats.dev}:${stats.ino}:${version}` };
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

/** The words that may name a file: `--opt=value` adds `value`; run-time words are dropped. */
function candidates(words: readonly CommandWord[]): CommandWord[] {
  const out: CommandWord[] = [];
  for (const word of words) {
    const split = /^([^=]*)=(.+)$/s.exec(word.text);
    // `NODE_OPTIONS='--require ./x' node y`, `BASH_ENV=./x bash -c …`: the value's own words.
    if (split && CODE_VARIABLES.has(split[1]!)) {
      const loaded = environmentWords({ [split[1]!]: split[2]! }, {});
      out.push(...candidates(loaded.map((each) => ({ ...each, ...(word.folders ? { folders: word.folders } : {}) }))));
      continue;
    }
    const assigned: CommandWord | undefined = split
      ? {
          text: split[2]!,
          role: CODE_OPTIONS.has(split[1]!) || CODE_VARIABLES.has(split[1]!) ? 'script' : 'argument',
          ...(word.folders ? { folders: word.folders } : {}),
        }
      : undefined;
    for (const candidate of assigned === undefined ? [word] : [word, assigned]) {
      const text = candidate.text;
      if (text === '' || text.length > 4_096 || /[\0\n\r]/.test(text)) continue;
      // Decided when it runs: a variable, a substitution, a glob, a home folder.
      if (/[$`*?[\uE000\uE001]/.test(text) || text.startsWith('~')) continue;
      out.push(candidate);
    }
  }
  return out;
}

/** A regular file with an execute bit (through links), without opening it. */
async function isExecutableFile(absolute: string): Promise<boolean> {
  try {
    const stats = await fs.stat(absolute);
    return stats.isFile() && (stats.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

async function realOr(folder: string): Promise<string> {
  try {
    return await fs.realpath(folder);
  } catch {
    return path.resolve(folder);
  }
}
