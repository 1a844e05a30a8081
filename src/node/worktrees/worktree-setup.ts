/**
 * Setting up a new session worktree (issue 33, item 2): the command `worktree.setup` of the
 * policy (`.openagent/agent.yaml`), or else the script `.openagent/worktree-setup` of the
 * worktree, run once in the worktree before the session starts — confined by the product's
 * sandbox with the worktree as its writable root (OsSandbox), with the environment agent
 * commands get (secrets removed). Its output and exit code are returned; a failure (the command
 * failed, was stopped, could not start, or the sandbox is required and missing) is a result to
 * show, never an exception: the session can still be used or discarded.
 * The network is the policy's to grant, as for agent commands: `npm ci` needs
 * `commands.network: true` in the user's policy, or a filled cache.
 */
import { lstatSync } from 'node:fs';
import * as path from 'node:path';
import type { Shell } from '../../core/ports';
import type { AgentPolicy } from '../../core/policy/agent-policy';
import type { SandboxMode } from '../../core/policy/sandbox-modes';
import { ChildProcessShell } from '../child-process-shell';
import { OsSandbox } from '../sandbox/os-sandbox';

/** The script a worktree may carry instead of `worktree.setup`. */
export const SETUP_SCRIPT = '.openagent/worktree-setup';
const DEFAULT_TIMEOUT_MS = 20 * 60_000;
const DEFAULT_MAX_OUTPUT_CHARS = 200_000;

export interface WorktreeSetup {
  /** The command as run. */
  command: string;
  /** Where it came from, for the session's note. */
  source: 'policy' | 'script';
}

/** The setup to run in `worktreeRoot`, if any: the policy's command first, else the worktree's script. */
export function worktreeSetup(worktreeRoot: string, policy: AgentPolicy | undefined): WorktreeSetup | undefined {
  const command = policy?.worktree?.setup?.trim();
  if (command) return { command, source: 'policy' };
  try {
    // The script itself, not a link to somewhere else: it runs from the worktree.
    if (lstatSync(path.join(worktreeRoot, SETUP_SCRIPT)).isFile())
      return { command: `bash ./${SETUP_SCRIPT}`, source: 'script' };
  } catch {
    // None.
  }
  return undefined;
}

export interface SetupSandboxSettings {
  /** The mode in force (the strictest of the user's setting and the policies). */
  mode(): SandboxMode;
  network(): boolean;
  passEnv(): readonly string[];
  /** Paths to hide from confined commands (the editor's storage of conversations). */
  hidden?: () => readonly string[];
}

export interface SetupResult {
  command: string;
  /** Undefined when it did not run to an end (could not start, stopped). */
  exitCode: number | undefined;
  output: string;
  timedOut: boolean;
  ok: boolean;
  /** One line for the session: what ran and how it ended. */
  summary: string;
}

export interface SetupOptions {
  timeoutMs?: number;
  maxOutputChars?: number;
  signal?: AbortSignal;
  /** The shell to run it in; by default a child process confined with the worktree as the root. */
  shell?: Shell;
}

/** A shell whose commands are confined with `root` as the only writable folder. */
export function confinedShellFor(root: string, settings: SetupSandboxSettings): Shell {
  return new ChildProcessShell(
    undefined,
    new OsSandbox({
      mode: () => settings.mode(),
      network: () => settings.network(),
      passEnv: () => settings.passEnv(),
      root: () => root,
      ...(settings.hidden ? { hidden: settings.hidden } : {}),
    }),
  );
}

/** Runs the setup once in the worktree; never throws. */
export async function runWorktreeSetup(
  worktreeRoot: string,
  setup: WorktreeSetup,
  settings: SetupSandboxSettings,
  options: SetupOptions = {},
): Promise<SetupResult> {
  try {
    const shell = options.shell ?? confinedShellFor(worktreeRoot, settings);
    const result = await shell.run(setup.command, {
      cwd: worktreeRoot,
      timeoutMs: options.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxOutputChars: options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    const ok = result.exitCode === 0 && !result.timedOut;
    const ending = result.timedOut
      ? `was stopped after ${Math.round((options.timeoutMs ?? DEFAULT_TIMEOUT_MS) / 1000)} s`
      : result.exitCode === undefined
        ? 'could not run'
        : result.exitCode === 0
          ? 'finished'
          : `failed (exit code ${result.exitCode})`;
    return {
      command: setup.command,
      exitCode: result.exitCode,
      output: result.output,
      timedOut: result.timedOut,
      ok,
      summary: `Worktree setup \`${setup.command}\` ${ending}${ok ? '' : ': the session can still be used, or discarded'}.`,
    };
  } catch (error) {
    return {
      command: setup.command,
      exitCode: undefined,
      output: error instanceof Error ? error.message : String(error),
      timedOut: false,
      ok: false,
      summary: `Worktree setup \`${setup.command}\` could not run: the session can still be used, or discarded.`,
    };
  }
}
