/**
 * Runs commands in a child process: the CLI's shell, and the extension's fallback where the
 * integrated terminal has no shell integration.
 */
import { spawn } from 'node:child_process';
import type { Shell, ShellResult, ShellRunOptions } from '../core/ports';
import { capOutput, stripTerminalEscapes } from '../core/text/terminal-output';

export class ChildProcessShell implements Shell {
  constructor(private readonly shellPath: string = process.env.SHELL || '/bin/bash') {}

  run(command: string, options: ShellRunOptions): Promise<ShellResult> {
    return new Promise((resolve) => {
      const child = spawn(this.shellPath, ['-c', command], {
        cwd: options.cwd,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: process.platform !== 'win32',
      });
      const chunks: string[] = [];
      let size = 0;
      const collect = (data: Buffer) => {
        // Keep memory bounded on endless output: drop the oldest chunks beyond twice the cap.
        chunks.push(data.toString('utf8'));
        size += data.length;
        while (size > options.maxOutputChars * 2 && chunks.length > 1) size -= chunks.shift()!.length;
      };
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
          output: capOutput(stripTerminalEscapes(chunks.join('')), options.maxOutputChars),
          exitCode,
          timedOut,
          via: 'child-process',
        });
      };
      child.on('error', (error) => {
        chunks.push(`\n${error.message}`);
        finish(undefined);
      });
      child.on('close', (code) => finish(code ?? undefined));
    });
  }
}
