/**
 * Runs commands in a child process: the CLI's shell, and the extension's fallback where the
 * integrated terminal has no shell integration.
 */
import { spawn } from 'node:child_process';
import type { Shell, ShellResult, ShellRunOptions } from '../core/ports';
import { OutputCollector } from '../core/text/terminal-output';

export class ChildProcessShell implements Shell {
  constructor(private readonly shellPath: string = process.env.SHELL || '/bin/bash') {}

  run(command: string, options: ShellRunOptions): Promise<ShellResult> {
    return new Promise((resolve) => {
      const child = spawn(this.shellPath, ['-c', command], {
        cwd: options.cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
      });
      const output = new OutputCollector(options.maxOutputChars);
      const collect = (data: Buffer) => output.push(data.toString('utf8'));
      child.stdout.on('data', collect);
      child.stderr.on('data', collect);
      let timedOut = false;
      const kill = () => {
        try {
          if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
        } catch {
          child.kill('SIGKILL');
        }
      };
      const timer = setTimeout(() => {
        timedOut = true;
        kill();
      }, options.timeoutMs);
      options.signal?.addEventListener('abort', kill, { once: true });
      const finish = (exitCode: number | undefined) => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', kill);
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
      child.on('close', (code) => finish(code ?? undefined));
    });
  }
}
