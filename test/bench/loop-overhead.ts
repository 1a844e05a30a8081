/**
 * Benchmark (a), the loop's overhead: each side runs in a fresh process of its own (with its
 * own fake server), so neither inherits the other's heap, JIT state or garbage. Processes
 * alternate — loop, raw, loop, raw, … — and each reports its runs after a warm-up.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { timeSessions, type Protocol } from './loop-benchmarks';
import { median } from './stats';

export interface OverheadResult {
  protocol: Protocol;
  modelCalls: number;
  loopMs: number;
  rawMs: number;
  ratio: number;
}

const WARM_UP_RUNS = 3;
const TIMED_RUNS = 5;
const PROCESS_PAIRS = 3;

function runSide(protocol: Protocol, mode: 'loop' | 'raw', bodiesFile: string): number[] {
  const output = execFileSync(
    process.execPath,
    ['--import', 'tsx', __filename, protocol, mode, bodiesFile, String(WARM_UP_RUNS + TIMED_RUNS)],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const times = JSON.parse(output.trim().split('\n').at(-1)!) as number[];
  return times.slice(WARM_UP_RUNS);
}

export function measureLoopOverhead(protocol: Protocol): OverheadResult {
  const bodiesFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-bench-')), 'bodies.json');
  const loopTimes: number[] = [];
  const rawTimes: number[] = [];
  for (let pair = 0; pair < PROCESS_PAIRS; pair++) {
    loopTimes.push(...runSide(protocol, 'loop', bodiesFile));
    rawTimes.push(...runSide(protocol, 'raw', bodiesFile));
  }
  const modelCalls = (JSON.parse(fs.readFileSync(bodiesFile, 'utf8')) as unknown[]).length;
  const loopMs = median(loopTimes);
  const rawMs = median(rawTimes);
  return { protocol, modelCalls, loopMs, rawMs, ratio: loopMs / rawMs };
}

if (require.main === module) {
  const [protocol, mode, bodiesFile, runs] = process.argv.slice(2) as [Protocol, 'loop' | 'raw', string, string];
  void timeSessions(protocol, mode, bodiesFile, Number(runs)).then((times) => console.log(JSON.stringify(times)));
}
