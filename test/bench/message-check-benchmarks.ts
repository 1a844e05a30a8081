/**
 * Three ways for the webviews to check what the host posts, on the same schemas (the chat's
 * updates, everything the developer panel gets), measured side by side (issue 23):
 *  - zod, as the webviews did before (its locales come along);
 *  - zod/mini, the schemas written in its functional style (zod-mini-source.ts);
 *  - the parsers generated from the schemas (src/protocol/generated/).
 * For each: the bytes of the checks alone and of the chat's first script and the panel's script
 * built with them; in headless Chromium under the webviews' CSP (no eval, so zod runs without
 * its JIT, as in VS Code), the time to parse, compile and run the checks' script (inline, in a
 * fresh page, the source varied so no compile cache helps), the first checks of a chat's
 * messages and a 1,000-event batch (zod sets much up on first use), and the steady cost per
 * event. All three must agree on every message, or the comparison stops.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { gzipSync } from 'node:zlib';
import * as esbuild from 'esbuild';
import type { Browser } from 'playwright-core';
import { webviewCsp } from '../../src/host/chat/webview-csp';
import { chatUpdateSchema } from '../../src/protocol/codegen/host-message-entries';
import { hostToPanelSchema } from '../../src/protocol/messages';
import { launchChromium } from '../harness/chromium';
import { table } from './bench-table';
import { zodMiniModule } from './zod-mini-source';
import { median } from './stats';

const ROOT = path.resolve(__dirname, '..', '..');
export const CHECK_RUNS = Number(process.env.OPENAGENT_BENCH_CHECK_RUNS) || 15;
const ORIGIN = 'http://checks.test';
const NONCE = 'checks0nonce0AAAAAAAAAA';

export interface CheckVariant {
  label: string;
  /** The module exporting parseChatUpdate and parseHostToPanel. */
  source: string;
}

export interface CheckResult {
  label: string;
  checksBytes: number;
  checksGzipBytes: number;
  chatFirstScriptBytes: number;
  panelScriptBytes: number;
  /** Medians over the runs, in milliseconds (per event: microseconds). */
  loadMs: number;
  firstCheckMs: number;
  perEventMicros: number;
}

const protocol = (file: string) => JSON.stringify(path.join(ROOT, 'src', 'protocol', file));

export function checkVariants(): CheckVariant[] {
  return [
    {
      label: 'zod (before)',
      source: [
        `import { chatUpdateSchema } from ${protocol('codegen/host-message-entries')};`,
        `import { hostToPanelSchema } from ${protocol('messages')};`,
        'const parseWith = (schema, raw) => { const result = schema.safeParse(raw); return result.success ? result.data : undefined; };',
        'export const parseChatUpdate = (raw: unknown) => parseWith(chatUpdateSchema, raw);',
        'export const parseHostToPanel = (raw: unknown) => parseWith(hostToPanelSchema, raw);',
      ].join('\n'),
    },
    {
      label: 'zod/mini',
      source: zodMiniModule([
        { name: 'ChatUpdate', schema: chatUpdateSchema },
        { name: 'HostToPanel', schema: hostToPanelSchema },
      ]),
    },
    {
      label: 'generated parsers (now)',
      source: [
        `export { parseChatUpdate } from ${protocol('generated/chat-update-parser')};`,
        `export { parseHostToPanel } from ${protocol('panel-message-check')};`,
      ].join('\n'),
    },
  ];
}

/** Bundles `entry` with the webviews' checks module replaced by `variant`'s; returns the output files. */
async function bundle(variant: CheckVariant, entry: esbuild.BuildOptions['entryPoints'], outdir: string) {
  const swap: esbuild.Plugin = {
    name: 'check-variant',
    setup(build) {
      // The variant itself may import the generated parsers: only others' imports are swapped.
      build.onResolve({ filter: /(^checks:variant$|generated\/chat-update-parser$|\/panel-message-check$)/ }, (args) =>
        args.namespace === 'checks' ? undefined : { path: 'variant', namespace: 'checks' },
      );
      build.onLoad({ filter: /.*/, namespace: 'checks' }, () => ({
        contents: variant.source,
        loader: 'ts',
        resolveDir: ROOT,
      }));
    },
  };
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    entryPoints: entry,
    outdir,
    bundle: true,
    minify: true,
    format: 'esm',
    splitting: true,
    chunkNames: 'chat-[name]',
    platform: 'browser',
    target: 'chrome120',
    legalComments: 'none',
    logLevel: 'error',
    plugins: [swap],
    write: false,
  });
  return result.outputFiles;
}

