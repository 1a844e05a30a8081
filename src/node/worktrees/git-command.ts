/**
 * Runs git for the worktree sessions: `execFile`, never a shell; an environment without any
 * GIT_* variable of the caller's (they could point git at another repository, add
 * configuration, or name programs to run); and options that leave nothing of the repository's
 * own configuration able to run code during our commands:
 * - hooks off (`core.hooksPath=/dev/null`: post-checkout, pre-commit, post-merge… find nothing)
 *   and the file-system monitor off (`core.fsmonitor`);
 * - no transport (`protocol.allow=never`, submodules not recursed into): our commands are local,
 *   so `core.sshCommand`, `core.gitProxy`, credential helpers and the like are never reached;
 * - no signing or signature checks (`gpg.program`), no editor, no pager, no automatic gc;
 * - filters and merge drivers the repository's own configuration (or a file it includes)
 *   defines are switched off (repository-config.ts); the user's global ones (git-lfs) stay;
 * - the git folder and the working tree are always given (`--git-dir`, `--work-tree`): a
 *   `core.worktree` in the repository's configuration cannot send our writes elsewhere;
 * - diffs never run `diff.external` or text conversions (`--no-ext-diff --no-textconv`, by
 *   the callers).
 * Every run has a deadline: an `include.path` naming a FIFO would otherwise hang it for ever.
 */
import { execFile } from 'node:child_process';
import { WorktreeError } from '../../core/session/worktree-port';

/** The oldest git these commands are written for (Debian 11's): `worktree repair`, `config --show-scope`. */
export const MINIMUM_GIT: readonly [number, number] = [2, 30];

const DEFAULT_TIMEOUT_MS = 10 * 60_000;
const MAX_OUTPUT_BYTES = 256 * 1024 * 1024;

export interface GitRun {
  stdout: string;
  stderr: string;
  exitCode: number;
}

export interface GitOptions {
  /** The git folder (`--git-dir`): every command names it. */
  gitDir?: string;
  /** The working tree (`--work-tree`). */
  workTree?: string;
  /** Where git runs (paths in arguments are relative to it). */
  cwd?: string;
  /** Exit codes that are answers, not failures (e.g. 1 for `merge` with conflicts). */
  okCodes?: readonly number[];
  /** More configuration for this command (`-c key=value`), after the safe defaults. */
  config?: readonly string[];
  /** More environment (e.g. GIT_INDEX_FILE for a scratch index). */
  env?: Record<string, string>;
  timeoutMs?: number;
  /** Output as bytes (a file's content). */
  binary?: boolean;
}

export class GitCommand {
  private version: Promise<readonly number[]> | undefined;

  constructor(
    /** The program (a full path, or `git` found on the PATH). */
    private readonly program = 'git',
    /** The environment to start from: GIT_* variables are removed from it. */
    private readonly baseEnvironment: NodeJS.ProcessEnv = process.env,
  ) {}

  /** Runs git; throws a WorktreeError with git's words when it fails (or is missing, or too old). */
  async run(args: readonly string[], options: GitOptions = {}): Promise<GitRun> {
    const version = await this.checkedVersion();
    return this.exec([...this.prefix(version, options), ...args], options);
  }

  /** The same, with the content of stdout as bytes. */
  async runBinary(args: readonly string[], options: GitOptions = {}): Promise<Buffer> {
    const version = await this.checkedVersion();
    const result = await this.execRaw([...this.prefix(version, options), ...args], { ...options, binary: true });
    return result.stdout as Buffer;
  }

  /** The installed git's version, checked once: too old or missing throws. */
  checkedVersion(): Promise<readonly number[]> {
    this.version ??= this.exec(['--version'], {}).then(
      ({ stdout }) => {
        const found = /(\d+)\.(\d+)(?:\.(\d+))?/.exec(stdout);
        const numbers = found ? [Number(found[1]), Number(found[2]), Number(found[3] ?? 0)] : [0, 0, 0];
        if (compareVersions(numbers, MINIMUM_GIT) < 0)
          throw new WorktreeError(
            'git-too-old',
            `Worktree sessions need git ${MINIMUM_GIT.join('.')} or later; this is ${stdout.trim() || 'an unknown git'}. Update git, or run the session here.`,
          );
        return numbers;
      },
      (error: unknown) => {
        this.version = undefined;
        throw error;
      },
    );
    return this.version;
  }

