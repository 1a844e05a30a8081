/** The replay benchmark's table (issue 34), printed by `npm run bench`. */
import { table } from './bench-table';
import { measureReplay } from './replay-benchmarks';

export async function printReplayBenchmarks(): Promise<void> {
  console.log(
    '\nReplay with recorded tools: a recorded 200-step run (100 file reads) replayed from its recording, against the live run against the fake model server\n',
  );
  const replay = await measureReplay();
  console.log(
    table(
      [
        'steps',
        'live run (ms)',
        'replay, median of 3 (ms)',
        'each round (ms)',
        'replay ÷ live',
        'reproduced',
        'target',
      ],
      [
        [
          String(replay.steps),
          replay.recordMs.toFixed(0),
          replay.replayMs.toFixed(0),
          replay.rounds.map((ms) => ms.toFixed(0)).join(' / '),
          (replay.replayMs / replay.recordMs).toFixed(2),
          replay.reproduced ? 'yes' : 'NO',
          '≤ 1 s',
        ],
      ],
    ),
  );
}