async function sizes(variant: CheckVariant, dir: string) {
  const probe = path.join(dir, 'probe.ts');
  fs.writeFileSync(
    probe,
    "import { parseChatUpdate, parseHostToPanel } from 'checks:variant';\n(globalThis as Record<string, unknown>).__checks = { parseChatUpdate, parseHostToPanel };\n",
  );
  const checks = (await bundle(variant, { checks: probe }, dir))[0]!.text;
  const chat = await bundle(variant, { chat: 'webview/chat/main.ts' }, dir);
  const panel = await bundle(variant, { panel: 'webview/panel/main.ts' }, dir);
  const named = (files: esbuild.OutputFile[], name: string) => files.find((file) => file.path.endsWith(name))!.contents;
  return {
    checks,
    checksBytes: Buffer.byteLength(checks),
    checksGzipBytes: gzipSync(checks).length,
    chatFirstScriptBytes: named(chat, `${path.sep}chat.js`).length,
    panelScriptBytes: named(panel, `${path.sep}panel.js`).length,
  };
}

/** What the chat gets besides event batches, and what a conversation's events look like. */
function sampleMessages(): { chat: unknown[]; batch: unknown } {
  const base = (seq: number) => ({ conversationId: 'c1', agentId: 'lead', seq, time: 1_700_000_000_000 + seq });
  const usage = { inputTokens: 1200, outputTokens: 80, cacheReadTokens: 900, cacheWriteTokens: 0 };
  const events = Array.from({ length: 1_000 }, (_, seq) => {
    switch (seq % 6) {
      case 0:
        return { ...base(seq), type: 'user_message', text: `Please look at part ${seq}.`, attachments: ['@file:a.ts'] };
      case 1:
        return { ...base(seq), type: 'text_delta', text: 'Reading the file now. ' };
      case 2:
        return {
          ...base(seq),
          type: 'tool_call',
          toolCallId: `t${seq}`,
          toolName: 'read_file',
          input: { path: 'a.ts' },
        };
      case 3:
        return {
          ...base(seq),
          type: 'tool_result',
          toolCallId: `t${seq}`,
          toolName: 'read_file',
          output: 'x'.repeat(400),
          isError: false,
          durationMs: 3,
        };
      case 4:
        return { ...base(seq), type: 'usage', scope: 'call', model: 'm', usage, costUsd: 0.01, reported: true };
      default:
        return { ...base(seq), type: 'done', stopReason: 'end_turn', turns: 2 };
    }
  });
  return {
    chat: [
      { type: 'chat_status', model: 'claude-sonnet-4-5', preset: 'coding' },
      { type: 'draft_restore', text: 'half a prompt' },
      { type: 'queue_state', items: [{ id: 'q1', text: 'next' }], held: { kind: 'reloaded' } },
      { type: 'prompt_result', requestId: 'r1' },
      {
        type: 'chat_notice',
        level: 'warning',
        text: 'No key',
        actions: [{ action: 'set_api_key', label: 'Set API Key' }],
      },
      { type: 'composer_insert', text: '@file:src/app.ts ' },
      { type: 'chat_reset' },
      { type: 'chat_status', model: 'x', preset: 'y', extra: 1 },
    ],
    batch: { type: 'agent_events', events },
  };
}

interface PageFigures {
  loadMs: number;
  firstCheckMs: number;
  perEventMicros: number;
  verdicts: boolean[];
}

