/**
 * What known programs can do beyond what their words say, per simple command (SPEC 4.3): the
 * options and variables that make an allowed program run or write something else, whether it
 * reaches the network, writes the git repository, only reads, or searches folders recursively.
 * Options are matched as the programs read them: GNU long options by any unambiguous prefix
 * (`--in` is `--in-place`), short options anywhere in a cluster (`-so` holds `-o`).
 */
import type { CommandSegment } from './shell-command';
import { sedInvocationRisk } from './sed-script';
import { basename } from './shell-wrappers';
import { GIT_VALUED_OPTIONS } from './git-commands';

/** Whether `args` hold one of the options: short letters, or long names (prefixes count). */
export function hasOption(args: readonly string[], short: string, long: readonly string[] = []): string | undefined {
  for (const arg of args) {
    if (arg === '--') return undefined;
    if (arg.startsWith('--')) {
      const name = arg.slice(2).split('=')[0]!;
      if (name.length >= 1 && long.some((option) => option.startsWith(name))) return arg;
    } else if (/^-[A-Za-z0-9]/.test(arg) && short && [...arg.slice(1)].some((letter) => short.includes(letter)))
      return arg;
  }
  return undefined;
}

/**
 * Variables that make a program load or run something else, or read its settings elsewhere.
 * Assigned before a command (`NODE_OPTIONS=--require=x npm test`), they ask.
 */
const RISKY_VARIABLE =
  /^(GIT_\w*|NODE_OPTIONS|NODE_PATH|LD_\w+|DYLD_\w+|BASH_ENV|ENV|PROMPT_COMMAND|SHELLOPTS|BASHOPTS|IFS|PATH|HOME|CDPATH|PYTHON(STARTUP|PATH|HOME|INSPECT|USERBASE)|PERL5?(OPT|LIB)|RUBY(OPT|LIB)|npm_config_\w+|NPM_CONFIG_\w+|YARN_\w+|PNPM_\w+|PAGER|MANPAGER|EDITOR|VISUAL|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|CARGO_\w+|RUSTC_WRAPPER|RUSTC|GOFLAGS|CC|CXX|MAKEFLAGS|XDG_CONFIG_HOME|SSH_\w+|TMPDIR)$/i;

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
/** Git's options before the subcommand that take the next word as their value (read as such here, `--exec-path` too). */
const GIT_GLOBAL_VALUED = new Set([...GIT_VALUED_OPTIONS, '--exec-path', '--list-cmds']);
const GIT_RISKY_OPTIONS = [
  'output',
  'ext-diff',
  'upload-pack',
  'receive-pack',
  'exec',
  'open-files-in-pager',
  'config',
  'template',
  'config-env',
  'exec-path',
  'run',
  'textconv',
  'tool',
  'extcmd',
  'git-dir',
  'work-tree',
  'set-upstream-to',
];
/** Git subcommands that write the repository (.git): confined commands cannot. */
const GIT_WRITES = new Set([
  'add',
  'commit',
  'checkout',
  'switch',
  'restore',
  'reset',
  'merge',
  'rebase',
  'cherry-pick',
  'revert',
  'stash',
  'tag',
  'branch',
  'fetch',
  'pull',
  'push',
  'clone',
  'init',
  'gc',
  'prune',
  'am',
  'apply',
  'mv',
  'rm',
  'notes',
  'worktree',
  'update-index',
  'update-ref',
  'remote',
  'config',
  'submodule',
  'sparse-checkout',
  'maintenance',
  'pack-refs',
  'repack',
  'replace',
  'clean',
]);
/** Package-manager options that change nothing about what runs. */
const PACKAGE_MANAGER_SAFE = new Set([
  '-s',
  '--silent',
  '-q',
  '--quiet',
  '-d',
  '-dd',
  '-ddd',
  '--verbose',
  '--loglevel',
  '--color',
  '--no-color',
  '--json',
  '--parseable',
  '--if-present',
  '--long',
  '--no-progress',
  '--progress',
]);

