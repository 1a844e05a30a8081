/** `npm run bench`: runs every benchmark and prints its table. Nothing here fails on speed. */
import { measureEdits } from './edit-benchmarks';
import { scoreCorpus } from '../fixtures/edit-corpus/corpus';
import { measureEventLoopDelay, MODEL_TURNS, type Protocol } from './loop-benchmarks';
import { measureLoopOverhead } from './loop-overhead';
import { measureListAndLoad, measurePersist } from './store-benchmarks';
import { measureWebview, STREAM_DELTAS } from './webview-benchmarks';
import { measureTokenEstimates } from './token-estimate';
import { measureSandboxCost, measureSandboxPreparation } from './sandbox-cost';
import { countWithTokenizer, measureStartingContext, STARTING_CONTEXT_LIMIT } from './starting-context';
import { table } from './bench-table';
import { measureContextBreakdown } from './context-breakdown';
import { printTeamBenchmarks } from './team-report';
import { printApprovalBenchmarks } from './approval-benchmarks';
import { printActivationBenchmarks } from './activation-report';
import { printMessageChecks } from './message-check-benchmarks';
import { printSessionBenchmarks } from './session-report';
import { printRecordingBenchmarks } from './recording-report';
import { printReplayBenchmarks } from './replay-report';
import { printWebFetchBenchmarks } from './web-fetch-report';
import { printImageBenchmarks } from './image-report';
import { printImageStoreBenchmarks } from './image-store-report';

const PROTOCOLS: Protocol[] = ['anthropic', 'openai'];

async function main(): Promise<void> {
  console.log(
    "Token estimate against a real server's count: llama.cpp's llama-server (Qwen2 tokenizer, Qwen2.5 template), the CLI's opening context and the next request\n",
  );
  const estimates = await measureTokenEstimates();
  console.log(
    table(
      ['request', 'estimate by', 'estimate', 'server count', 'error', 'target'],
      estimates.map((row) => [
        row.request,
        row.method,
        row.estimate.toLocaleString('en-US'),
        row.server.toLocaleString('en-US'),
        `${(((row.estimate - row.server) / row.server) * 100).toFixed(1)} %`,
        row.target,
      ]),
    ),
  );
  console.log('');

  await printStartingContext();

  console.log(
    'Context meter cost per model call: measuring the request by part, watching the prompt cache and scaling to the count, on a history that grows by one exchange per call (medians of 5 rounds), next to the size estimate and the wire conversion every call already makes\n',
  );
  console.log(
    table(
      ['messages', 'calls', 'meter (µs/call)', 'size estimate (µs/call)', 'Anthropic conversion (µs/call)'],
      measureContextBreakdown().map((row) => [
        row.messages.toLocaleString('en-US'),
        String(row.calls),
        row.meterMicros.toFixed(1),
        row.estimateMicros.toFixed(1),
        row.conversionMicros.toFixed(1),
      ]),
    ),
  );
  console.log('');

  console.log(`Sandbox cost per command: plain child process vs confined by bubblewrap (alternating, ${'medians'})\n`);
  const sandbox = await measureSandboxCost();
  if (typeof sandbox === 'string') console.log(`(skipped: ${sandbox})`);
  else
    console.log(
      table(
        ['command', 'runs', 'plain (ms)', 'confined (ms)', 'added (ms)', 'ratio'],
        sandbox.map((row) => [
          row.command,
          String(row.runs),
          row.plainMs.toFixed(1),
          row.confinedMs.toFixed(1),
          (row.confinedMs - row.plainMs).toFixed(1),
          (row.confinedMs / row.plainMs).toFixed(2),
        ]),
      ),
    );
  console.log('');

  console.log('Sandbox preparation per command: protected-set walk, home tool scan, options (medians)\n');
  const preparation = measureSandboxPreparation();
  if (typeof preparation === 'string') console.log(`(skipped: ${preparation})`);
  else
    console.log(
      table(
        ['workspace files', 'runs', 'prepare (ms)'],
        preparation.map((row) => [String(row.files), String(row.runs), row.prepareMs.toFixed(1)]),
      ),
    );
  console.log('');

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

  await printTeamBenchmarks();
  await printApprovalBenchmarks();
  await printSessionBenchmarks();
  await printRecordingBenchmarks();
  await printReplayBenchmarks();
  printWebFetchBenchmarks();
  await printImageBenchmarks();
  await printImageStoreBenchmarks();

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

  console.log(
    '\nEdit corpus: edit requests written from published failure reports (Aider, Cline, Roo, Copilot), through the real edit_file on a real folder\n',
  );
  const corpus = await scoreCorpus();
  console.log(
    table(
      ['cases', 'applied right', 'refused right', 'refused, should apply', 'changed a wrong place', 'target'],
      [
        [
          String(corpus.total),
          `${corpus['applied-right']}/${corpus.toApply}`,
          `${corpus['refused-right']}/${corpus.toRefuse}`,
          String(corpus['refused-wrongly']),
          String(corpus['wrong-place']),
          '0 wrong place',
        ],
      ],
    ),
  );

  console.log(
    `\nStream to screen: a ${STREAM_DELTAS.toLocaleString()}-delta markdown answer through the real ChatController into the built chat webview in headless Chromium\n`,
  );
  const webview = await measureWebview();
  console.log(
    table(
      [
        'scenario',
        'deltas/s',
        'posts',
        'posts per delta',
        'bytes per delta',
        'text bytes per delta',
        'one post per delta: bytes per delta',
        'bytes ÷ text bytes',
        'target',
      ],
      webview.streams.map((result) => [
        result.scenario,
        result.tokensPerSecond.toFixed(0),
        String(result.posts),
        (result.posts / result.deltas).toFixed(3),
        (result.bytes / result.deltas).toFixed(1),
        (result.textBytes / result.deltas).toFixed(1),
        (result.unbatchedBytes / result.deltas).toFixed(1),
        (result.bytes / result.textBytes).toFixed(2),
        '≤ 1 post per frame',
      ]),
    ),
  );
  console.log(
    '\n' +
      table(
        [
          'scenario',
          'deltas painted',
          'post → paint p50 (ms)',
          'p95 (ms)',
          'max (ms)',
          'emit → paint p95 (ms)',
          'frame (ms)',
          'DOM nodes after',
          'target',
        ],
        webview.streams.map((result) => [
          result.scenario,
          `${result.painted}/${result.deltas}`,
          result.postToPaint.p50.toFixed(1),
          result.postToPaint.p95.toFixed(1),
          result.postToPaint.max.toFixed(1),
          result.emitToPaint.p95.toFixed(1),
          result.frameIntervalMs.toFixed(1),
          String(result.domNodes),
          'p95 ≤ 50 ms',
        ]),
      ),
  );
  const open = webview.open;
  const sorted = [...open.openMs].sort((a, b) => a - b);
  console.log(
    `\nLong conversation: reopening ${open.messages.toLocaleString()} messages (${open.events.toLocaleString()} events after merging deltas, ${(open.replayBytes / 1e6).toFixed(1)} MB posted) in a freshly loaded chat, until the frame showing its end is painted (${open.openMs.length} runs)\n`,
  );
  console.log(
    table(
      ['figure', 'value', 'target'],
      [
        ['open and paint, median (ms)', sorted[Math.floor(sorted.length / 2)]!.toFixed(0), '≤ 300'],
        ['open and paint, slowest (ms)', sorted.at(-1)!.toFixed(0), ''],
        ['DOM nodes (elements, text; shadow roots included)', String(open.domNodes), '< 3,000'],
        ['elements', String(open.domElements), ''],
        ['turns in the DOM', String(open.turnsInDom), ''],
        ['jump to the first message and paint (ms)', open.jumpToStartMs.toFixed(0), ''],
      ],
    ),
  );

  await printMessageChecks();
  await printActivationBenchmarks();
}

