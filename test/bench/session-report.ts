/** The sessions benchmarks' tables (issue 33), printed by `npm run bench`. */
import { table } from './bench-table';
import { measureIdleSessionMemory, measureSessionsStreaming } from './session-benchmarks';
import { measureWorktreeAdd } from './worktree-benchmarks';
import { printForkBenchmark } from './fork-benchmarks';
import { measureForkIntoWorktree } from './fork-worktree-benchmarks';

export async function printSessionBenchmarks(): Promise<void> {
  console.log(
    '\nSessions side by side: event-loop delay while several sessions of one window stream at once (8-character deltas, through the session registry and its list), against one session alone\n',
  );
  // Three rounds, the median shown: the first round in a fresh process also pays for compiling
  // the streaming path (it measured 27 ms where the next two measured 15 and 12).
  const rounds: Awaited<ReturnType<typeof measureSessionsStreaming>>[] = [];
  for (let round = 0; round < 3; round++) rounds.push(await measureSessionsStreaming());
  rounds.sort((a, b) => a.p99Ms - b.p99Ms);
  const streaming = rounds[1]!;
  console.log(
    table(
      [
        'sessions',
        'deltas each',
        'p99, median of 3 (ms)',
        'p99 of each round (ms)',
        'max (ms)',
        'one alone p99 (ms)',
        'target',
      ],
      [
        [
          String(streaming.sessions),
          streaming.deltasEach.toLocaleString('en-US'),
          streaming.p99Ms.toFixed(2),
          rounds.map((round) => round.p99Ms.toFixed(1)).join(' / '),
          streaming.maxMs.toFixed(2),
          streaming.aloneP99Ms.toFixed(2),
          'p99 ≤ 20 ms',
        ],
      ],
    ),
  );
  console.log('\nMemory per extra idle session (composed, listed, one short conversation done; heap after GC)\n');
  const memory = await measureIdleSessionMemory();
  console.log(
    table(
      ['idle sessions', 'heap per session (MB)', 'target'],
      [[String(memory.sessions), memory.perSessionMb.toFixed(2), '≤ 15 MB']],
    ),
  );
  console.log(
    '\nSession worktree: `git worktree add` through the product (GitWorktrees.create) vs plain `git worktree add -b`, alternating (medians)\n',
  );
  const worktreeAdd = await measureWorktreeAdd();
  console.log(
    table(
      ['repository files', 'runs', 'plain git (ms)', 'product (ms)', 'ratio', 'target'],
      [
        [
          worktreeAdd.files.toLocaleString('en-US'),
          String(worktreeAdd.runs),
          worktreeAdd.plainMs.toFixed(0),
          worktreeAdd.productMs.toFixed(0),
          (worktreeAdd.productMs / worktreeAdd.plainMs).toFixed(2),
          '≤ 1.2',
        ],
      ],
    ),
  );
  await printForkBenchmark();
  console.log(
    'Fork from here into a new worktree (forkIntoWorktree) vs by hand (`git worktree add -b` and copying the changed files), alternating (medians)\n',
  );
  const forkWorktree = await measureForkIntoWorktree();
  console.log(
    table(
      ['repository files', 'files changed', 'messages', 'by hand (ms)', 'product (ms)', 'ratio'],
      [
        [
          forkWorktree.files.toLocaleString('en-US'),
          String(forkWorktree.changed),
          forkWorktree.messages.toLocaleString('en-US'),
          forkWorktree.byHandMs.toFixed(0),
          forkWorktree.productMs.toFixed(0),
          (forkWorktree.productMs / forkWorktree.byHandMs).toFixed(2),
        ],
      ],
    ),
  );
}
