/**
 * Which words of a command name a file it runs (for referenced-files.ts, what an allow covers):
 * the program given by path, the script an interpreter or launcher is given, code-loading
 * options and variables, and the folders relative words are read from.
 *
 * An interpreter's script is the first operand that exists as a file, so its options need not
 * all be known (`bash -o pipefail x`, `python -W ignore x`, `deno run -A x`, `uv run x`): every
 * operand up to it counts ("missing pipefail" is named; creating that file is a change), the
 * words after it are data. `python -m pkg.mod` names the module's files. A `cd dir` (or `-C
 * dir`, `--directory dir`, `--cwd dir`, `--prefix dir`) adds a folder relative words are read
 * from too. A line the analyser will not vouch for (subshells, `if`, here-documents) is split
 * crudely into commands, each read the same way. An MCP server's argv is read as a shell line
 * of quoted words, so wrappers (`env`, `timeout 60`, `exec`, `xargs`) and `sh -c` strings count
 * as in a hook's command.
 */
import * as path from 'node:path';
import { analyseCommand } from '../core/policy/shell-command';

/** Where a word stands: the program, the script an interpreter runs, or any other argument. */
export interface CommandWord {
  text: string;
  role: 'program' | 'script' | 'argument';
  /**
   * Alternatives in order (an interpreter's operands): after the first that exists (not a
   * folder), the others of the same group are data and do not count.
   */
  group?: number;
  /** Folders (relative to the working folder, or absolute) the word is read from; default ['.']. */
  folders?: readonly string[];
}

/** A name that is a script whatever its position (`uv run x.py`, `npx tsx x.ts`, `--hook=./x.sh`). */
export const SCRIPT_EXTENSIONS =
  /\.(sh|bash|zsh|ksh|fish|py|pyw|js|mjs|cjs|jsx|ts|mts|cts|tsx|rb|pl|pm|php|lua|ps1|psm1|bat|cmd|r|jar|tcl|awk|sed)$/i;

/** Programs that run the file they are given: interpreters, and launchers of a script or program. */
const INTERPRETERS =
  /^(sh|bash|zsh|dash|ksh|fish|node|nodejs|deno|bun|bunx|tsx|ts-node|python[0-9.]*|pypy[0-9.]*|ruby|perl|php|lua|luajit|rscript|pwsh|powershell|osascript|tclsh|awk|gawk|sed|source|\.|uv|uvx|npx|pnpx|pnpm|yarn|npm|poetry|pipenv|pdm|hatch|rye|bundle|go|java|dotnet)$/i;
/** Options whose value is code to load (`node --require ./x.js`, `awk -f x.awk`, an env file). */
export const CODE_OPTIONS = new Set([
  '-r',
  '--require',
  '--import',
  '--loader',
  '--experimental-loader',
  '-f',
  '--file',
  '--env-file',
  '--rcfile',
  '--init-file',
]);
/** Options whose value is a folder the program then works in (`uv --directory tools run x.py`). */
const FOLDER_OPTIONS = new Set(['-C', '--directory', '--cwd', '--prefix', '--chdir']);
/**
 * Options after which the code is given inline, by interpreter: the operands that follow are its
 * arguments (`bash -c '…'` strings are read by the analyser). `-e` is errexit for a shell.
 */
const INLINE_CODE: [RegExp, readonly string[]][] = [
  [/^(sh|bash|zsh|dash|ksh|fish|python[0-9.]*|pypy[0-9.]*)$/i, ['-c']],
  [/^(node|nodejs|bun|deno)$/i, ['-e', '--eval', '-p', '--print']],
  [/^(ruby|perl|php|lua|luajit)$/i, ['-e', '-E']],
];
/** Variables whose value is code the program loads (`BASH_ENV=./x bash -c …`, LD_PRELOAD). */
export const CODE_VARIABLES = new Set([
  'BASH_ENV',
  'ENV',
  'LD_PRELOAD',
  'LD_AUDIT',
  'PYTHONSTARTUP',
  'NODE_OPTIONS',
  'RUBYOPT',
  'PERL5OPT',
]);
/** An interpreter's operands looked at for its script. */
const MAX_OPERANDS = 4;
const MAX_FOLDERS = 16;

