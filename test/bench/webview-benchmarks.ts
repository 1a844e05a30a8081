/**
 * Chat webview benchmarks, measured in headless Chromium (TESTING.md "Stream to screen" and
 * "Long conversations"). The built chat bundle (dist/webview/chat.js + media/chat.css) runs
 * in a page with a stub `acquireVsCodeApi`; the real host-side ChatController (with its
 * per-frame Batcher) runs here in Node between a fake session and a fake webview that
 * forwards every post into the page, where it arrives as a `message` event as in VS Code.
 *  (a) posts and bytes from host to webview per streamed token;
 *  (b) token-to-paint latency: from a post reaching the page to the end of the first frame
 *      whose rendering shows it (requestAnimationFrame + performance.now() in the page);
 *  (c) opening a 5,000-message conversation: time to paint its end, and DOM nodes.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { HostToWebview } from '../../src/protocol/messages';
import { fakeChatHost, type FakeSession } from '../fixtures/fake-chat-host';
import { launchChromium } from '../harness/chromium';
import { countDomNodes, openWebviewPage } from '../harness/webview-page';

const ROOT = path.resolve(__dirname, '..', '..');
/** The chat bundle measured: built from the sources now (see buildChatBundle). */
let chatScript = '';
export const STREAM_DELTAS = 3_000;
export const CONVERSATION_MESSAGES = 5_000;
const OPEN_RUNS = 5;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? NaN;
}

/**
 * Delta `index` of a long markdown answer: one word carrying its number (`w17`), so the page
 * can tell which deltas it shows, in paragraphs with a list and a code block now and then.
 */
function delta(index: number): string {
  let prefix = '';
  const inList = index % 400 >= 200 && index % 400 < 205;
  if (index % 500 === 250) prefix = '\n\n```ts\n';
  else if (index % 500 === 280) prefix = '\n```\n\n';
  else if (index % 500 > 250 && index % 500 < 280) prefix = index % 6 === 0 ? '\n' : '';
  else if (inList) prefix = index % 400 === 200 ? '\n\n- ' : '\n- ';
  else if (index % 40 === 0 || index % 400 === 205) prefix = '\n\n';
  return `${prefix}w${index}${index % 7 === 3 ? ',' : ''} `;
}

/** One answer of the long conversation, streamed as ~8-character deltas. */
function answer(index: number): string {
  const paragraphs = 1 + (index % 4);
  const parts = [`Here is what part **${index}** does.`];
  for (let paragraph = 0; paragraph < paragraphs; paragraph++)
    parts.push(`It reads \`src/part${index}.ts\`, checks the input and returns a result for case ${paragraph}.`);
  if (index % 3 === 0) parts.push(`- first step\n- second step\n- third step`);
  if (index % 5 === 0) parts.push('```ts\nexport function part(): number {\n  return 42;\n}\n```');
  parts.push(`End of answer ${index}.`);
  return parts.join('\n\n');
}

/** Fills a session with a conversation of `messages` messages, as it would be after streaming it. */
function recordConversation(session: FakeSession, messages: number): void {
  for (let index = 0; index < messages / 2; index++) {
    session.emit({ type: 'user_message', text: `Question ${index}: what does part ${index} do?` });
    const text = answer(index);
    for (let offset = 0; offset < text.length; offset += 8)
      session.emit({ type: 'text_delta', text: text.slice(offset, offset + 8) });
    if (index % 4 === 1) {
      session.emit({
        type: 'tool_call',
        toolCallId: `t${index}`,
        toolName: 'read_file',
        input: { path: `src/part${index}.ts` },
      });
      session.emit({
        type: 'tool_result',
        toolCallId: `t${index}`,
        toolName: 'read_file',
        output: 'export const x = 1;',
        isError: false,
        durationMs: 2,
      });
    }
    session.emit({ type: 'done', stopReason: 'end_turn', turns: 1 });
  }
}

