/**
 * Values a program runs as a command line of its own (SPEC 4.3): git config given on the command
 * line (`git -c core.pager='curl x' log`, `--config-env`, `GIT_CONFIG_KEY_n`/`VALUE_n`,
 * `GIT_CONFIG_PARAMETERS`, `git config core.pager 'curl x'`) and environment variables
 * (`GIT_SSH_COMMAND`, `EDITOR`, `PAGER`, `LESSOPEN`…) set on a command, through `env`, exported or
 * assigned anywhere in the command line. This file is the one table of them and the one reader:
 * denied-programs.ts checks every value found as a command line (wrappers, launchers and run-time
 * words all apply there), so `GIT_PAGER=cat git log` passes a `curl*` rule and `GIT_PAGER='git
 * push' git log` is refused under `git push*`. A value decided only at run time cannot be shown
 * not to run a denied program. Config FILES and hooks are beyond what a command line shows.
 */
import { commandStart } from './launchers';
import type { CommandSegment } from './shell-command';

/** How a value becomes the command line it runs. */
type Kind =
  /** The value is the command line (git runs it through `sh -c`; most programs alike). */
  | 'shell'
  /** `credential.helper`: `!cmd` is a shell command, `/path …` a program, `store` is `git credential-store`. */
  | 'helper'
  /** `alias.x`: `!cmd` is a shell command, anything else a git command line. */
  | 'alias'
  /** `submodule.x.update`: only `!cmd` runs a command. */
  | 'bang'
  /** `pager.<cmd>`, `core.fsmonitor`: a boolean, or else a command. */
  | 'switch'
  /** `LESSOPEN='|lesspipe %s'`: the command after the pipe marks. */
  | 'less'
  /** `BASH_ENV`, `ENV`, `PS4`…: expanded by the shell (`$(…)` in it runs). */
  | 'expanded'
  /** A config value whose key is not known here (`GIT_CONFIG_VALUE_0` alone): read every way. */
  | 'any';

/** Git config keys (compared case-folded) whose value runs a command. */
const CONFIG_KEYS: readonly (readonly [RegExp, Kind])[] = [
  [/^core\.(sshcommand|pager|editor|askpass|gitproxy|alternaterefscommand)$/, 'shell'],
  [/^core\.fsmonitor$/, 'switch'],
  [/^sequence\.editor$/, 'shell'],
  [/^credential\.(.+\.)?helper$/, 'helper'],
  [/^diff\.external$/, 'shell'],
  [/^diff\..+\.(textconv|command)$/, 'shell'],
  [/^merge\..+\.driver$/, 'shell'],
  [/^filter\..+\.(clean|smudge|process)$/, 'shell'],
  [/^gpg\.(.+\.)?program$/, 'shell'],
  [/^gpg\.ssh\.defaultkeycommand$/, 'shell'],
  [/^pager\..+$/, 'switch'],
  [/^uploadpack\.packobjectshook$/, 'shell'],
  [/^remote\..+\.(uploadpack|receivepack)$/, 'shell'],
  [/^(difftool|mergetool|man|browser)\..+\.(cmd|path)$/, 'shell'],
  [/^sendemail\.(.+\.)?(sendmailcmd|tocmd|cccmd|headercmd|smtpserver)$/, 'shell'],
  [/^imap\.tunnel$/, 'shell'],
  [/^interactive\.difffilter$/, 'shell'],
  [/^trailer\..+\.(command|cmd)$/, 'shell'],
  [/^tar\..+\.command$/, 'shell'],
  [/^instaweb\.httpd$/, 'shell'],
  [/^submodule\..+\.update$/, 'bang'],
  [/^alias\..+$/, 'alias'],
];

/** Environment variables whose value a program runs as a command (or the shell expands). */
const VARIABLES = new Map<string, Kind>([
  ...[
    'GIT_SSH_COMMAND',
    'GIT_SSH',
    'GIT_PAGER',
    'GIT_EDITOR',
    'GIT_SEQUENCE_EDITOR',
    'GIT_ASKPASS',
    'SSH_ASKPASS',
    'SUDO_ASKPASS',
    'GIT_EXTERNAL_DIFF',
    'GIT_PROXY_COMMAND',
    'PAGER',
    'MANPAGER',
    'EDITOR',
    'VISUAL',
    'BROWSER',
    'PROMPT_COMMAND',
    'RSYNC_RSH',
    'RSYNC_CONNECT_PROG',
    'CVS_RSH',
    'SVN_SSH',
    'SVN_EDITOR',
    'CVSEDITOR',
    'HGEDITOR',
    'FCEDIT',
    'SUDO_EDITOR',
    'SYSTEMD_PAGER',
    'SYSTEMD_EDITOR',
    'GH_PAGER',
    'GH_EDITOR',
    'GH_BROWSER',
    'KUBE_EDITOR',
    'PSQL_PAGER',
    'PSQL_EDITOR',
    'BAT_PAGER',
    'DELTA_PAGER',
    'SHELL',
  ].map((name) => [name, 'shell'] as const),
  ['LESSOPEN', 'less'],
  ['LESSCLOSE', 'less'],
  ...['BASH_ENV', 'ENV', 'PS0', 'PS1', 'PS2', 'PS4'].map((name) => [name, 'expanded'] as const),
]);