/** Programs that only read the files they name: none of their options writes or runs anything. */
const READERS = new Set([
  'cat',
  'head',
  'tail',
  'wc',
  'ls',
  'stat',
  'grep',
  'egrep',
  'fgrep',
  'diff',
  'cmp',
  'du',
  'realpath',
  'readlink',
  'dirname',
  'basename',
  'nl',
  'echo',
  'printf',
  'test',
  '[',
  // Their options that write or run something are in segmentDangers.
  'find',
  'rg',
]);
/** Git subcommands that only read (their `--output` and such are in segmentDangers). */
const GIT_READS = new Set([
  'status',
  'diff',
  'log',
  'show',
  'blame',
  'grep',
  'ls-files',
  'ls-tree',
  'rev-parse',
  'describe',
  'shortlog',
  'cat-file',
  'whatchanged',
]);

/** The subcommand of a git command line: the first word that is no global option or its value. */
export function gitSubcommand(args: readonly string[]): { sub: string | undefined; at: number } {
  for (let at = 0; at < args.length; at++) {
    const arg = args[at]!;
    if (GIT_GLOBAL_VALUED.has(arg)) at++;
    else if (!arg.startsWith('-')) return { sub: arg, at };
  }
  return { sub: undefined, at: args.length };
}

/** Options and variables known to make an allowed program run or write something else. */
export function segmentDangers(segment: CommandSegment, confined: boolean): string[] {
  const reasons: string[] = [];
  const before = segment.programIndex < 0 ? segment.argv : segment.argv.slice(0, segment.programIndex);
  for (const word of before) {
    const name = /^([A-Za-z_]\w*)\+?=/.exec(word)?.[1];
    if (name && RISKY_VARIABLE.test(name))
      reasons.push(`it sets \`${name}\`, which changes what the program loads or runs`);
  }
  const wrappers = before.map(basename);
  if (wrappers.includes('xargs')) reasons.push('`xargs` runs a command built from its input');
  if (wrappers.includes('time') && hasOption(before, 'oa', ['output', 'append']))
    reasons.push('`time -o` writes a file');
  if (wrappers.includes('sudo') || wrappers.includes('doas')) reasons.push('it runs as another user');
  const program = basename(segment.program);
  const args = segment.args;
  const risky = (option: string | undefined, what: string) => {
    if (option) reasons.push(`\`${option.split('=')[0]}\` ${what}`);
  };
  if (!confined && SHELL_STATE.has(program))
    reasons.push(`\`${program}\` changes the shell's state, which decides how the rest of the command runs`);
  if (!confined && program === 'printf' && hasOption(args, 'v')) reasons.push('`printf -v` sets a variable');
  switch (program) {
    case 'git': {
      const { sub, at } = gitSubcommand(args);
      const global = args.slice(0, at);
      if (global.some((arg) => arg === '-c' || /^-c./.test(arg) || arg.startsWith('--config-env')))
        reasons.push('`git -c` sets configuration that can run commands');
      if (sub !== undefined && GIT_RUNS.has(sub)) reasons.push(`\`git ${sub}\` can run other commands`);
      if (sub === 'config' && !gitConfigOnlyReads(args.slice(at + 1)))
        reasons.push('`git config` changes settings that can run commands');
      if (sub === 'remote' && ['add', 'set-url', 'rename'].includes(args[at + 1] ?? ''))
        reasons.push('`git remote` changes the repository configuration');
      if (sub === 'branch' && hasOption(args.slice(at + 1), 'u', ['set-upstream-to']))
        reasons.push('`git branch -u` changes the repository configuration');
      risky(hasOption(args, '', GIT_RISKY_OPTIONS), 'runs, writes or reads something else');
      if (['clone', 'fetch', 'pull', 'ls-remote', 'archive'].includes(sub ?? '') && args.includes('-u'))
        reasons.push('`-u` names a program for git to run');
      if (
        !confined &&
        ['apply', 'am'].includes(sub ?? '') &&
        !hasOption(args, '', ['check', 'stat', 'numstat', 'summary'])
      )
        reasons.push(`\`git ${sub}\` writes the files named inside its input`);
      if (!confined && sub !== undefined && GIT_WORKTREE_WRITES.has(sub))
        reasons.push(`\`git ${sub}\` rewrites workspace files (protected ones too) from the repository`);
      if (sub === 'clean') reasons.push('`git clean` deletes files git does not track, `.env` files among them');
      if (args.some((arg) => /^:(\(|!|\^)/.test(arg)))
        reasons.push('a git pathspec with magic chooses files git expands itself');
      if (sub === 'diff' && args.includes('--no-index'))
        reasons.push('`git diff --no-index` reads any files and folders');
      break;
    }
    case 'find':
      risky(
        args.find((arg) => FIND_ACTIONS.has(arg)),
        'runs or changes something for every file found',
      );
      break;
    case 'sed':
    case 'gsed':
      reasons.push(...sedInvocationRisk(args, confined));
      break;
    case 'awk':
    case 'gawk':
    case 'mawk':
    case 'nawk':
      if (hasOption(args, 'f', ['file', 'exec', 'include', 'load'])) reasons.push('the awk program comes from a file');
      else if (args.some((arg) => /system|getline|[|>]|close\s*\(/.test(arg)))
        reasons.push('the awk program may run commands or write files');
      break;
    case 'tar':
    case 'bsdtar':
      risky(
        hasOption(args, 'IF', [
          'to-command',
          'checkpoint-action',
          'use-compress-program',
          'info-script',
          'new-volume-script',
          'rsh-command',
        ]),
        'makes tar run another program',
      );
      if (!confined && (hasOption(args, 'x', ['extract', 'get']) || /^[^-]*x/.test(args[0] ?? '')))
        reasons.push('`tar -x` writes the files named inside the archive');
      break;
    case 'unzip':
    case 'cpio':
    case 'patch':
      if (!confined) reasons.push(`\`${program}\` writes the files named inside its input`);
      break;
    case 'ln':
      // A link's target is read from the link's own folder: one pointing up or away asks.
      if (
        hasOption(args, 's', ['symbolic']) &&
        args.some((arg) => !arg.startsWith('-') && /(^|\/)\.\.(\/|$)|^[/~]/.test(arg))
      )
        reasons.push('the link points out of its folder');
      break;
    case 'curl':
      risky(hasOption(args, 'K', ['config']), 'makes curl read options from a file');
      break;
    case 'wget':
      risky(
        hasOption(args, 'ei', ['execute', 'input-file', 'config']),
        'makes wget run settings or read a list from a file',
      );
      break;
    case 'pushd':
    case 'popd':
      if (args.some((arg) => /^[-+]/.test(arg)))
        reasons.push(`\`${program} ${args.join(' ')}\` moves to a folder decided at run time`);
      break;
    case 'rsync':
      risky(hasOption(args, 'e', ['rsh', 'rsync-path']), 'makes rsync run another program');
      break;
    case 'zip':
      risky(
        args.find((arg) => arg === '-TT' || arg.startsWith('-TT')) ?? hasOption(args, '', ['unzip-command']),
        'makes zip run another program',
      );
      break;
    case 'rg':
      risky(hasOption(args, '', ['pre', 'pre-glob']), 'makes ripgrep run a program on every file');
      break;
    case 'sort':
      risky(hasOption(args, 'o', ['output']), 'makes sort write a file');
      break;
    case 'npm':
    case 'pnpm':
    case 'yarn':
    case 'bun':
    case 'npx': {
      // Package managers read any other option as configuration (`--script-shell`, and
      // `--script_shell`, `--scriptShell`…): only options known to be harmless keep an allow.
      const end = args.indexOf('--');
      const options = (end < 0 ? args : args.slice(0, end)).filter((arg) => arg.startsWith('-'));
      risky(
        options.find((arg) => !PACKAGE_MANAGER_SAFE.has(arg.split('=')[0]!)),
        `is read by ${program} as configuration (it can change what runs)`,
      );
      const sub = args.find((arg) => !arg.startsWith('-'));
      if (sub === 'pkg' || sub === 'set-script' || (sub === 'config' && args.includes('set')))
        reasons.push(`\`${program} ${sub}\` changes what later commands run`);
      break;
    }
    default:
  }
  return reasons;
}

function gitConfigOnlyReads(args: readonly string[]): boolean {
  const reads = ['--get', '--get-all', '--get-regexp', '--get-urlmatch', '--list', '-l'];
  const op = args.find((arg) => reads.includes(arg));
  if (!op) return false;
  const modifiers = ['--global', '--local', '--system', '--show-origin', '--show-scope', '--name-only', '-z', '--null'];
  const positional = args.filter((arg) => arg !== op && !modifiers.includes(arg));
  if (positional.some((arg) => arg.startsWith('-'))) return false;
  return op === '--list' || op === '-l' ? positional.length === 0 : positional.length <= 2;
}

/**
 * Programs that, given a folder, use only the names in it, never the contents: a folder holding
 * secret files may be named to them. Any other program (`tar`, `zip`, `diff -r`, `cp -r`…)
 * given such a folder asks.
 */
const NAMES_ONLY = new Set([
  'ls',
  'du',
  'stat',
  'tree',
  'find',
  'cd',
  'pushd',
  'test',
  '[',
  'realpath',
  'readlink',
  'dirname',
  'basename',
  'mkdir',
  'touch',
]);

export function usesNamesOnly(segment: CommandSegment): boolean {
  return NAMES_ONLY.has(basename(segment.program));
}

/** Builtins that change how the rest of the command runs (`CDPATH`, aliases, traps…). */
const SHELL_STATE = new Set([
  'export',
  'declare',
  'typeset',
  'local',
  'readonly',
  'set',
  'shopt',
  'alias',
  'enable',
  'hash',
  'trap',
  'source',
  '.',
  'read',
  'mapfile',
  'readarray',
  'unset',
]);

/** Git subcommands that rewrite workspace files from the repository (protected ones too). */
const GIT_WORKTREE_WRITES = new Set([
  'checkout',
  'restore',
  'read-tree',
  'reset',
  'stash',
  'merge',
  'pull',
  'rebase',
  'cherry-pick',
  'revert',
  'switch',
  'mv',
  'rm',
  'checkout-index',
]);

/** Whether the program only reads the files it names (no wrapper before it). */
export function readsOnly(segment: CommandSegment): boolean {
  if (segment.programIndex !== 0) return false;
  const program = basename(segment.program);
  if (program === 'git') return GIT_READS.has(gitSubcommand(segment.args).sub ?? '');
  return READERS.has(program);
}

/** Whether it searches the folders it names recursively (or the current one, naming none). */
export function searchesRecursively(segment: CommandSegment): boolean {
  const program = basename(segment.program);
  if (['rg', 'ag', 'ack'].includes(program)) return true;
  if (['grep', 'egrep', 'fgrep'].includes(program))
    return Boolean(hasOption(segment.args, 'rRd', ['recursive', 'dereference-recursive', 'directories']));
  return program === 'git' && gitSubcommand(segment.args).sub === 'grep';
}

/** A git command that writes the repository, in words; undefined if it does not. */
export function gitWrite(segment: CommandSegment): string | undefined {
  if (basename(segment.program) !== 'git') return undefined;
  const { sub } = gitSubcommand(segment.args);
  return sub !== undefined && GIT_WRITES.has(sub) ? `\`git ${sub}\` writes the repository (.git)` : undefined;
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
export function networkUse(segment: CommandSegment): string | undefined {
  const program = basename(segment.program);
  if (NETWORK_PROGRAMS.has(program)) return `\`${program}\` reaches the network`;
  const subcommands = Object.hasOwn(NETWORK_SUBCOMMANDS, program) ? NETWORK_SUBCOMMANDS[program] : undefined;
  const sub = program === 'git' ? gitSubcommand(segment.args).sub : segment.args.find((arg) => !arg.startsWith('-'));
  if (subcommands && sub !== undefined && subcommands.includes(sub)) return `\`${program} ${sub}\` reaches the network`;
  if (program === 'yarn' && sub === undefined) return '`yarn` installs packages from the network';
  return undefined;
}