/** The system prompt and every built-in tool's schema, as the editor's first request carries them. */
async function printStartingContext(): Promise<void> {
  console.log(
    "Starting context: system prompt + every built-in tool's schema in the editor's first request, by the product's estimate (characters ÷ 4) and by a real tokenizer (Qwen2's in llama.cpp, chat template included)\n",
  );
  const contexts = await measureStartingContext();
  const real = await countWithTokenizer(contexts.map((context) => context.wire)).catch((error: unknown) => {
    console.log(`(no tokenizer count: ${error instanceof Error ? error.message.split('\n')[0] : String(error)})`);
    return undefined;
  });
  const count = (value: number | undefined) => (value === undefined ? 'n/a' : value.toLocaleString('en-US'));
  console.log(
    table(
      ['setting', 'tools', 'by', 'system prompt', 'tool schemas', 'total', 'target'],
      contexts.flatMap((context, index) => {
        const system = context.parts[0]!.tokens;
        const target = index === 0 ? `≤ ${count(STARTING_CONTEXT_LIMIT)}` : 'opt-in, not guarded';
        const counted = real?.[index];
        return [
          [
            context.setting,
            String(context.parts.length - 1),
            'estimate (chars ÷ 4)',
            count(system),
            count(context.tokens - system),
            count(context.tokens),
            target,
          ],
          [
            '',
            '',
            'Qwen2 tokenizer',
            count(counted?.system),
            counted ? `${count(counted.total - counted.system)} (with template)` : 'n/a',
            count(counted?.total),
            '',
          ],
        ];
      }),
    ),
  );
  const biggest = [...contexts[0]!.parts].sort((a, b) => b.tokens - a.tokens).slice(0, 8);
  console.log(
    '\n' +
      table(
        ['biggest parts (default)', 'characters', 'estimate', 'share'],
        biggest.map((part) => [
          part.name,
          count(part.characters),
          count(part.tokens),
          `${((part.tokens / contexts[0]!.tokens) * 100).toFixed(1)} %`,
        ]),
      ),
  );
  console.log('');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