const ASSIGNMENT = /^([A-Za-z_]\w*)(\[[^\]]*\])?(\+)?=/s;
/** Builtins that set a variable they are given by name to what they read or print. */
const READERS = new Set(['read', 'mapfile', 'readarray', 'printf', 'getopts']);
/** Programs whose `NAME=value` arguments set variables for what runs next. */
const SETTERS = new Set(['export', 'declare', 'typeset', 'local', 'readonly', 'env', 'sudo', 'doas']);
const CONFIG_VALUE = /^GIT_CONFIG_VALUE_(\d+)$/;
const CONFIG_KEY = /^GIT_CONFIG_KEY_(\d+)$/;
const OPEN_PART = /[$`{*?[]/;
const FALSE_OR_TRUE = /^(true|false|yes|no|on|off|1|0|)$/i;

/** One value found: the command line it runs, or that it is decided only at run time. */
export type CommandValue = { what: string; line: string } | { what: string; open: true };

/** Every variable the command line assigns (`X=…`, `env X=…`, `export X=…`): its value, or open. */
export type Assigned = ReadonlyMap<string, string | { open: true }>;

/** The assignments made anywhere in the segments, the latest winning. */
export function assignmentsIn(segments: readonly CommandSegment[]): Assigned {
  const assigned = new Map<string, string | { open: true }>();
  for (const segment of segments)
    segment.argv.forEach((word, at) => {
      const match = ASSIGNMENT.exec(word);
      if (match === null) return;
      const whole = match[2] === undefined && match[3] === undefined && !segment.facts[at]?.computed;
      assigned.set(match[1]!, whole ? word.slice(match[0].length) : { open: true });
    });
  return assigned;
}

function configKind(key: string): Kind | undefined {
  const folded = key.toLowerCase();
  return CONFIG_KEYS.find(([pattern]) => pattern.test(folded))?.[1];
}

/** The command lines a value of `kind` may run (none for a value that runs nothing). */
function linesOf(kind: Kind, value: string): string[] {
  const text = value.trim();
  if (text === '') return [];
  switch (kind) {
    case 'shell':
      return [text];
    case 'switch':
      return FALSE_OR_TRUE.test(text) ? [] : [text];
    case 'bang':
      return text.startsWith('!') ? [text.slice(1)] : [];
    case 'helper':
      return text.startsWith('!') ? [text.slice(1)] : text.startsWith('/') ? [text] : [`git credential-${text}`];
    case 'alias':
      return text.startsWith('!') ? [text.slice(1)] : [`git ${text}`];
    case 'less':
      return [text.replace(/^\|{0,2}-?/, '')];
    case 'expanded':
      // Only what the shell expands in it runs: `$(…)` and backquotes, kept inside double quotes.
      return /[$`]/.test(text) ? [`: "${text.replace(/["\\]/g, '\\$&')}"`] : [];
    case 'any':
      return text.startsWith('!') ? [text, text.slice(1)] : [text];
  }
}

/** The values found in `key=value` config text (`-c`, `GIT_CONFIG_PARAMETERS`). */
function configValues(what: string, text: string, open: boolean, out: CommandValue[]): void {
  const equals = text.indexOf('=');
  const key = equals < 0 ? text : text.slice(0, equals);
  const keyOpen = open && OPEN_PART.test(key);
  const kind = keyOpen ? 'any' : configKind(key);
  if (kind === undefined) return;
  if (open) {
    out.push({ what: `${what} ${text}`, open: true });
    return;
  }
  for (const line of linesOf(kind, equals < 0 ? '' : text.slice(equals + 1)))
    out.push({ what: `${what} ${key}`, line });
}

/** `'core.pager=less' 'alias.x'='!curl'`: git's own quoting of config on the environment. */
function parametersValues(text: string, out: CommandValue[]): void {
  const quoted = /'((?:[^']|'\\'')*)'(?:='((?:[^']|'\\'')*)')?/g;
  const unquote = (part: string) => part.replace(/'\\''/g, "'");
  for (const match of text.matchAll(quoted)) {
    const key = unquote(match[1] ?? '');
    configValues('GIT_CONFIG_PARAMETERS', match[2] === undefined ? key : `${key}=${unquote(match[2])}`, false, out);
  }
}

/** Whether a variable of this name gives a program a command to run. */
function runsValue(name: string): boolean {
  return VARIABLES.has(name) || CONFIG_VALUE.test(name) || CONFIG_KEY.test(name) || name === 'GIT_CONFIG_PARAMETERS';
}

