/**
 * What `git <word>` runs, as far as the command line tells (SPEC 4.3): a deny or approver rule
 * naming a git subcommand (`git push*`) must not be passed by a name git resolves to something
 * else. Git runs its own commands first, and an alias cannot take an own command's name; any
 * other word is an external `git-<word>` (the exec path, then PATH) or an alias (`git -c
 * alias.p=push p`, or one in a config file the agent wrote, `~/.gitconfig`, `.git/config`): what
 * it runs is known only when it runs. Checked against git 2.39 (`git help -a`,
 * `git --list-cmds=builtins`); a newer git's new command is read as an unknown one (the safe side).
 */

/** Commands built into the git program: neither an alias nor a file can take their names. */
const BUILTIN = new Set(
  (
    'add am annotate apply archive bisect--helper blame branch bugreport bundle cat-file check-attr ' +
    'check-ignore check-mailmap check-ref-format checkout checkout--worker checkout-index cherry ' +
    'cherry-pick clean clone column commit commit-graph commit-tree config count-objects credential ' +
    'credential-cache credential-cache--daemon credential-store describe diagnose diff diff-files ' +
    'diff-index diff-tree difftool env--helper fast-export fast-import fetch fetch-pack fmt-merge-msg ' +
    'for-each-ref for-each-repo format-patch fsck fsck-objects fsmonitor--daemon gc get-tar-commit-id ' +
    'grep hash-object help hook index-pack init init-db interpret-trailers log ls-files ls-remote ls-tree ' +
    'mailinfo mailsplit maintenance merge merge-base merge-file merge-index merge-ours merge-recursive ' +
    'merge-recursive-ours merge-recursive-theirs merge-subtree merge-tree mktag mktree multi-pack-index mv ' +
    'name-rev notes pack-objects pack-redundant pack-refs patch-id pickaxe prune prune-packed pull push ' +
    'range-diff read-tree rebase receive-pack reflog remote remote-ext remote-fd repack replace rerere ' +
    'reset restore rev-list rev-parse revert rm send-pack shortlog show show-branch show-index show-ref ' +
    'sparse-checkout stage stash status stripspace submodule--helper switch symbolic-ref tag unpack-file ' +
    'unpack-objects update-index update-ref update-server-info upload-archive upload-archive--writer ' +
    'upload-pack var verify-commit verify-pack verify-tag version whatchanged worktree write-tree'
  ).split(' '),
);

/**
 * Git's own commands that are programs in its exec path, installed with git itself (`bisect` and
 * `submodule` are built in from 2.40 and 2.42): git's unless the command moves the exec path.
 * Those git packages separately (`svn`, `p4`, `send-email`, `gui`, `citool`, `cvs*`,
 * `archimport`…) are not here: where they are not installed, an alias takes their names.
 */
const IN_EXEC_PATH = new Set(
  (
    'add--interactive bisect daemon difftool--helper filter-branch http-backend http-fetch http-push ' +
    'imap-send instaweb merge-octopus merge-one-file merge-resolve mergetool quiltimport request-pull ' +
    'sh-i18n--envsubst shell submodule subtree web--browse sh-setup sh-i18n'
  ).split(' '),
);

/**
 * Extensions people run every day as `git <name>` (`git lfs pull`), programs `git-<name>` on
 * PATH. An alias cannot take their names where they are installed (git runs an external command
 * before an alias), and the config files an alias could come from are out of the agent's reach
 * (`.git` is protected, `~` is outside the sandbox; `-c`, `--config-env` and GIT_CONFIG_* are
 * refused above). Read as git's own unless the command sets PATH (a `git-lfs` of its own; one
 * exported by an earlier command of the line is a script the agent wrote, not seen, as README says).
 */
const EXTENSIONS = new Set(
  'lfs flow annex crypt secret filter-repo absorb credential-manager machete town branchless sizer'.split(' '),
);
const PATH_ENVIRONMENT = /^PATH=/;