  private prefix(version: readonly number[], options: GitOptions): string[] {
    // Before 2.36 `core.fsmonitor` names a hook program: an empty value switches it off there.
    const fsmonitor = compareVersions(version, [2, 36]) >= 0 ? 'false' : '';
    const config = [
      'core.hooksPath=/dev/null',
      `core.fsmonitor=${fsmonitor}`,
      'protocol.allow=never',
      'submodule.recurse=false',
      'commit.gpgSign=false',
      'tag.gpgSign=false',
      'merge.verifySignatures=false',
      'core.editor=:',
      'core.pager=cat',
      'gc.auto=0',
      'maintenance.auto=false',
      'core.quotePath=false',
      ...(options.config ?? []),
    ];
    return [
      '--no-pager',
      '--literal-pathspecs',
      ...config.flatMap((entry) => ['-c', entry]),
      ...(options.gitDir ? [`--git-dir=${options.gitDir}`] : []),
      ...(options.workTree ? [`--work-tree=${options.workTree}`] : []),
    ];
  }

  private async exec(args: string[], options: GitOptions): Promise<GitRun> {
    const result = await this.execRaw(args, options);
    return { stdout: result.stdout.toString(), stderr: result.stderr, exitCode: result.exitCode };
  }

  private execRaw(
    args: string[],
    options: GitOptions,
  ): Promise<{ stdout: string | Buffer; stderr: string; exitCode: number }> {
    return new Promise((resolve, reject) => {
      execFile(
        this.program,
        args,
        {
          cwd: options.cwd,
          env: { ...gitEnvironment(this.baseEnvironment), ...options.env },
          encoding: options.binary ? 'buffer' : 'utf8',
          maxBuffer: MAX_OUTPUT_BYTES,
          timeout: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
          killSignal: 'SIGKILL',
          windowsHide: true,
        },
        (error, stdout, stderr) => {
          const errorText = Buffer.isBuffer(stderr) ? stderr.toString('utf8') : stderr;
          if (!error) return resolve({ stdout, stderr: errorText, exitCode: 0 });
          const failure = error as NodeJS.ErrnoException & { code?: string | number; killed?: boolean };
          if (failure.code === 'ENOENT' && typeof failure.code === 'string')
            return reject(
              new WorktreeError(
                'git-missing',
                `git was not found (${this.program}). Worktree sessions need git ${MINIMUM_GIT.join('.')} or later: install it, or run the session here.`,
              ),
            );
          if (failure.killed)
            return reject(
              new WorktreeError(
                'git-failed',
                `git ${args
                  .filter((arg) => !arg.startsWith('-'))
                  .slice(0, 2)
                  .join(
                    ' ',
                  )} did not finish in ${Math.round((options.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)} s and was stopped.`,
              ),
            );
          const exitCode = typeof failure.code === 'number' ? failure.code : -1;
          if (options.okCodes?.includes(exitCode)) return resolve({ stdout, stderr: errorText, exitCode });
          reject(gitFailure(args, errorText || failure.message));
        },
      );
    });
  }
}

/** The caller's environment without GIT_* variables, with git made quiet and non-interactive. */
export function gitEnvironment(base: NodeJS.ProcessEnv): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) if (value !== undefined && !/^GIT_/i.test(name)) env[name] = value;
  // Messages in English (they are matched below and shown as they are); no prompt for anything.
  env.LC_ALL = 'C';
  env.LANGUAGE = 'C';
  env.GIT_TERMINAL_PROMPT = '0';
  env.GIT_PAGER = 'cat';
  env.GIT_EDITOR = ':';
  return env;
}

/** A failure in the user's words: a full disk and write errors said so, git's own message kept. */
export function gitFailure(args: readonly string[], stderr: string): WorktreeError {
  const said = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean)
    .slice(0, 8)
    .join('\n');
  const command = args
    .filter((arg) => !arg.startsWith('-') && !arg.includes('='))
    .slice(0, 2)
    .join(' ');
  if (/no space left on device|disk quota exceeded/i.test(stderr))
    return new WorktreeError('write-failed', `The disk is full: git ${command} could not write.\n${said}`);
  if (/read-only file system|permission denied|could not (create|write|open)|unable to (create|write)/i.test(stderr))
    return new WorktreeError('write-failed', `git ${command} could not write a file.\n${said}`);
  if (/not a git repository/i.test(stderr))
    return new WorktreeError('not-a-repository', `This folder is not in a git repository.\n${said}`);
  return new WorktreeError('git-failed', `git ${command} failed:\n${said}`);
}

export function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let at = 0; at < Math.max(a.length, b.length); at++) {
    const difference = (a[at] ?? 0) - (b[at] ?? 0);
    if (difference !== 0) return difference;
  }
  return 0;
}
