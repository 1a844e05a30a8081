/**
 * The Node side of ProcessRunner (background jobs): runs a command in `bash -c` (or `/bin/sh -c`
 * where there is no bash) as the leader of its own process group, stdout and stderr merged, so
 * kill() stops the whole tree: SIGTERM to the group, then SIGKILL to whatever is left after a
 * grace period. On Windows the command runs through the default shell and `taskkill /T /F`
 * stops the tree.
 */
import { BASH_WITHOUT_STARTUP_FILES } from './bash-start';
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, closeSync, constants, existsSync, openSync } from 'node:fs';
import * as path from 'node:path';
import type { ProcessRunner, RunningProcess } from '../core/ports';
import type { CommandLauncher } from './child-process-shell';
import { CLOSE_GRACE_MS } from './process-tree';

/** Between SIGTERM and SIGKILL. */
const KILL_GRACE_MS = 2_000;

export interface ShellCommand {
  path: string;
  /** Arguments before the command line, e.g. ['-c']. */
  args: string[];
}

export class ChildProcessRunner implements ProcessRunner {
  constructor(
    private readonly shell: ShellCommand | undefined = defaultShell(),
    /** Confines commands and scrubs their environment (OsSandbox); jobs run as they are without it. */
    private readonly launcher?: CommandLauncher,
  ) {}

  start(
    command: string,
    options: { cwd?: string; env?: Record<string, string>; unconfined?: boolean },
  ): RunningProcess {
    const plan = this.launcher?.launch(command, { cwd: options.cwd, unconfined: options.unconfined });
    if (plan)
      return new ChildRun(
        { path: plan.file, args: plan.args.slice(0, -1) },
        plan.args.at(-1)!,
        { ...options, env: { ...plan.env, ...options.env } },
        plan.env,
        plan.afterRun,
        plan.files,
      );
    return new ChildRun(this.shell, command, options);
  }
}

/**
 * `bash -c` when bash is on the PATH, else `/bin/sh -c`; undefined on Windows (Node's default
 * shell). Not a login shell: profiles can be slow or wait on locks (pyenv's rehash lock, left
 * behind when a job is killed mid-profile, hung every later login shell on a test machine).
 */
export function defaultShell(): ShellCommand | undefined {
  if (process.platform === 'win32') return undefined;
  const bash = findOnPath('bash');
  return bash ? { path: bash, args: [...BASH_WITHOUT_STARTUP_FILES, '-c'] } : { path: '/bin/sh', args: ['-c'] };
}

function findOnPath(name: string): string | undefined {
  for (const directory of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!directory) continue;
    const candidate = path.join(directory, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // Not here.
    }
  }
  return undefined;
}

class ChildRun implements RunningProcess {
  private readonly child: ChildProcess;
  private readonly outputListeners: Array<(chunk: string) => void> = [];
  private readonly exitListeners: Array<(exitCode: number | undefined) => void> = [];
  private finished = false;
  private exitCode: number | undefined;
  private killed = false;
  private closeTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    shell: ShellCommand | undefined,
    command: string,
    options: { cwd?: string; env?: Record<string, string> },
    /** The whole environment, when the launcher decided it (secrets removed). */
    baseEnv?: Record<string, string>,
    private readonly afterRun: () => string | undefined = () => undefined,
    /** Opened for the child as descriptors 3, 4, … (the sandbox's seccomp filter). */
    files: readonly string[] = [],
  ) {
    const descriptors = files.map((file) => openSync(file, 'r'));
    const common = {
      cwd: options.cwd,
      env: { ...(baseEnv ?? process.env), ...options.env },
      stdio: ['ignore', 'pipe', 'pipe', ...descriptors] as Array<'ignore' | 'pipe' | number>,
      windowsHide: true,
    };
    this.child = shell
      ? spawn(shell.path, [...shell.args, command], { ...common, detached: true })
      : spawn(command, { ...common, shell: true });
    for (const descriptor of descriptors) closeSync(descriptor);
    for (const stream of [this.child.stdout, this.child.stderr]) {
      stream?.setEncoding('utf8');
      stream?.on('data', (chunk: string) => this.emitOutput(chunk));
    }
    this.child.on('error', (error) => {
      const missingCwd = options.cwd !== undefined && !existsSync(options.cwd);
      this.emitOutput(`\n${missingCwd ? `The working folder does not exist: ${options.cwd}` : error.message}\n`);
      this.finish(undefined);
    });
    // The exit code counts from 'exit'; 'close' (all output read) is awaited only briefly, since a
    // process the command left running may hold the pipes open for ever.
    this.child.on('exit', (code) => {
      this.closeTimer = setTimeout(() => this.finish(code ?? undefined), CLOSE_GRACE_MS);
    });
    this.child.on('close', (code) => this.finish(code ?? undefined));
  }

  onOutput(listener: (chunk: string) => void): void {
    this.outputListeners.push(listener);
  }

  onExit(listener: (exitCode: number | undefined) => void): void {
    if (this.finished) listener(this.exitCode);
    else this.exitListeners.push(listener);
  }

  kill(): void {
    if (this.killed || this.child.pid === undefined) return;
    this.killed = true;
    const pid = this.child.pid;
    if (process.platform === 'win32') {
      spawn('taskkill', ['/pid', String(pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on(
        'error',
        () => {},
      );
      return;
    }
    signalGroup(pid, 'SIGTERM');
    // Whatever ignored SIGTERM (or is still shutting down) gets SIGKILL; probing first means a
    // group that is gone (whose number could be reused) is never signalled again.
    setTimeout(() => {
      if (signalGroup(pid, 0)) signalGroup(pid, 'SIGKILL');
    }, KILL_GRACE_MS);
  }

  private emitOutput(chunk: string): void {
    for (const listener of this.outputListeners) listener(chunk);
  }

  private finish(exitCode: number | undefined): void {
    if (this.finished) return;
    this.finished = true;
    const note = this.afterRun();
    if (note) this.emitOutput(`\n${note}\n`);
    clearTimeout(this.closeTimer);
    this.exitCode = exitCode;
    for (const listener of this.exitListeners.splice(0)) listener(this.exitCode);
  }
}

/** Sends a signal to a process group; false when the group no longer exists. */
function signalGroup(pid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pid, signal);
    return true;
  } catch {
    return false;
  }
}
