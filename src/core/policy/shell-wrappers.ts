/**
 * Finds the program a simple command really runs, looking through the commands that only run
 * another one: variable assignments, `env`, `sudo`, `doas`, `nohup`, `time`, `nice`, `timeout`,
 * `exec`, `command`, `builtin`, `stdbuf`, `setsid`, `xargs`, `!` — and shells given `-c`, whose
 * string the analyser then reads recursively. `eval` (a string built at run time), `env -S`
 * and unknown options of a wrapper are refused: the program could not be named with confidence.
 */
import { ShellParseError } from './shell-lexer';

export interface WrapperWord {
  text: string;
  /** Written as `NAME=value`, unquoted name. */
  assignment: boolean;
}

export interface ResolvedProgram {
  /** The program that runs (`echo` for a bare `xargs`, '' when only variables are assigned). */
  program: string;
  /** Its index in the words, or -1 when it is implied (a bare `xargs`). */
  index: number;
  /** The indices of every word that names a program on the way: the wrappers, then the program. */
  chain: number[];
  /** For `bash -c '...'` and friends: the command string the shell will run … */
  shellCommand?: string;
  /** … and the index of the word it was read from. */
  shellCommandIndex?: number;
  /** A shell that reads the commands it runs from its input (`… | sh`, `sh -s`): unknown until run. */
  readsCommands?: boolean;
}

interface OptionSpec {
  /** Short options without a value, e.g. 'inE'. */
  flags: string;
  /** Short options taking a value (attached `-uroot` or the next word). */
  valued: string;
  /** Long options (without `--`) without a value. */
  longFlags?: readonly string[];
  /** Long options taking a value (`--user=root` or the next word). */
  longValued?: readonly string[];
  /** Accept `-5` style numbers (nice). */
  numbers?: boolean;
}

const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh']);
const SHELL_LONG_FLAGS = new Set([
  '--login',
  '--norc',
  '--noprofile',
  '--posix',
  '--restricted',
  '--verbose',
  '--noediting',
]);
const SHELL_LONG_VALUED = new Set(['--rcfile', '--init-file']);

const WRAPPERS: Record<string, OptionSpec> = {
  env: {
    flags: 'i0v',
    valued: 'uC',
    longFlags: ['ignore-environment', 'null', 'debug'],
    longValued: ['unset', 'chdir'],
  },
  sudo: {
    flags: 'AbEHknPSis',
    valued: 'ughpCDrtTUR',
    longFlags: ['preserve-env', 'non-interactive', 'login', 'shell', 'background', 'set-home', 'stdin', 'askpass'],
    longValued: ['user', 'group', 'host', 'prompt', 'close-from', 'chdir', 'role', 'type', 'command-timeout', 'chroot'],
  },
  doas: { flags: 'ns', valued: 'uC' },
  nohup: { flags: '', valued: '' },
  setsid: { flags: 'cfw', valued: '', longFlags: ['ctty', 'fork', 'wait'] },
  time: {
    flags: 'pvaq',
    valued: 'fo',
    longFlags: ['portability', 'verbose', 'append', 'quiet'],
    longValued: ['format', 'output'],
  },
  nice: { flags: '', valued: 'n', longValued: ['adjustment'], numbers: true },
  timeout: {
    flags: 'v',
    valued: 'sk',
    longFlags: ['preserve-status', 'foreground', 'verbose'],
    longValued: ['signal', 'kill-after'],
  },
  exec: { flags: 'cl', valued: 'a' },
  command: { flags: 'p', valued: '' },
  builtin: { flags: '', valued: '' },
  stdbuf: { flags: '', valued: 'ioe', longValued: ['input', 'output', 'error'] },
  xargs: {
    flags: '0rtpxoile',
    valued: 'ILnPsdEa',
    longFlags: [
      'null',
      'no-run-if-empty',
      'verbose',
      'interactive',
      'exit',
      'open-tty',
      'show-limits',
      'replace',
      'eof',
    ],
    longValued: ['max-lines', 'max-args', 'max-procs', 'max-chars', 'delimiter', 'arg-file', 'process-slot-var'],
  },
};

/** Short options that take an optional value only when it is attached (`-i{}`), in xargs. */
const ATTACHED_ONLY = new Set(['xargs:i', 'xargs:l', 'xargs:e']);

