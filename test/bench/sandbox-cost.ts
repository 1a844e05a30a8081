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

export interface SandboxPreparation {
  files: number;
  /** Median of launch() and afterRun(): the protected-set walk, the home scan, the options. */
  prepareMs: number;
  runs: number;
}

/**
 * What deciding the confinement costs per command, apart from bubblewrap itself (issue 32): the
 * walk for the protected set grows with the workspace (files in folders of 20, a `.git`), the
 * scan of the home's tool folders with what the home holds.
 */
export function measureSandboxPreparation(sizes = [10, 2_000, 10_000]): SandboxPreparation[] | string {
  const results: SandboxPreparation[] = [];
  for (const files of sizes) {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-bench-prepare-')));
    fs.mkdirSync(path.join(root, '.git/hooks'), { recursive: true });
    fs.writeFileSync(path.join(root, '.git/config'), '[core]\n');
    for (let at = 0; at < files; at++) {
      const folder = path.join(root, `folder-${Math.floor(at / 20)}`);
      if (at % 20 === 0) fs.mkdirSync(folder);
      fs.writeFileSync(path.join(folder, `file-${at}.ts`), 'x\n');
    }
    const sandbox = new OsSandbox({ mode: () => 'auto', network: () => false, passEnv: () => [], root: () => root });
    const status = sandbox.status();
    if (!status.confined) return status.detail;
    const times: number[] = [];
    for (let run = 0; run < WARMUPS + RUNS; run++) {
      const started = process.hrtime.bigint();
      sandbox.launch('true', { cwd: root }).afterRun();
      if (run >= WARMUPS) times.push(Number(process.hrtime.bigint() - started) / 1e6);
    }
    results.push({ files, prepareMs: median(times), runs: RUNS });
    fs.rmSync(root, { recursive: true, force: true });
  }
  return results;
}
