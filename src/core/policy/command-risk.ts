/**
 * What a shell command can reach beyond what its words say (SPEC 4.1, 4.3), read from the
 * analysis of shell-command.ts. Three kinds of finding:
 * - reasons: it must be asked about whatever an allow rule, auto-approve or "Always" says — a
 *   path decided at run time (glob, variable, `~`, substitution), a path outside the workspace
 *   or protected or secret (links followed), an option or variable known to run or write
 *   something else (`git -c`, `--output`, `find -exec`, `NODE_OPTIONS`…), a package script
 *   after the manifest changed in this conversation;
 * - cautions: shown as a warning, not a routine question (text piped into a shell, the network);
 * - needs out: what a confined run would lack (the network).
 */
import * as path from 'node:path';
import type { CommandAnalysis, CommandSegment, WordFacts } from './shell-command';
import { isProtectedPath, isSecretPath } from './protected-paths';
import { isInside, PathError, resolveWorkspacePath, type RealPathPort } from '../workspace/workspace-path';

export interface CommandFindings {
  reasons: string[];
  cautions: string[];
  needsOut: string[];
  /** A protected path is named: the question is modal. */
  protectedPath: boolean;
}

export interface CommandRiskContext {
  root: string;
  files: RealPathPort;
  /** Manifests (package.json, Makefile) changed since the conversation began: their scripts ask. */
  changedManifests: () => Promise<readonly string[]>;
}

const HARMLESS_DEVICES = new Set(['/dev/null', '/dev/stdout', '/dev/stderr', '/dev/stdin', '/dev/tty', '-']);
/** Words checked as paths in one command at most; beyond it the command asks. */
const MAX_PATH_WORDS = 256;
const INTERPRETERS = new Set([
  'sh',
  'bash',
  'zsh',
  'dash',
  'ksh',
  'fish',
  'python',
  'python3',
  'node',
  'perl',
  'ruby',
  'php',
]);

/**
 * Variables that make a program load or run something else, or read its settings elsewhere.
 * Assigned before a command (`NODE_OPTIONS=--require=x npm test`), they ask.
 */
const RISKY_VARIABLE =
  /^(GIT_\w*|NODE_OPTIONS|NODE_PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|IFS|PATH|HOME|CDPATH|PYTHON(STARTUP|PATH|HOME|INSPECT|USERBASE)|PERL5?(OPT|LIB)|RUBY(OPT|LIB)|npm_config_\w+|NPM_CONFIG_\w+|YARN_\w+|PNPM_\w+|PAGER|MANPAGER|EDITOR|VISUAL|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|CARGO_\w+|RUSTC_WRAPPER|RUSTC|GOFLAGS|CC|CXX|MAKEFLAGS|XDG_CONFIG_HOME|SSH_\w+|TMPDIR)$/i;

export async function assessCommand(analysis: CommandAnalysis, context: CommandRiskContext): Promise<CommandFindings> {
  const findings: CommandFindings = { reasons: [], cautions: [], needsOut: [], protectedPath: false };
  const add = (list: string[], text: string) => {
    if (!list.includes(text)) list.push(text);
  };
  const candidates: Array<{ word: string; facts: WordFacts; reads: boolean }> = [];
  analysis.segments.forEach((segment, index) => {
    for (const reason of segmentDangers(segment)) add(findings.reasons, reason);
    const program = basename(segment.program);
    if (index > 0 && analysis.operators[index - 1]?.startsWith('|') && INTERPRETERS.has(program))
      add(findings.cautions, `pipes text into \`${program}\`, which runs it`);
    const network = networkUse(segment);
    if (network) {
      add(findings.cautions, network);
      add(findings.needsOut, network);
    }
    const reads = readsOnly(segment);
    segment.argv.forEach((word, at) => {
      if (at === segment.programIndex) return;
      const facts = segment.facts[at] ?? { computed: false, glob: false, tilde: false };
      for (const part of pathParts(word)) candidates.push({ word: part, facts, reads });
    });
  });
  for (const redirection of analysis.redirections) {
    if (/&$/.test(redirection.op) && /^(\d+|-)$/.test(redirection.target)) continue; // 2>&1
    candidates.push({ word: redirection.target, facts: redirection.facts, reads: redirection.op === '<' });
  }
  if (candidates.length > MAX_PATH_WORDS) {
    add(findings.reasons, `it has too many words to check (${candidates.length})`);
    return findings;
  }
  for (const { word, facts, reads } of candidates) await checkPathWord(word, facts, reads, context, findings, add);
  const manifests = await context.changedManifests();
  for (const segment of analysis.segments) {
    const manifest = manifestRun(segment, manifests);
    if (manifest) add(findings.reasons, `it runs scripts from ${manifest}, which changed in this conversation`);
  }
  return findings;
}