let groups = 0;

/**
 * The roles of a command's words, `programIndex` being its program (wrappers before it are
 * programs too: `env X=1 ./x.sh`). Folder options (`-C dir`) are added to `folders`.
 */
export function classifyArgv(
  argv: readonly string[],
  programIndex: number,
  programWords: number[] = [],
  folders: string[] = [],
): CommandWord[] {
  const program = path.basename(argv[programIndex] ?? '');
  const interpreter = INTERPRETERS.test(program);
  const group = ++groups;
  const roles: CommandWord[] = argv.map((text, index) => ({
    text,
    role: index === programIndex || programWords.includes(index) ? 'program' : 'argument',
  }));
  const inline = INLINE_CODE.find(([name]) => name.test(program))?.[1] ?? [];
  let operands = 0;
  let optionsEnd = false;
  for (let index = Math.max(programIndex, 0) + 1; index < argv.length; index++) {
    const text = argv[index]!;
    const [option, attached] = text.startsWith('-') && text.includes('=') ? text.split(/=(.*)/s) : [text, undefined];
    if (!optionsEnd && FOLDER_OPTIONS.has(option!)) {
      const folder = attached ?? argv[index + 1];
      if (folder !== undefined) folders.push(folder);
    }
    if (!interpreter) continue;
    if (!optionsEnd && text === '--') {
      optionsEnd = true;
      continue;
    }
    if (!optionsEnd && /^[-+]./.test(text)) {
      if (inline.includes(option!)) break;
      if (/^(python|pypy)/i.test(program) && text.startsWith('-m')) {
        const module = text === '-m' ? argv[index + 1] : text.slice(2);
        for (const file of moduleFiles(module ?? '')) roles.push({ text: file, role: 'script' });
        break;
      }
      if (attached !== undefined && CODE_OPTIONS.has(option!)) roles.push({ text: attached, role: 'script' });
      else if (attached === undefined && CODE_OPTIONS.has(text) && index + 1 < argv.length) {
        index++;
        roles[index]!.role = 'script';
      }
      continue;
    }
    // An option's value or the script: whichever is the first that exists decides (see above).
    if (operands++ >= MAX_OPERANDS) break;
    roles[index] = { text, role: 'script', group };
  }
  return roles;
}

/** The files `python -m a.b` may run: each package's `__init__.py`, then `a/b.py` or `a/b/__main__.py`. */
function moduleFiles(module: string): string[] {
  if (!/^[A-Za-z_][\w.]*$/.test(module)) return [];
  const parts = module.split('.');
  const files = parts.slice(0, -1).map((_, index) => `${parts.slice(0, index + 1).join('/')}/__init__.py`);
  const last = parts.join('/');
  return [...files, `${last}.py`, `${last}/__init__.py`, `${last}/__main__.py`];
}

/**
 * The words of a shell command line, `variables` put in (as `$NAME` and `${NAME}`), with their
 * roles and the folders they are read from. Read by the project's shell analyser (segments,
 * `bash -c` strings, substitutions, `<` inputs; `>` targets are outputs, left out); what it will
 * not vouch for (groups, conditionals, here-documents) is split crudely into commands instead.
 */