/** Git's options before the subcommand that take the next word as their value (deny-grammar.ts reads them too). */
export const GIT_VALUED_OPTIONS: ReadonlySet<string> = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--super-prefix',
  '--config-env',
]);
/** Git's options before the subcommand that take no value (deny-grammar.ts reads them too). */
export const GIT_FLAG_OPTIONS: ReadonlySet<string> = new Set([
  '--no-pager',
  '-p',
  '--paginate',
  '-P',
  '--bare',
  '--no-replace-objects',
  '--literal-pathspecs',
  '--glob-pathspecs',
  '--noglob-pathspecs',
  '--icase-pathspecs',
  '--no-optional-locks',
  '--no-advice',
  '--version',
  '--help',
  '-v',
  '-h',
]);
const VALUED = GIT_VALUED_OPTIONS;
/** Here also the options that only print a path (`--exec-path=…` moves it: read apart below). */
const FLAGS = new Set([
  ...GIT_FLAG_OPTIONS,
  '--no-lazy-fetch',
  '--exec-path',
  '--html-path',
  '--man-path',
  '--info-path',
]);

/** Config keys that define aliases or pull in a config file that may (`include.path`). */
const ALIAS_KEY = /^(alias\.|include\.|includeif\.)/i;
/** Environment variables that give git config (aliases among it) or move its exec path. */
const CONFIG_ENVIRONMENT =
  /^(GIT_CONFIG_PARAMETERS|GIT_CONFIG_COUNT|GIT_CONFIG_KEY_\d+|GIT_CONFIG|GIT_CONFIG_GLOBAL|GIT_CONFIG_SYSTEM)=/;
const EXEC_PATH_ENVIRONMENT = /^GIT_EXEC_PATH=/;

export interface GitCommandLine {
  /** The words after `git`, as written (dequoted). */
  args: readonly string[];
  /** `NAME=value` words set on the command (shell assignments and `env`'s). */
  assignments: readonly string[];
  /** Whether each of args is decided only at run time (those are left to the run-time check). */
  open?: readonly boolean[];
}

/**
 * Why what `git …` runs cannot be told from the command line, or undefined when it is git's own
 * command (or none). The subcommand is the first word after git's own options; an unknown option
 * is read both with and without a value, and every reading must name an own command.
 */
export function gitIndirection(line: GitCommandLine): string | undefined {
  const { args, assignments } = line;
  const setting = assignments.find((word) => CONFIG_ENVIRONMENT.test(word));
  if (setting !== undefined)
    return `\`${setting.slice(0, setting.indexOf('='))}\` gives git config (an alias among it) known only when it runs`;
  let movedExecPath = assignments.some((word) => EXEC_PATH_ENVIRONMENT.test(word));
  const subcommands = new Set<number>();
  // Readings of the options: the positions a walk may be at (a set: linear, never exponential).
  let positions = new Set([0]);
  const seen = new Set<number>();
  while (positions.size > 0) {
    const next = new Set<number>();
    for (const at of positions) {
      if (seen.has(at)) continue;
      seen.add(at);
      const word = args[at];
      if (word === undefined || line.open?.[at]) continue;
      if (!word.startsWith('-') || word === '-') {
        subcommands.add(at);
        continue;
      }
      const [name = '', value] = word.split(/=(.*)/s, 2);
      const valueWord = value ?? (VALUED.has(name) ? args[at + 1] : undefined);
      if ((name === '-c' || name === '--config-env') && valueWord !== undefined && ALIAS_KEY.test(valueWord))
        return `\`git ${name} ${valueWord.replace(/=.*/s, '=…')}\` defines a git alias: what it runs is known only when it runs`;
      if (name === '--exec-path' && value !== undefined) movedExecPath = true;
      if (word === '--') continue;
      if (VALUED.has(name) && value === undefined) next.add(at + 2);
      else if (FLAGS.has(name) || value !== undefined) next.add(at + 1);
      else {
        next.add(at + 1);
        next.add(at + 2);
      }
    }
    positions = next;
  }
  for (const at of subcommands) {
    const subcommand = args[at] ?? '';
    if (BUILTIN.has(subcommand)) continue;
    if (IN_EXEC_PATH.has(subcommand)) {
      if (movedExecPath)
        return `\`git ${subcommand}\` runs \`git-${subcommand}\` from the exec path the command sets, known only when it runs`;
      continue;
    }
    if (EXTENSIONS.has(subcommand) && !assignments.some((word) => PATH_ENVIRONMENT.test(word))) continue;
    return `\`git ${subcommand}\` is not one of git's own commands: it may be an alias or a program \`git-${subcommand}\`, known only when it runs`;
  }
  return undefined;
}
