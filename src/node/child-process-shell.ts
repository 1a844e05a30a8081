/**
 * Runs commands in a child process: the CLI's shell, and the extension's fallback where the
 * integrated terminal has no shell integration. Commands run in bash — the shell the command
 * analyser reads them as (under another shell `$'…'` and others mean something else) — and a
 * timeout or a stop kills everything the command started, even what left its process group.
 */
import { BASH_WITHOUT_STARTUP_FILES } from './bash-start';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync } from 'node:fs';
import { onAbort } from '../core/abort';
import type { Shell, ShellResult, ShellRunOptions } from '../core/ports';
import { OutputCollector } from '../core/text/terminal-output';
import { CLOSE_GRACE_MS, killTree } from './process-tree';
import type { Launch } from './sandbox/os-sandbox';

/** Says how each command starts: confined or not, with which environment (OsSandbox). */
export interface CommandLauncher {
  launch(command: string, options: { cwd?: string; unconfined?: boolean; marker?: string }): Launch;
}

export class ChildProcessShell implements Shell {
  constructor(
    private readonly shellPath: string = existsSync('/bin/bash') ? '/bin/bash' : 'bash',
    private readonly launcher?: CommandLauncher,
  ) {}

  run(command: string, options: ShellRunOptions): Promise<ShellResult> {
    return new Promise((resolve) => {
      // Every process the command starts inherits this mark, however it detaches itself.
      const id = randomBytes(8).toString('hex');
      const marker = `OPENAGENT_RUN=${id}`;
      let plan: Launch;
      try {
        plan = this.launcher?.launch(command, { cwd: options.cwd, unconfined: options.unconfined, marker: id }) ?? {
          file: this.shellPath,
          args: [...BASH_WITHOUT_STARTUP_FILES, '-c', command],
          env: { ...(process.env as Record<string, string>), OPENAGENT_RUN: id },
          confined: false,
          files: [],
          afterRun: () => undefined,
        };
      } catch (error) {
        resolve({ output: (error as Error).message, exitCode: undefined, timedOut: false, via: 'child-process' });
        return;
      }
      const files = plan.files.map((file) => openSync(file, 'r'));
      const child = spawn(plan.file, plan.args, {
        cwd: options.cwd,
        stdio: ['ignore', 'pipe', 'pipe', ...files],
        detached: process.platform !== 'win32',
        env: plan.env,
      });
      for (const fd of files) closeSync(fd);
      const output = new OutputCollector(options.maxOutputChars);
      const collect = (data: Buffer) => output.push(data.toString('utf8'));
      child.stdout?.on('data', collect);
      child.stderr?.on('data', collect);
      let timedOut = false;
      const kill = () => {
        if (child.pid !== undefined && process.platform !== 'win32') killTree(child.pid, marker);
        else child.kill('SIGKILL');
      };
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, options.timeoutMs);
      // At once when the run was stopped before the command started.
      const unlinkAbort = onAbort(options.signal, kill);
      let finished = false;
      let closeTimer: ReturnType<typeof setTimeout> | undefined;
      const finish = (exitCode: number | undefined) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        clearTimeout(closeTimer);
        unlinkAbort();
        const note = plan.afterRun();
        if (note) output.push(`\n${note}`);
        resolve({
          output: output.result(),
          exitCode,
          timedOut,
          via: 'child-process',
        });
      };
      child.on('error', (error) => {
        output.push(`\n${error.message}`);
        finish(undefined);
      });
      // The exit code counts from 'exit'; the pipes get a moment to drain, but something the
      // command left running (`cmd &`) may hold them open for ever: it is not waited for.
      child.on('exit', (code) => {
        closeTimer = setTimeout(() => {
          // The pipes are still open: something the command started holds them. A command
          // leaves nothing running (background_run is for that), so it is ended too.
          if (child.pid !== undefined && process.platform !== 'win32') killTree(child.pid, marker);
          finish(code ?? undefined);
        }, CLOSE_GRACE_MS);
      });
      child.on('close', (code) => finish(code ?? undefined));
    });
  }
}
