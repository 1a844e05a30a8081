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
  /** The command and arguments as the program receives them (an MCP server's), variables already put in. */
  argv?: readonly string[];
  /** Shell command lines whose words count too (a hook's command, `bash -c` strings). */
  lines?: readonly string[];
  /** Values whose words are options and arguments, never a program (NODE_OPTIONS, an env file's). */
  values?: readonly string[];
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
    const words = classifyArgv(request.argv ?? [], 0);
    for (const line of request.lines ?? []) words.push(...shellWords(line, request.variables ?? {}));
    for (const value of request.values ?? [])
      words.push(
        ...shellWords(value, request.variables ?? {}).map((word, index, all): CommandWord => ({
          text: word.text,
          role: CODE_OPTIONS.has(all[index - 1]?.text ?? '') ? 'script' : 'argument',
        })),
      );
    const entries: string[] = [];
    const files: ReferencedFile[] = [];
    const seen = new Set<string>();
    let hashed = 0;
    for (const { text: word, role } of candidates(words).slice(0, MAX_WORDS)) {
      // A bare program name is found on PATH, never in the working folder.
      if (role === 'program' && !word.includes('/') && !word.includes(path.sep)) continue;
      const absolute = path.resolve(cwd, word);
      if (!isInside(root, absolute) && !isInside(path.resolve(request.root), absolute)) continue;
      const lexical = isInside(root, absolute) ? absolute : path.join(root, path.relative(request.root, absolute));
      if (seen.has(lexical)) continue;
      const byName = role !== 'argument' || SCRIPT_EXTENSIONS.test(word);
      // Any other argument counts only when it is an executable file.
      if (!byName && !(await isExecutableFile(lexical))) continue;
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

/** Where a word stands: the program, the script an interpreter runs, or any other argument. */
export interface CommandWord {
  text: string;
  role: 'program' | 'script' | 'argument';
}

/** A name that is a script whatever its position (`uv run x.py`, `npx tsx x.ts`, `--hook=./x.sh`). */
export const SCRIPT_EXTENSIONS =
  /\.(sh|bash|zsh|ksh|fish|py|pyw|js|mjs|cjs|jsx|ts|mts|cts|tsx|rb|pl|pm|php|lua|ps1|psm1|bat|cmd|r|jar|tcl|awk|sed)$/i;

/** Programs that run the file they are given as their first argument that is not an option. */
const INTERPRETERS =
  /^(sh|bash|zsh|dash|ksh|fish|node|nodejs|deno|bun|tsx|ts-node|python[0-9.]*|pypy[0-9.]*|ruby|perl|php|lua|luajit|rscript|pwsh|powershell|osascript|tclsh|awk|gawk|sed|source|\.)$/i;
/** Options whose value is code to load (`node --require ./x.js`, `awk -f x.awk`). */
const CODE_OPTIONS = new Set(['-r', '--require', '--import', '--loader', '--experimental-loader', '-f', '--file']);

/**
 * The roles of a command's words, `programIndex` being its program (wrappers before it are
 * programs too: `env X=1 ./x.sh`).
 */
export function classifyArgv(
  argv: readonly string[],
  programIndex: number,
  programWords: number[] = [],
): CommandWord[] {
  const program = path.basename(argv[programIndex] ?? '');
  const interpreter = INTERPRETERS.test(program);
  let scriptGiven = false;
  return argv.map((text, index): CommandWord => {
    if (index === programIndex || programWords.includes(index)) return { text, role: 'program' };
    if (index < programIndex) return { text, role: 'argument' };
    if (interpreter && CODE_OPTIONS.has(argv[index - 1] ?? '')) return { text, role: 'script' };
    if (interpreter && !scriptGiven && !text.startsWith('-') && !CODE_OPTIONS.has(text)) {
      scriptGiven = true;
      return { text, role: 'script' };
    }
    return { text, role: 'argument' };
  });
}

/**
 * The words of a shell command line, `variables` put in (as `$NAME` and `${NAME}`), with their
 * roles. Read by the project's shell analyser (segments, `bash -c` strings, substitutions, `<`
 * inputs; `>` targets are outputs, left out); what it will not vouch for (groups,
 * here-documents) is split crudely instead, every word an argument.
 */
export function shellWords(line: string, variables: Readonly<Record<string, string>>): CommandWord[] {
  const names = Object.keys(variables);
  // Variables become plain placeholder words first: the analyser keeps `$NAME` literal.
  let text = line;
  names.forEach((name, index) => {
    text = text.split(`\${${name}}`).join(placeholder(index));
    text = text.replace(new RegExp(`\\$${name}(?![A-Za-z0-9_])`, 'g'), placeholder(index));
  });
  const analysis = analyseCommand(text);
  const words: CommandWord[] = analysis.ok
    ? [
        ...analysis.segments.flatMap((segment) =>
          classifyArgv(segment.argv, segment.programIndex, segment.programWords),
        ),
        ...analysis.redirections
          .filter((redirection) => /^\d*<$/.test(redirection.op))
          .map((redirection): CommandWord => ({ text: redirection.target, role: 'argument' })),
      ]
    : text
        .replace(/['"\\]/g, '')
        .split(/[\s;&|<>()`]+/)
        .filter(Boolean)
        .map((word): CommandWord => ({ text: word, role: 'argument' }));
  return words.map((word) => ({
    ...word,
    text: names.reduce((current, name, index) => current.split(placeholder(index)).join(variables[name]!), word.text),
  }));
}

function placeholder(index: number): string {
  return `__openagent_variable_${index}__`;
}

/** The words that may name a file: `--opt=value` adds `value`; run-time words are dropped. */
function candidates(words: readonly CommandWord[]): CommandWord[] {
  const out: CommandWord[] = [];
  for (const word of words) {
    const split = /^([^=]*)=(.+)$/.exec(word.text);
    const assigned: CommandWord | undefined = split
      ? { text: split[2]!, role: CODE_OPTIONS.has(split[1]!) ? 'script' : 'argument' }
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