export function shellWords(line: string, variables: Readonly<Record<string, string>>): CommandWord[] {
  const names = Object.keys(variables);
  // Variables become plain placeholder words first: the analyser keeps `$NAME` literal.
  let text = line;
  names.forEach((name, index) => {
    text = text.split(`\${${name}}`).join(placeholder(index));
    text = text.replace(new RegExp(`\\$${name}(?![A-Za-z0-9_])`, 'g'), placeholder(index));
  });
  const put = (word: string) =>
    names.reduce((current, name, index) => current.split(placeholder(index)).join(variables[name]!), word);
  const analysis = analyseCommand(text);
  const segments: { argv: string[]; programIndex: number; programWords: number[] }[] = analysis.ok
    ? analysis.segments
    : crudeSegments(text);
  const folders: string[] = ['.'];
  const words: CommandWord[] = [];
  for (const segment of segments) {
    const argv = segment.argv.map(put);
    const added: string[] = [];
    words.push(...classifyArgv(argv, segment.programIndex, segment.programWords, added));
    const program = path.basename(argv[segment.programIndex] ?? '');
    if ((program === 'cd' || program === 'pushd') && argv[segment.programIndex + 1] !== undefined)
      added.push(argv.slice(segment.programIndex + 1).find((word) => !word.startsWith('-')) ?? '.');
    // Each folder named is read from every folder known so far (`cd a; cd b` is a/b).
    for (const folder of added)
      if (!/[$`*?~]/.test(folder) && folders.length < MAX_FOLDERS)
        folders.push(...folders.map((known) => path.join(known, folder)).filter((f) => !folders.includes(f)));
  }
  if (analysis.ok)
    for (const redirection of analysis.redirections)
      if (/^\d*<$/.test(redirection.op)) words.push({ text: put(redirection.target), role: 'argument' });
  const shared = folders.slice(0, MAX_FOLDERS);
  return words.map((word) => ({ ...word, folders: shared }));
}

/**
 * The words of an MCP server's command and arguments, read as a shell line of quoted words: its
 * wrappers, `sh -c` strings and folder options count as in a hook's command.
 */
export function argvWords(argv: readonly string[]): CommandWord[] {
  if (argv.length === 0) return [];
  const quote = (word: string) => `'${word.split("'").join("'\\''")}'`;
  // `NAME=value` after the program stays an assignment (`env NODE_OPTIONS=… node x`).
  const line = argv
    .map((word, index) => {
      const assignment = index > 0 ? /^([A-Za-z_]\w*)=(.*)$/s.exec(word) : null;
      return assignment ? `${assignment[1]}=${quote(assignment[2]!)}` : quote(word);
    })
    .join(' ');
  return shellWords(line, {});
}

/** Variables given to the program (`{ BASH_ENV: './x' }`) as words: a code variable's value is a script. */
export function environmentWords(
  environment: Readonly<Record<string, string>>,
  variables: Readonly<Record<string, string>>,
): CommandWord[] {
  return Object.entries(environment).flatMap(([name, value]) => {
    const words = shellWords(value, variables).map(({ text, folders }, index, all): CommandWord => ({
      text,
      role: CODE_OPTIONS.has(all[index - 1]?.text ?? '') ? 'script' : 'argument',
      ...(folders ? { folders } : {}),
    }));
    if (!CODE_VARIABLES.has(name) || name === 'NODE_OPTIONS') return words;
    // LD_PRELOAD is a list; RUBYOPT `-r./x`, PERL5OPT `-Mx` name code attached.
    return value
      .split(/[\s:]+/)
      .filter(Boolean)
      .map((text): CommandWord => ({ text: text.replace(/^-[rM]/, ''), role: 'script' }));
  });
}

/**
 * Commands of a line the analyser will not vouch for, split at operators, parentheses, braces
 * and line breaks, shell keywords and redirections dropped; each command's program found as the
 * analyser would (after `NAME=value` words).
 */
function crudeSegments(text: string): { argv: string[]; programIndex: number; programWords: number[] }[] {
  const keywords = /^(if|then|else|elif|fi|do|done|while|until|for|in|case|esac|function|select|time|!|\{|\})$/;
  return text
    .split(/[;&|()\n\r`{}]+/)
    .map((piece) =>
      piece
        .replace(/['"\\]/g, '')
        .replace(/\d*(<<-?|>>|>&|<&|>|<)\s*\S*/g, ' ')
        .split(/\s+/)
        .filter(Boolean),
    )
    .map((argv) => {
      let index = 0;
      while (index < argv.length && (keywords.test(argv[index]!) || /^[A-Za-z_]\w*=/.test(argv[index]!))) index++;
      return { argv, programIndex: index < argv.length ? index : -1, programWords: [] };
    })
    .filter((segment) => segment.argv.length > 0);
}

function placeholder(index: number): string {
  return `__openagent_variable_${index}__`;
}