export function resolveProgram(words: readonly WrapperWord[]): ResolvedProgram {
  let i = 0;
  let assignmentsAllowed = true;
  let negationAllowed = true;
  let xargsReplaces = false;
  const chain: number[] = [];
  for (;;) {
    while (assignmentsAllowed && words[i]?.assignment) i += 1;
    const word = words[i];
    if (word === undefined) return { program: '', index: -1, chain };
    if (negationAllowed && word.text === '!') {
      negationAllowed = false;
      i += 1;
      continue;
    }
    negationAllowed = false;
    chain.push(i);
    const name = basename(word.text);
    if (name === 'eval') throw new ShellParseError('`eval` runs a string built at run time', { runtimeProgram: true });
    if (SHELLS.has(name)) {
      if (xargsReplaces)
        throw new ShellParseError('`xargs -I` puts its input into a shell command string', { runtimeProgram: true });
      return { ...shellCommand(words, i), chain };
    }
    const spec = Object.hasOwn(WRAPPERS, name) ? WRAPPERS[name] : undefined;
    if (spec === undefined) return { program: word.text, index: i, chain };
    const next = skipOptions(words, i + 1, name, spec);
    if (next === 'not-a-wrapper') return { program: word.text, index: i, chain };
    if (name === 'xargs') xargsReplaces = words.slice(i + 1, next).some((w) => /^(-[^-]*[Ii]|--replace)/.test(w.text));
    let start = next;
    if (name === 'timeout') start += 1; // the duration
    if (words[start] === undefined) {
      return name === 'xargs' ? { program: 'echo', index: -1, chain } : { program: word.text, index: i, chain };
    }
    i = start;
    // `time` is bash's keyword before a whole command: `time X=1 git push` assigns, then runs git.
    assignmentsAllowed = name === 'env' || name === 'sudo' || name === 'doas' || name === 'time';
  }
}

/**
 * Returns the index after the options, or 'not-a-wrapper' when an option makes the wrapper
 * run nothing (`command -v`).
 */
function skipOptions(
  words: readonly WrapperWord[],
  start: number,
  name: string,
  spec: OptionSpec,
): number | 'not-a-wrapper' {
  let i = start;
  for (;;) {
    const text = words[i]?.text;
    if (text === undefined || !text.startsWith('-') || text === '-') {
      if (text === '-' && name === 'env') {
        i += 1;
        continue;
      }
      return i;
    }
    if (text === '--') return i + 1;
    if (name === 'command' && (text === '-v' || text === '-V')) return 'not-a-wrapper';
    if (name === 'env' && (text.startsWith('-S') || text.startsWith('--split-string'))) {
      throw new ShellParseError('`env -S` splits a string into a command: not analysed', { runtimeProgram: true });
    }
    if (text.startsWith('--')) {
      const [long = '', value] = text.slice(2).split('=', 2);
      if (spec.longFlags?.includes(long) && value === undefined) i += 1;
      else if (spec.longValued?.includes(long)) i += value === undefined ? 2 : 1;
      else if (name === 'xargs' && spec.longFlags?.includes(long)) i += 1;
      else throw new ShellParseError(`\`${name}\` option \`${text}\` is not known to the analyser`);
      continue;
    }
    if (spec.numbers && /^-\d+$/.test(text)) {
      i += 1;
      continue;
    }
    i += shortOptionWords(text, name, spec);
  }
}

/** How many words a cluster of short options like `-nE` or `-u root` takes. */
function shortOptionWords(text: string, name: string, spec: OptionSpec): number {
  for (let k = 1; k < text.length; k += 1) {
    const option = text.charAt(k);
    if (ATTACHED_ONLY.has(`${name}:${option}`)) return 1;
    if (spec.valued.includes(option)) return k === text.length - 1 ? 2 : 1;
    if (!spec.flags.includes(option)) {
      throw new ShellParseError(`\`${name}\` option \`-${option}\` is not known to the analyser`);
    }
  }
  return 1;
}

/** `bash -c 'cmd'`: the program is the shell, and its string is analysed too. */
function shellCommand(words: readonly WrapperWord[], index: number): Omit<ResolvedProgram, 'chain'> {
  const program = words[index]?.text ?? '';
  let withC = false;
  let fromInput = false;
  let i = index + 1;
  for (;;) {
    const text = words[i]?.text;
    if (text === undefined || text === '-' || !/^[-+]/.test(text)) break;
    i += 1;
    if (text === '--') break;
    if (text.startsWith('--')) {
      if (SHELL_LONG_VALUED.has(text)) i += 1;
      else if (!SHELL_LONG_FLAGS.has(text))
        throw new ShellParseError(`\`${program}\` option \`${text}\` is not known to the analyser`);
      continue;
    }
    if (/^[-+][oO]$/.test(text))
      i += 1; // -o option-name
    else if (text.startsWith('-') && text.includes('c')) withC = true;
    else if (text.startsWith('-') && text.includes('s')) fromInput = true;
  }
  // `… | sh`, `sh -s`: the commands come from its input, known only when it runs.
  if (!withC) return { program, index, ...(fromInput || words[i] === undefined ? { readsCommands: true } : {}) };
  const command = words[i]?.text;
  if (command === undefined) throw new ShellParseError(`\`${program} -c\` has no command string`);
  return { program, index, shellCommand: command, shellCommandIndex: i };
}

/** The last part of a program path (`/usr/bin/git` → `git`, `/usr/bin/git/` → `git`). */
export function basename(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  const slash = trimmed.lastIndexOf('/');
  return slash < 0 ? trimmed : trimmed.slice(slash + 1);
}
