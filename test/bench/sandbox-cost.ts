/**
 * The sandbox's cost per command (issue 15): the same commands through ChildProcessShell, plain
 * (environment scrubbed, no sandbox) and confined by bubblewrap, alternating, after warm-ups;
 * medians. Skipped, and said so, where bubblewrap cannot run.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { SandboxMode } from '../../src/core/policy/sandbox-modes';
import { ChildProcessShell } from '../../src/node/child-process-shell';
import { OsSandbox } from '../../src/node/sandbox/os-sandbox';

export interface SandboxCost {
  command: string;
  plainMs: number;
  confinedMs: number;
  runs: number;
}

const COMMANDS = ['true', 'ls -la', 'git --version', 'node -e "1"'];
const RUNS = 25;
const WARMUPS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

export async function measureSandboxCost(): Promise<SandboxCost[] | string> {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-bench-sandbox-')));
  fs.mkdirSync(path.join(root, '.git/hooks'), { recursive: true });
  fs.writeFileSync(path.join(root, 'file.txt'), 'x\n');
  const shellFor = (mode: SandboxMode) =>
    new ChildProcessShell(
      undefined,
      new OsSandbox({ mode: () => mode, network: () => false, passEnv: () => [], root: () => root }),
    );
  const confinedSandbox = new OsSandbox({
    mode: () => 'auto',
    network: () => false,
    passEnv: () => [],
    root: () => root,
  });
  const status = confinedSandbox.status();
  if (!status.confined) return status.detail;
  const plain = shellFor('off');
  const confined = new ChildProcessShell(undefined, confinedSandbox);
  const time = async (shell: ChildProcessShell, command: string) => {
    const started = process.hrtime.bigint();
    const result = await shell.run(command, { cwd: root, timeoutMs: 60_000, maxOutputChars: 10_000 });
    if (result.exitCode !== 0) throw new Error(`${command} failed in the benchmark: ${result.output}`);
    return Number(process.hrtime.bigint() - started) / 1e6;
  };
  const results: SandboxCost[] = [];
  for (const command of COMMANDS) {
    for (let i = 0; i < WARMUPS; i++) {
      await time(plain, command);
      await time(confined, command);
    }
    const plainTimes: number[] = [];
    const confinedTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      plainTimes.push(await time(plain, command));
      confinedTimes.push(await time(confined, command));
    }
    results.push({ command, plainMs: median(plainTimes), confinedMs: median(confinedTimes), runs: RUNS });
  }
  fs.rmSync(root, { recursive: true, force: true });
  return results;
}
