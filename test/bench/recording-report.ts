/** The recording benchmarks' tables (issue 34: replay and compare), printed by `npm run bench`. */
import { table } from './bench-table';
import { measureRecordingOverhead, measureRecordingSize } from './recording-benchmarks';

export async function printRecordingBenchmarks(): Promise<void> {
  console.log(
    '\nRun recording: the loop with every step recorded for replay vs without, 200 model calls each reading a file, fake model (Anthropic wire), real store on both sides (alternating runs, medians)\n',
  );
  const overhead = await measureRecordingOverhead();
  console.log(
    table(
      [
        'model calls',
        'runs each',
        'loop without (ms)',
        'loop recorded (ms)',
        'ratio',
        'loop CPU without / recorded (ms)',
        'CPU until all is written, without / recorded (ms)',
        'target',
      ],
      [
        [
          String(overhead.turns),
          String(overhead.rounds),
          overhead.plainMs.toFixed(0),
          overhead.recordedMs.toFixed(0),
          overhead.ratio.toFixed(3),
          `${overhead.plainCpuMs.toFixed(0)} / ${overhead.recordedCpuMs.toFixed(0)}`,
          `${overhead.plainWrittenCpuMs.toFixed(0)} / ${overhead.recordedWrittenCpuMs.toFixed(0)}`,
          '≤ 1.02×',
        ],
      ],
    ),
  );
  console.log(
    '(The recorder works after each step, off the loop: its cost shows in the CPU until everything is written, which the conversation store’s own writes dominate on both sides.)',
  );
  console.log('\nRecording size: a 200-call run reading a 50 KB file 100 times (and a small one 99 times)\n');
  const size = await measureRecordingSize();
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  console.log(
    table(
      [
        'model calls',
        'sent and answered',
        'recording keeps',
        'per call ÷ request+answer',
        'file',
        'reads',
        'file text kept',
      ],
      [
        [
          String(size.modelCalls),
          kb(size.callBytes),
          kb(size.storedBytes),
          (size.storedBytes / size.callBytes).toFixed(3),
          kb(size.bigFileBytes),
          String(size.bigFileReads),
          `${kb(size.bigFileStoredBytes)} (once)`,
        ],
      ],
    ),
  );
}

if (require.main === module) void printRecordingBenchmarks();