/** Page-side instruments: post times per delta number, and paint times found after each frame. */
async function instrument(page: Page): Promise<void> {
  await page.evaluate(() => {
    const postedAt = new Map<number, number>();
    const paintedAt = new Map<number, number>();
    const frameTimes: number[] = [];
    let shown = -1;
    let running = true;
    const channel = new MessageChannel();
    // Runs as the first task after a frame's rendering: what the DOM shows now was painted in it.
    channel.port1.onmessage = () => {
      const now = performance.now();
      const answers = document.querySelectorAll('.turn-assistant');
      const last = answers[answers.length - 1];
      if (!last) return;
      let text = '';
      for (
        let child = last.lastElementChild, count = 0;
        child && count < 3;
        child = child.previousElementSibling, count++
      )
        text = `${child.textContent ?? ''} ${text}`;
      let highest = shown;
      for (const match of text.matchAll(/\bw(\d+)\b/g)) highest = Math.max(highest, Number(match[1]));
      for (let index = shown + 1; index <= highest; index++) paintedAt.set(index, now);
      shown = highest;
    };
    const frame = (time: number) => {
      frameTimes.push(time);
      channel.port2.postMessage(0);
      if (running) requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    Object.assign(window, {
      __bench: {
        deliver(message: { type: string; events?: Array<{ type: string; text?: string }> }) {
          const now = performance.now();
          for (const event of message.events ?? [])
            if (event.type === 'text_delta')
              for (const match of (event.text ?? '').matchAll(/\bw(\d+)\b/g)) postedAt.set(Number(match[1]), now);
          window.postMessage(message, '*');
        },
        results() {
          running = false;
          const latencies: Array<[number, number]> = [];
          for (const [index, posted] of postedAt) {
            const painted = paintedAt.get(index);
            if (painted !== undefined) latencies.push([index, painted - posted]);
          }
          const intervals = frameTimes.slice(1).map((time, index) => time - frameTimes[index]!);
          return { latencies, posted: postedAt.size, intervals };
        },
      },
    });
  });
}

export interface StreamResult {
  scenario: string;
  deltas: number;
  tokensPerSecond: number;
  posts: number;
  bytes: number;
  textBytes: number;
  /** Bytes if every delta were posted alone, as its own agent_events message. */
  unbatchedBytes: number;
  postToPaint: { p50: number; p95: number; max: number };
  /** Host batching delay (emit → post, in Node) plus post → paint (in the page), per delta. */
  emitToPaint: { p50: number; p95: number };
  painted: number;
  frameIntervalMs: number;
  domNodes: number;
}

/** Streams a long answer through the real ChatController into the page; `history` messages come first. */
async function measureStream(browser: Browser, scenario: string, history: number): Promise<StreamResult> {
  const page = await openWebviewPage(browser, { scriptPath: chatScript });
  const deliveries: Array<Promise<unknown>> = [];
  const forward = (message: HostToWebview) =>
    deliveries.push(
      page.evaluate(
        (posted) => (window as unknown as { __bench: { deliver(m: unknown): void } }).__bench.deliver(posted),
        message,
      ),
    );
  const { webview, session, controller } = fakeChatHost(forward);
  recordConversation(session, history);
  await instrument(page);
  webview.send({ type: 'webview_ready' });
  await Promise.all(deliveries);
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 500)));
  session.emit({ type: 'user_message', text: 'Write a long answer.' });
  await sleep(50);

  const firstPost = webview.posts.length;
  const emittedAt: number[] = [];
  const started = performance.now();
  for (let index = 0; index < STREAM_DELTAS; index++) {
    emittedAt.push(performance.now());
    session.emit({ type: 'text_delta', text: delta(index) });
    // About 2,000 deltas a second: several per frame, as a fast model streams.
    if (index % 2 === 1) await sleep(1);
  }
  const elapsed = (performance.now() - started) / 1000;
  session.emit({ type: 'done', stopReason: 'end_turn', turns: 1 });
  await sleep(100);
  await Promise.all(deliveries);
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
  const results = await page.evaluate(() =>
    (
      window as unknown as {
        __bench: { results(): { latencies: Array<[number, number]>; posted: number; intervals: number[] } };
      }
    ).__bench.results(),
  );
  const nodes = await countDomNodes(page);
  controller.dispose();
  await page.close();

  const posts = webview.posts.slice(firstPost);
  // When each delta left the host (Node's clock): the post that carried it.
  const postedAt = new Map<number, number>();
  for (const post of posts)
    if (post.message.type === 'agent_events')
      for (const event of post.message.events)
        if (event.type === 'text_delta')
          for (const match of event.text.matchAll(/\bw(\d+)\b/g)) postedAt.set(Number(match[1]), post.at);
  const latencies = results.latencies.map(([, latency]) => latency);
  const endToEnd = results.latencies.map(
    ([index, latency]) => (postedAt.get(index) ?? NaN) - emittedAt[index]! + latency,
  );
  const stamp = { conversationId: session.conversationId, agentId: 'lead', seq: 1_000_000, time: Date.now() };
  let unbatchedBytes = 0;
  for (let index = 0; index < STREAM_DELTAS; index++)
    unbatchedBytes += Buffer.byteLength(
      JSON.stringify({ type: 'agent_events', events: [{ ...stamp, type: 'text_delta', text: delta(index) }] }),
    );
  return {
    scenario,
    deltas: STREAM_DELTAS,
    tokensPerSecond: STREAM_DELTAS / elapsed,
    posts: posts.length,
    bytes: posts.reduce((sum, post) => sum + post.bytes, 0),
    textBytes: Buffer.byteLength(Array.from({ length: STREAM_DELTAS }, (_, index) => delta(index)).join('')),
    unbatchedBytes,
    postToPaint: { p50: percentile(latencies, 0.5), p95: percentile(latencies, 0.95), max: Math.max(...latencies) },
    emitToPaint: { p50: percentile(endToEnd, 0.5), p95: percentile(endToEnd, 0.95) },
    painted: latencies.length,
    frameIntervalMs: percentile(results.intervals, 0.5),
    domNodes: nodes.nodes,
  };
}

