/** `npm run bench`: runs every benchmark and prints its table. Nothing here fails on speed. */
import { measureEdits } from './edit-benchmarks';
import { measureEventLoopDelay, MODEL_TURNS, type Protocol } from './loop-benchmarks';
import { measureLoopOverhead } from './loop-overhead';
import { measureListAndLoad, measurePersist } from './store-benchmarks';

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

  console.log(
    '\nStore: persisting 2 KB messages into a store holding 1 MB versus 100 MB (enough of them to include a fold at each size)\n',
  );
  const small = await measurePersist(1);
  const large = await measurePersist(100);
  console.log(
    table(
      ['history', 'ms per message', 'bytes written ÷ message bytes', 'target'],
      [
        ['1 MB', small.msPerMessage.toFixed(3), small.amplification.toFixed(2), '≤ 10'],
        ['100 MB', large.msPerMessage.toFixed(3), large.amplification.toFixed(2), '≤ 10'],
        ['ratio 100 MB ÷ 1 MB', (large.msPerMessage / small.msPerMessage).toFixed(2), '', '≤ 2'],
      ],
    ),
  );
  const listing = await measureListAndLoad();
  console.log(
    '\n' +
      table(
        ['operation', 'ms'],
        [
          [`list ${listing.conversations.toLocaleString()} conversations`, listing.listMs.toFixed(1)],
          [`load a ${listing.messages.toLocaleString()}-message conversation`, listing.loadMs.toFixed(1)],
        ],
      ),
  );

  console.log(
    '\nEdits: one edit_file call replacing a unique line near the end of a big file, versus a plain fs.readFile + fs.writeFile of it (medians)\n',
  );
  const edits = await measureEdits();
  console.log(
    table(
      ['file size', 'runs', 'edit_file (ms)', 'plain read+write (ms)', 'ratio', 'target'],
      edits.map((result) => [
        `${result.sizeMb} MB`,
        String(result.runs),
        result.editMs.toFixed(1),
        result.plainMs.toFixed(1),
        (result.editMs / result.plainMs).toFixed(2),
        result.target,
      ]),
    ),
  );
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
