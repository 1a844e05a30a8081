/**
 * Runs a shared-format hook command (core/hooks/shared-hooks.ts) the way the bash tool runs a
 * command: through the same launcher (OsSandbox: confined in bubblewrap or Seatbelt, the
 * workspace writable and the rest read-only, network per policy, secrets out of its
 * environment). The event's JSON goes to its stdin; stdout and stderr are kept apart and
 * capped; a hook that prints without end is stopped. On timeout, on Stop, and when it ends,
 * everything it started is killed (its group, its descendants, and whatever carries its run
 * marker): a hook leaves nothing running.
 */
import { BASH_WITHOUT_STARTUP_FILES } from './bash-start';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync } from 'node:fs';
import { onAbort } from '../core/abort';
import type { HookProcessResult } from '../core/hooks/shared-hook-outcome';
import type { HookRunner, HookRunRequest } from '../core/hooks/shared-hooks';
import type { CommandLauncher } from './child-process-shell';
import { CLOSE_GRACE_MS, killTree } from './process-tree';
import type { Launch } from './sandbox/os-sandbox';
import { shellQuote } from './sandbox/os-sandbox';

export const HOOK_OUTPUT_LIMITS = {
  /** stdout kept (its JSON answer). */
  stdoutChars: 1024 * 1024,
  /** stderr kept (the reason a block gives). */
  stderrChars: 64 * 1024,
  /** Read in all before the hook is stopped as runaway. */
  totalBytes: 16 * 1024 * 1024,
};

const VARIABLE = /^[A-Za-z_][A-Za-z0-9_]*$/;

export class SandboxedHookRunner implements HookRunner {
  constructor(
    /** The bash tool's launcher; without one (tests of the plain path) the hook runs in bash as it is. */
    private readonly launcher?: CommandLauncher,
    private readonly shellPath: string = existsSync('/bin/bash') ? '/bin/bash' : 'bash',
  ) {}

  run(request: HookRunRequest): Promise<HookProcessResult> {
    return new Promise((resolve) => {
      const id = randomBytes(8).toString('hex');
      const marker = `OPENAGENT_RUN=${id}`;
      // The sandbox starts with a cleared environment: the hook's variables are set by the line itself.
      const exports = Object.entries(request.env)
        .filter(([name]) => VARIABLE.test(name))
        .map(([name, value]) => `export ${name}=${shellQuote(value)}`)
        .join('\n');
      const line = exports ? `${exports}\n${request.command}` : request.command;
      let plan: Launch;
      try {
        plan = this.launcher?.launch(line, { cwd: request.cwd, marker: id }) ?? {
          file: this.shellPath,
          args: [...BASH_WITHOUT_STARTUP_FILES, '-c', line],
          env: { ...(process.env as Record<string, string>), OPENAGENT_RUN: id },
          confined: false,
          files: [],
          afterRun: () => undefined,
        };
      } catch (error) {
        resolve({ exitCode: undefined, stdout: '', stderr: '', timedOut: false, failure: (error as Error).message });
        return;
      }
      if (request.confinedOnly && !plan.confined) {
        // The user allowed it to run in the sandbox; with none (off, missing, Windows) it does not run.
        resolve({
          exitCode: undefined,
          stdout: '',
          stderr: '',
          timedOut: false,
          failure:
            "a repository's hooks run only in the sandbox, and commands are not confined here (see the sandbox status)",
        });
        return;
      }
      const descriptors = plan.files.map((file) => openSync(file, 'r'));
      const child = spawn(plan.file, plan.args, {
        cwd: request.cwd,
        stdio: ['pipe', 'pipe', 'pipe', ...descriptors],
        detached: process.platform !== 'win32',
        env: plan.env,
      });
      for (const descriptor of descriptors) closeSync(descriptor);
      const kill = () => {
        if (child.pid !== undefined && process.platform !== 'win32') killTree(child.pid, marker);
        else child.kill('SIGKILL');
      };
      let stdout = '';
      let stderr = '';
      let total = 0;
      let runaway = false;
      const take = (into: 'out' | 'err') => (chunk: Buffer) => {
        total += chunk.length;
        if (total > HOOK_OUTPUT_LIMITS.totalBytes && !runaway) {
          runaway = true;
          kill();
        }
        if (into === 'out' && stdout.length < HOOK_OUTPUT_LIMITS.stdoutChars)
          stdout += chunk.toString('utf8').slice(0, HOOK_OUTPUT_LIMITS.stdoutChars - stdout.length);
        if (into === 'err' && stderr.length < HOOK_OUTPUT_LIMITS.stderrChars)
          stderr += chunk.toString('utf8').slice(0, HOOK_OUTPUT_LIMITS.stderrChars - stderr.length);
      };
      child.stdout?.on('data', take('out'));
      child.stderr?.on('data', take('err'));
      // A hook that does not read its stdin (or exits first) closes the pipe: not an error of ours.
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(request.stdin);
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, request.timeoutMs);
      const unlinkAbort = onAbort(request.signal, kill);
      let finished = false;
      let closeTimer: ReturnType<typeof setTimeout> | undefined;
      const finish = (exitCode: number | undefined, failure?: string) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        clearTimeout(closeTimer);
        unlinkAbort();
        // Whatever it started in the background goes with it.
        kill();
        child.stdin?.destroy();
        child.stdout?.destroy();
        child.stderr?.destroy();
        plan.afterRun();
        const reason =
          failure ??
          (runaway ? `printed more than ${HOOK_OUTPUT_LIMITS.totalBytes / 1024 / 1024} MB and was stopped` : undefined);
        resolve({
          exitCode: timedOut || runaway ? undefined : exitCode,
          stdout,
          stderr,
          timedOut,
          ...(reason !== undefined ? { failure: reason } : {}),
        });
      };
      child.on('error', (error) => finish(undefined, error.message));
      // Its exit counts; the pipes get a moment to drain, but a child it left may hold them open.
      child.on('exit', (code) => {
        closeTimer = setTimeout(() => finish(code ?? undefined), CLOSE_GRACE_MS);
      });
      child.on('close', (code) => finish(code ?? undefined));
    });
  }
}