export interface OpenResult {
  messages: number;
  events: number;
  replayBytes: number;
  openMs: number[];
  domNodes: number;
  domElements: number;
  turnsInDom: number;
  jumpToStartMs: number;
}

/** Reopens a 5,000-message conversation in a freshly loaded chat, OPEN_RUNS times. */
async function measureOpen(browser: Browser): Promise<OpenResult> {
  const { webview, session, controller } = fakeChatHost();
  recordConversation(session, CONVERSATION_MESSAGES);
  webview.send({ type: 'webview_ready' });
  await sleep(0);
  const replay = webview.posts.map((post) => post.message);
  const replayBytes = webview.posts.reduce((sum, post) => sum + post.bytes, 0);
  controller.dispose();
  const lastAnswer = `End of answer ${CONVERSATION_MESSAGES / 2 - 1}.`;

  const openMs: number[] = [];
  let figures: Omit<OpenResult, 'messages' | 'events' | 'replayBytes' | 'openMs'> | undefined;
  for (let run = 0; run < OPEN_RUNS; run++) {
    const page = await openWebviewPage(browser, { scriptPath: chatScript });
    // Posted the way the host does on webview_ready; timed until the frame that shows the end is painted.
    openMs.push(
      await page.evaluate(
        async ({ messages, last }) => {
          const afterNextFrame = () =>
            new Promise<number>((resolve) =>
              requestAnimationFrame(() => {
                const channel = new MessageChannel();
                channel.port1.onmessage = () => resolve(performance.now());
                channel.port2.postMessage(0);
              }),
            );
          const started = performance.now();
          for (const message of messages) window.postMessage(message, '*');
          for (;;) {
            const painted = await afterNextFrame();
            const answers = document.querySelectorAll('.turn-assistant');
            const scroller = document.getElementById('transcript')!;
            const atEnd = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 2;
            if (answers[answers.length - 1]?.textContent?.includes(last) && atEnd) return painted - started;
          }
        },
        { messages: replay, last: lastAnswer },
      ),
    );
    if (run === OPEN_RUNS - 1) {
      const nodes = await countDomNodes(page);
      const turnsInDom = await page.locator('.turn').count();
      const jumpToStartMs = await page.evaluate(async () => {
        const scroller = document.getElementById('transcript')!;
        const started = performance.now();
        scroller.scrollTop = 0;
        for (;;) {
          const painted = await new Promise<number>((resolve) =>
            requestAnimationFrame(() => {
              const channel = new MessageChannel();
              channel.port1.onmessage = () => resolve(performance.now());
              channel.port2.postMessage(0);
            }),
          );
          if (document.querySelector('.turn-user')?.textContent?.startsWith('Question 0:')) return painted - started;
        }
      });
      figures = { domNodes: nodes.nodes, domElements: nodes.elements, turnsInDom, jumpToStartMs };
    }
    await page.close();
  }
  const events = replay.reduce(
    (sum, message) => sum + (message.type === 'agent_events' ? message.events.length : 0),
    0,
  );
  return { messages: CONVERSATION_MESSAGES, events, replayBytes, openMs, ...figures! };
}

/**
 * Builds the webviews as `npm run package` does (esbuild.mjs --production) and copies the chat's
 * scripts (its first script and the chunk it loads) into a folder of their own, so a build
 * running meanwhile cannot remove them.
 */
function buildChatBundle(): string {
  execFileSync(process.execPath, ['esbuild.mjs', '--production'], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-webview-bench-'));
  const built = path.join(ROOT, 'dist', 'webview');
  for (const file of fs.readdirSync(built))
    if (file.startsWith('chat') && file.endsWith('.js'))
      fs.copyFileSync(path.join(built, file), path.join(outdir, file));
  return path.join(outdir, 'chat.js');
}

export async function measureWebview(): Promise<{ streams: StreamResult[]; open: OpenResult }> {
  chatScript = buildChatBundle();
  const browser = await launchChromium();
  try {
    const open = await measureOpen(browser);
    const streams = [
      await measureStream(browser, 'new chat', 0),
      await measureStream(browser, `after ${CONVERSATION_MESSAGES.toLocaleString()} messages`, CONVERSATION_MESSAGES),
    ];
    return { streams, open };
  } finally {
    await browser.close();
  }
}