async function measureInPage(browser: Browser, checks: string, run: number): Promise<PageFigures> {
  const page = await browser.newPage();
  try {
    const html = `<!DOCTYPE html><html><head><meta http-equiv="Content-Security-Policy" content="${webviewCsp(ORIGIN, NONCE)}"></head><body>
<script nonce="${NONCE}">window.__t0 = performance.now();</script>
<script nonce="${NONCE}">${checks}\n// run ${run}</script>
<script nonce="${NONCE}">window.__t1 = performance.now();</script></body></html>`;
    await page.route('**/*', (route) =>
      route.request().url() === `${ORIGIN}/` ? route.fulfill({ contentType: 'text/html', body: html }) : route.abort(),
    );
    await page.addInitScript('globalThis.__name = globalThis.__name || ((fn) => fn);');
    await page.goto(`${ORIGIN}/`);
    const { chat, batch } = sampleMessages();
    return await page.evaluate(
      ({ chat, batch }) => {
        type Parse = (raw: unknown) => unknown;
        const scope = window as unknown as { __t0: number; __t1: number; __checks: Record<string, Parse> };
        const { parseChatUpdate, parseHostToPanel } = scope.__checks as Record<string, Parse>;
        const started = performance.now();
        const verdicts = chat.map((message) => parseChatUpdate!(message) !== undefined);
        verdicts.push(parseHostToPanel!(batch) !== undefined);
        const firstCheckMs = performance.now() - started;
        const rounds = 20;
        const steady = performance.now();
        for (let round = 0; round < rounds; round++) parseHostToPanel!(batch);
        const events = (batch as { events: unknown[] }).events.length;
        const perEventMicros = ((performance.now() - steady) * 1000) / (rounds * events);
        return { loadMs: scope.__t1 - scope.__t0, firstCheckMs, perEventMicros, verdicts };
      },
      { chat, batch },
    );
  } finally {
    await page.close();
  }
}

export async function measureMessageChecks(): Promise<{
  results: CheckResult[];
  loadBefore: number;
  loadAfter: number;
}> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-checks-'));
  const browser = await launchChromium();
  const loadBefore = os.loadavg()[0]!;
  try {
    const variants = checkVariants();
    const built = [];
    for (const variant of variants) built.push({ variant, ...(await sizes(variant, dir)) });
    const figures = new Map<string, PageFigures[]>(variants.map((variant) => [variant.label, []]));
    let expected: string | undefined;
    // Interleaved: run 1 of each way, then run 2…, so a machine that gets busier touches all alike.
    for (let run = 0; run < CHECK_RUNS; run++)
      for (const item of built) {
        const measured = await measureInPage(browser, item.checks, run);
        const verdicts = JSON.stringify(measured.verdicts);
        if (expected !== undefined && verdicts !== expected)
          throw new Error(`${item.variant.label} disagrees on the sample messages: ${verdicts} vs ${expected}`);
        expected = verdicts;
        figures.get(item.variant.label)!.push(measured);
      }
    const results = built.map(({ variant, checks: _checks, ...bytes }) => {
      const runs = figures.get(variant.label)!;
      return {
        label: variant.label,
        ...bytes,
        loadMs: median(runs.map((run) => run.loadMs)),
        firstCheckMs: median(runs.map((run) => run.firstCheckMs)),
        perEventMicros: median(runs.map((run) => run.perEventMicros)),
      };
    });
    return { results, loadBefore, loadAfter: os.loadavg()[0]! };
  } finally {
    await browser.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** Prints the comparison (for `npm run bench`). */
export async function printMessageChecks(): Promise<void> {
  console.log(
    `\nChecking host messages in the webviews, three ways on the same schemas (headless Chromium under the webviews' CSP, ${CHECK_RUNS} fresh pages each, interleaved; medians)\n`,
  );
  const { results, loadBefore, loadAfter } = await measureMessageChecks();
  const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;
  console.log(
    table(
      [
        'checked with',
        'checks alone (gzip)',
        'chat first script',
        'panel script',
        'parse + compile + run the checks (ms)',
        'first checks: 8 chat messages + 1,000 events (ms)',
        'per event after (µs)',
      ],
      results.map((result) => [
        result.label,
        `${kb(result.checksBytes)} (${kb(result.checksGzipBytes)})`,
        kb(result.chatFirstScriptBytes),
        kb(result.panelScriptBytes),
        result.loadMs.toFixed(2),
        result.firstCheckMs.toFixed(2),
        result.perEventMicros.toFixed(2),
      ]),
    ),
  );
  console.log(`\nLoad average (1 min) before: ${loadBefore.toFixed(1)}; after: ${loadAfter.toFixed(1)}`);
}

if (require.main === module) {
  printMessageChecks().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