async function checkPathWord(
  word: string,
  facts: WordFacts,
  reads: boolean,
  context: CommandRiskContext,
  findings: CommandFindings,
  add: (list: string[], text: string) => void,
): Promise<void> {
  if (word === '' || HARMLESS_DEVICES.has(word) || /^[a-z][a-z0-9+.-]*:\/\//i.test(word)) return;
  if (facts.computed || facts.glob || facts.tilde || word.startsWith('~')) {
    add(findings.reasons, `\`${word}\` is a path decided only when it runs (a glob, variable, \`~\` or substitution)`);
    return;
  }
  // Words with spaces and no slash are text (a commit message), unless such a file exists.
  const absolute = path.resolve(context.root, word);
  if (!isInside(context.root, absolute)) {
    add(findings.reasons, `\`${word}\` is outside the workspace`);
    return;
  }
  const lexical = path.relative(context.root, absolute);
  let real: string;
  try {
    const resolved = await resolveWorkspacePath(context.root, lexical || '.', context.files);
    const realRoot = (await context.files.realpath(context.root)) ?? context.root;
    real = path.relative(realRoot, resolved);
  } catch (error) {
    if (!(error instanceof PathError)) throw error;
    // A link out of the workspace, a backslash, a percent-encoded character: not checkable.
    add(findings.reasons, `\`${word}\` cannot be checked: ${error.message}`);
    return;
  }
  if (/\s/.test(word) && !word.includes('/') && (await context.files.realpath(absolute)) === undefined) return;
  for (const relative of new Set([lexical, real])) {
    // A program that only reads may name a protected file (`cat package.json`); not a secret.
    if (relative !== '' && !reads && isProtectedPath(relative)) {
      findings.protectedPath = true;
      add(
        findings.reasons,
        `\`${word}\` is a protected path${relative !== lexical ? ` (it leads to ${relative})` : ''}`,
      );
    } else if (relative !== '' && isSecretPath(relative)) {
      add(findings.reasons, `\`${word}\` holds secrets${relative !== lexical ? ` (it leads to ${relative})` : ''}`);
    }
  }
}

/**
 * Programs that only read the files they name (their risky options are in segmentDangers), so
 * naming a protected file does not make them ask. Writes to a file by redirection still do.
 */
const READERS = new Set([
  'cat',
  'head',
  'tail',
  'less',
  'more',
  'grep',
  'egrep',
  'fgrep',
  'rg',
  'wc',
  'diff',
  'cmp',
  'ls',
  'stat',
  'file',
  'find',
  'tree',
  'du',
  'jq',
  'nl',
  'echo',
  'printf',
  'realpath',
  'readlink',
  'dirname',
  'basename',
  'test',
  '[',
  'awk',
  'gawk',
  'sed',
  'sort',
]);

function readsOnly(segment: CommandSegment): boolean {
  const program = basename(segment.program);
  if (!READERS.has(program) || segment.programIndex !== 0) return false;
  const inPlace = segment.args.some(
    (arg) =>
      /^(-i|--in-place|-[a-zA-Z]*i|-o|--output)/.test(arg) &&
      program !== 'grep' &&
      program !== 'rg' &&
      program !== 'ls' &&
      program !== 'diff',
  );
  return !inPlace;
}

/**
 * The parts of a word that may be paths: the word, the value after `=` (`--output=x`), and a
 * path glued to a short option (`-o/etc/x`, `-I../inc`).
 */
export function pathParts(word: string): string[] {
  if (!word.startsWith('-')) {
    const equals = word.indexOf('=');
    return equals > 0 ? [word, word.slice(equals + 1)] : [word];
  }
  const equals = word.indexOf('=');
  if (equals >= 0) return [word.slice(equals + 1)];
  const glued = /^-[A-Za-z0-9]+?([./~].*)$/.exec(word)?.[1];
  return glued !== undefined && (glued.includes('/') || glued.startsWith('~') || glued === '..') ? [glued] : [];
}

const FIND_ACTIONS = new Set([
  '-exec',
  '-execdir',
  '-ok',
  '-okdir',
  '-delete',
  '-fprint',
  '-fprint0',
  '-fprintf',
  '-fls',
]);
const GIT_RUNS = new Set([
  'difftool',
  'mergetool',
  'filter-branch',
  'filter-repo',
  'bisect',
  'submodule',
  'daemon',
  'instaweb',
  'send-email',
  'hook',
  'credential',
  'p4',
  'svn',
  'cvsimport',
  'archimport',
  'quiltimport',
]);
const GIT_OPTIONS =
  /^(--output|--ext-diff|--upload-pack|--receive-pack|--exec|-x|--open-files-in-pager|-O|--config|--template|--config-env|--exec-path|--run|--textconv|--tool|--extcmd)(=|$)/;
const TAR_OPTIONS =
  /^(--to-command|--checkpoint-action|--use-compress-program|--info-script|--new-volume-script|--rsh-command|-I|-F)(=|$)/;
const PACKAGE_SETTINGS = /^--(script-shell|node-options|userconfig|globalconfig|prefix|ignore-scripts=false)(=|$)/;

/** Options and variables known to make an allowed program run or write something else. */
function segmentDangers(segment: CommandSegment): string[] {
  const reasons: string[] = [];
  const before = segment.programIndex < 0 ? segment.argv : segment.argv.slice(0, segment.programIndex);
  for (const word of before) {
    const name = /^([A-Za-z_]\w*)\+?=/.exec(word)?.[1];
    if (name && RISKY_VARIABLE.test(name))
      reasons.push(`it sets \`${name}\`, which changes what the program loads or runs`);
  }
  const wrappers = before.map(basename);
  if (wrappers.includes('xargs')) reasons.push('`xargs` runs a command built from its input');
  if (wrappers.includes('time') && before.some((word) => /^(-[a-z]*o|--output|-a|--append)/.test(word)))
    reasons.push('`time -o` writes a file');
  if (wrappers.includes('sudo') || wrappers.includes('doas')) reasons.push('it runs as another user');
  const program = basename(segment.program);
  const args = segment.args;
  switch (program) {
    case 'git': {
      const sub = args.find((arg) => !arg.startsWith('-'));
      const global = args.slice(0, sub === undefined ? args.length : args.indexOf(sub));
      if (global.some((arg) => arg === '-c' || arg.startsWith('-c') || arg.startsWith('--config-env')))
        reasons.push('`git -c` sets configuration that can run commands');
      if (sub !== undefined && GIT_RUNS.has(sub)) reasons.push(`\`git ${sub}\` can run other commands`);
      if (sub === 'config' && !args.some((arg) => /^(--get|--list|-l$|--show)/.test(arg)))
        reasons.push('`git config` changes settings that can run commands');
      const option = args.find((arg) => GIT_OPTIONS.test(arg));
      if (option) reasons.push(`git's \`${option.split('=')[0]}\` runs or writes something else`);
      if (['clone', 'fetch', 'pull', 'ls-remote', 'archive'].includes(sub ?? '') && args.includes('-u'))
        reasons.push('`-u` names a program for git to run');
      break;
    }
    case 'find': {
      const action = args.find((arg) => FIND_ACTIONS.has(arg));
      if (action) reasons.push(`\`find ${action}\` runs or changes something for every file found`);
      break;
    }
    case 'sed':
    case 'gsed':
      if (
        args.some(
          (arg, at) =>
            !arg.startsWith('-') &&
            at === firstOperand(args) &&
            /((^|[;{}\n])\s*[0-9$,~+!]*\s*|\/[gpIiMm0-9]*)[ewW]\b/.test(arg),
        )
      )
        reasons.push('the sed script runs a command or writes a file (`e`, `w`)');
      break;
    case 'awk':
    case 'gawk':
    case 'mawk':
    case 'nawk':
      if (args.some((arg) => /system\s*\(|\|\s*"|[|>]\s*"|getline/.test(arg)))
        reasons.push('the awk program runs commands or writes files');
      break;
    case 'tar':
    case 'bsdtar':
      if (args.some((arg) => TAR_OPTIONS.test(arg))) reasons.push('this tar option runs another program');
      break;
    case 'rsync':
      if (args.some((arg) => /^(-e|--rsh|--rsync-path)(=|$)/.test(arg) || /^-[a-zA-Z]*e/.test(arg)))
        reasons.push('`rsync -e` runs another program');
      break;
    case 'zip':
      if (args.some((arg) => /^(-TT|--unzip-command)/.test(arg))) reasons.push('`zip -TT` runs another program');
      break;
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'bun': {
      const option = args.find((arg) => PACKAGE_SETTINGS.test(arg));
      if (option) reasons.push(`\`${option.split('=')[0]}\` changes how ${program} runs scripts`);
      const sub = args.find((arg) => !arg.startsWith('-'));
      if (sub === 'pkg' || sub === 'set-script' || (sub === 'config' && args.includes('set')))
        reasons.push(`\`${program} ${sub}\` changes what later commands run`);
      break;
    }
    default:
  }
  return reasons;
}

function firstOperand(args: readonly string[]): number {
  for (let at = 0; at < args.length; at += 1) {
    const arg = args[at] ?? '';
    if (arg === '-e' || arg === '-f' || arg === '--expression') return at + 1;
    if (!arg.startsWith('-')) return at;
  }
  return -1;
}

const NETWORK_PROGRAMS = new Set([
  'curl',
  'wget',
  'ssh',
  'scp',
  'sftp',
  'nc',
  'ncat',
  'netcat',
  'telnet',
  'ftp',
  'npx',
  'pnpx',
  'bunx',
  'apt',
  'apt-get',
  'brew',
  'socat',
  'http',
  'aria2c',
]);
const NETWORK_SUBCOMMANDS: Record<string, readonly string[]> = {
  git: ['clone', 'fetch', 'pull', 'push', 'ls-remote', 'remote', 'submodule'],
  npm: [
    'install',
    'i',
    'ci',
    'add',
    'update',
    'up',
    'upgrade',
    'publish',
    'view',
    'info',
    'outdated',
    'audit',
    'exec',
    'x',
    'init',
    'create',
    'dlx',
  ],
  pnpm: ['install', 'i', 'add', 'update', 'up', 'publish', 'dlx', 'outdated', 'audit', 'create'],
  yarn: ['install', 'add', 'upgrade', 'up', 'publish', 'dlx', 'create', 'outdated', 'audit'],
  bun: ['install', 'i', 'add', 'update', 'x', 'create', 'publish'],
  pip: ['install', 'download'],
  pip3: ['install', 'download'],
  cargo: ['install', 'fetch', 'update', 'publish', 'search'],
  go: ['get', 'install', 'mod'],
  docker: ['pull', 'push', 'build', 'run', 'login'],
  gem: ['install', 'fetch', 'update'],
  composer: ['install', 'require', 'update'],
};

/** The network use of one segment, in words, or undefined. */
function networkUse(segment: CommandSegment): string | undefined {
  const program = basename(segment.program);
  if (NETWORK_PROGRAMS.has(program)) return `\`${program}\` reaches the network`;
  const subcommands = Object.hasOwn(NETWORK_SUBCOMMANDS, program) ? NETWORK_SUBCOMMANDS[program] : undefined;
  const sub = segment.args.find((arg) => !arg.startsWith('-'));
  if (subcommands && sub !== undefined && subcommands.includes(sub)) return `\`${program} ${sub}\` reaches the network`;
  if (program === 'yarn' && sub === undefined) return '`yarn` installs packages from the network';
  return undefined;
}

const MANIFEST_RUNNERS: Record<string, string> = {
  npm: 'package.json',
  pnpm: 'package.json',
  yarn: 'package.json',
  bun: 'package.json',
  make: 'Makefile',
  gmake: 'Makefile',
};

/** The changed manifest whose scripts this segment runs, if any. */
function manifestRun(segment: CommandSegment, changed: readonly string[]): string | undefined {
  const program = basename(segment.program);
  const manifest = Object.hasOwn(MANIFEST_RUNNERS, program) ? MANIFEST_RUNNERS[program] : undefined;
  if (manifest === undefined) return undefined;
  return changed.find((file) => path.basename(file).toLowerCase() === manifest.toLowerCase());
}

function basename(word: string): string {
  return word.slice(word.lastIndexOf('/') + 1);
}
