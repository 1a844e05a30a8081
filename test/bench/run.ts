/** `npm run bench`: runs every benchmark and prints its table. Nothing here fails on speed. */
import { measureEventLoopDelay, MODEL_TURNS, type Protocol } from './loop-benchmarks';
import { measureLoopOverhead } from './loop-overhead';

const PROTOCOLS: Protocol[] = ['anthropic', 'openai'];

function table(header: string[], rows: string[][]): string {
  const widths = header.map((cell, column) => Math.max(cell.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(' | ')} |`;
  return [line(header), `|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`, ...rows.map(line)].join('\n');
}

async function main(): Promise<void> {
  console.log(
    `Agent loop overhead: ${MODEL_TURNS} model turns with a tool call each, then a final answer (each side in fresh processes: 3 alternating pairs × 5 timed runs after 3 warm-ups; medians)\n`,
  );
  const overhead = [];
  for (const protocol of PROTOCOLS) overhead.push(measureLoopOverhead(protocol));
  console.log(
    table(
      ['wire format', 'model calls', 'agent loop (ms)', 'raw SDK, same bytes (ms)', 'ratio', 'target'],
      overhead.map((result) => [
        result.protocol,
        String(result.modelCalls),
        result.loopMs.toFixed(0),
        result.rawMs.toFixed(0),
        result.ratio.toFixed(3),
        '≤ 1.10',
      ]),
    ),
  );

  console.log('\nEvent-loop delay while a 400 KB tool argument streams in 8-character deltas\n');
  const delays = [];
  for (const protocol of PROTOCOLS) delays.push(await measureEventLoopDelay(protocol));
  console.log(
    table(
      ['wire format', 'deltas', 'agent loop p99 (ms)', 'agent loop max (ms)', 'raw SDK p99 (ms)', 'target'],
      delays.map((result) => [
        result.protocol,
        String(result.deltas),
        result.loopP99Ms.toFixed(2),
        result.loopMaxMs.toFixed(2),
        result.rawP99Ms.toFixed(2),
        'p99 < 20 ms',
      ]),
    ),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