/** What assigning `value` to the variable `name` hands a program to run. */
function assignmentValues(name: string, value: string, open: boolean, assigned: Assigned, out: CommandValue[]): void {
  const kind = VARIABLES.get(name);
  const index = CONFIG_VALUE.exec(name)?.[1];
  if (kind !== undefined) {
    if (open) out.push({ what: name, open: true });
    else for (const line of linesOf(kind, value)) out.push({ what: name, line });
  } else if (index !== undefined) {
    const key = assigned.get(`GIT_CONFIG_KEY_${index}`);
    // Without its key in the line (it comes from outside), the value may be any key's.
    if (open || (typeof key !== 'string' && key !== undefined)) out.push({ what: name, open: true });
    else if (key === undefined) for (const line of linesOf('any', value)) out.push({ what: name, line });
    else configValues(name, `${key}=${value}`, false, out);
  } else if (name === 'GIT_CONFIG_PARAMETERS') {
    if (open) out.push({ what: name, open: true });
    else parametersValues(value, out);
  } else if (CONFIG_KEY.test(name)) {
    // A key whose value is set elsewhere in the line is read there; one from outside is open.
    const valueName = `GIT_CONFIG_VALUE_${CONFIG_KEY.exec(name)?.[1]}`;
    if (open || (!assigned.has(valueName) && configKind(value) !== undefined)) out.push({ what: name, open: true });
  }
}

/**
 * Every value in the segment's words that a program runs as a command line: variables assigned
 * (wherever a word assigns one: before the program, after `env`, `export`, `sudo`…), and, after
 * a word naming git, `-c key=value`, `--config-env key=ENV` and `git config key value`.
 * `assigned` gives the values of the whole command line (for `--config-env` and the
 * `GIT_CONFIG_KEY_n` a `GIT_CONFIG_VALUE_n` pairs with). Linear in the words.
 */
export function commandValues(
  segment: CommandSegment,
  assigned: Assigned,
  nameOf: (word: string) => string,
): CommandValue[] {
  const out: CommandValue[] = [];
  const { argv, facts } = segment;
  let git = false;
  let gitConfig = false;
  // Where a word sets a variable: before the program (`X=… git`, `env X=… git`, `X=…` alone),
  // after `export` and its kin, or anywhere a launcher may start a command (`ssh h X=… git`);
  // elsewhere it is text (`git commit -m "EDITOR=curl"`).
  const program = segment.programIndex < 0 ? '' : nameOf(argv[segment.programIndex] ?? '');
  const setsFrom = SETTERS.has(program)
    ? segment.programIndex
    : (commandStart(program, argv, segment.programIndex) ?? Number.POSITIVE_INFINITY);
  let setting = true;
  for (let at = 0; at < argv.length; at += 1) {
    const word = argv[at] ?? '';
    const open = Boolean(facts[at]?.computed);
    const assignment = ASSIGNMENT.exec(word);
    // After assignments that set (`time A=1 B=2 git`), before the program, or where it sets.
    const sets: boolean = setting || at <= segment.programIndex || segment.programIndex < 0 || at >= setsFrom;
    setting = assignment !== null && sets;
    if (assignment !== null && sets) {
      const [all, name = '', subscript, plus] = assignment;
      const value = word.slice(all.length);
      // `X+=…` and `X[0]=…` make the value of what is already there: known only when it runs.
      if ((subscript !== undefined || plus !== undefined) && runsValue(name)) out.push({ what: name, open: true });
      else assignmentValues(name, value, open, assigned, out);
      // `declare -n ref=GIT_PAGER`: assigning `ref` later sets GIT_PAGER.
      if (SETTERS.has(program) && runsValue(value)) out.push({ what: `${name}=${value}`, open: true });
      continue;
    }
    // `read GIT_PAGER`, `printf -v GIT_PAGER …`: a value known only when it runs.
    const named = program !== 'printf' || argv[at - 1] === '-v';
    if (at > segment.programIndex && READERS.has(program) && named && runsValue(word)) {
      out.push({ what: `${program} ${word}`, open: true });
      continue;
    }
    // Git's options after any word naming git: behind wrappers and launchers (`strace git -c …`).
    if (nameOf(word) === 'git') {
      git = true;
      gitConfig = false;
      continue;
    }
    if (!git) continue;
    const next = argv[at + 1];
    const nextOpen = Boolean(facts[at + 1]?.computed || facts[at + 1]?.glob);
    if (word === '-c' && next !== undefined) {
      configValues('git -c', next, nextOpen, out);
      at += 1;
    } else if (word === '--config-env' || word.startsWith('--config-env=')) {
      const text = word === '--config-env' ? (next ?? '') : word.slice('--config-env='.length);
      if (word === '--config-env') at += 1;
      const equals = text.lastIndexOf('=');
      const key = equals < 0 ? text : text.slice(0, equals);
      const kind = configKind(key);
      if (kind === undefined && !OPEN_PART.test(key)) continue;
      const from = assigned.get(text.slice(equals + 1));
      if (typeof from !== 'string' || kind === undefined) out.push({ what: `git --config-env ${text}`, open: true });
      else for (const line of linesOf(kind, from)) out.push({ what: `git --config-env ${key}`, line });
    } else if (word === 'config') gitConfig = true;
    else if (gitConfig && next !== undefined && !word.startsWith('-') && configKind(word) !== undefined) {
      configValues('git config', `${word}=${next}`, nextOpen, out);
      at += 1;
    }
  }
  return out;
}
