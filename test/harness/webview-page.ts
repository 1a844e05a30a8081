/**
 * A built webview (dist/webview/<name>.js + media/<name>.css) in a plain Chromium page, with
 * a stub `acquireVsCodeApi` that records what the webview posts: the host's side of the
 * conversation is played by the test, which delivers host messages as `message` events, the
 * way VS Code does. The page is made as the extension makes it (webview-document.ts: the script
 * and stylesheet written in, the Content-Security-Policy: no eval, no remote loads), so the
 * script runs under the same rules as in VS Code. No code-server: for fast tests and
 * benchmarks of the webview itself.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import type { AgentEvent, AgentEventBody } from '../../src/core/events/events';
import { webviewDocument } from '../../src/host/chat/webview-document';
import { PATIENCE_MS } from './patience';

const ROOT = path.resolve(__dirname, '..', '..');
const ORIGIN = 'http://webview.test';

/** CSS variables a VS Code dark theme provides, so the page looks (and lays out) like the real view. */
const THEME = `
  :root {
    --vscode-font-family: system-ui, sans-serif; --vscode-font-size: 13px;
    --vscode-editor-font-family: monospace; --vscode-editor-font-size: 13px;
    --vscode-foreground: #cccccc; --vscode-sideBar-background: #181818;
    --vscode-input-background: #313131; --vscode-input-border: #3c3c3c;
    --vscode-textCodeBlock-background: #2b2b2b; --vscode-badge-background: #616161;
    --vscode-badge-foreground: #f8f8f8; --vscode-descriptionForeground: #9d9d9d;
    --vscode-errorForeground: #f85149; --vscode-editorWarning-foreground: #cca700;
    --vscode-testing-iconPassed: #73c991; --vscode-editorInfo-foreground: #3794ff;
  }`;

const NONCE = 'bench0nonce0AAAAAAAAAAA';

export interface WebviewPageOptions {
  /** The bundle and stylesheet name: "chat" loads dist/webview/chat.js and media/chat.css. */
  name?: string;
  /** The bundle to load instead of dist/webview/<name>.js (what it loads later sits beside it). */
  scriptPath?: string;
  /** The id of the element the script mounts into. */
  rootId?: string;
  width?: number;
  height?: number;
  /** The message the script posts once it is ready (default: the chat's "webview_ready"). */
  readyMessage?: string;
  /**
   * Holds back the script the page loads after its first paint until this settles: true serves
   * it, false fails its request. Meanwhile the test sees the page as it is before (and the page
   * is returned without waiting for that script).
   */
  laterScriptGate?: Promise<boolean>;
}

/**
 * Opens the webview in a new page and waits until its script has said it is ready and has
 * loaded all its code (the chat's transcript stops being aria-busy once its chunk is in).
 */
export async function openWebviewPage(browser: Browser, options: WebviewPageOptions = {}): Promise<Page> {
  const name = options.name ?? 'chat';
  const script = options.scriptPath ?? path.join(ROOT, 'dist', 'webview', `${name}.js`);
  if (!fs.existsSync(script)) throw new Error(`${script} is missing: build it with "node esbuild.mjs"`);
  const page = await browser.newPage({ viewport: { width: options.width ?? 380, height: options.height ?? 800 } });
  page.setDefaultTimeout(PATIENCE_MS);
  const folder = path.dirname(script);
  // What the page loads after its first paint (the chat's conversation), beside its script.
  const later = path.join(folder, `${path.basename(script, '.js')}-conversation.js`);
  const files: Record<string, { body: Buffer; contentType: string }> = {
    '/index.html': {
      contentType: 'text/html',
      body: Buffer.from(
        webviewDocument({
          title: name,
          cspSource: ORIGIN,
          nonce: NONCE,
          rootId: options.rootId ?? `openagent-${name}`,
          script: fs.readFileSync(script, 'utf8'),
          stylesheet: fs.readFileSync(path.join(ROOT, 'media', `${name}.css`), 'utf8'),
          head: `<style nonce="${NONCE}">${THEME}</style>`,
          ...(fs.existsSync(later) ? { laterScriptUrl: `/${path.basename(later)}` } : {}),
        }),
      ),
    },
  };
  if (fs.existsSync(later))
    files[`/${path.basename(later)}`] = { contentType: 'text/javascript', body: fs.readFileSync(later) };
  // Everything is served from memory; any other request (there should be none) fails.
  await page.route('**/*', async (route) => {
    const url = new URL(route.request().url());
    const file = url.origin === ORIGIN ? files[url.pathname] : undefined;
    const held = url.pathname === `/${path.basename(later)}` && options.laterScriptGate;
    if (held && !(await held)) return route.abort();
    return file ? route.fulfill({ status: 200, ...file }) : route.abort();
  });
  // A string, not a function: functions are serialised from tsx's output, which may call
  // esbuild's `__name` helper; the shim lets page.evaluate() callbacks of tests use it too.
  await page.addInitScript(`
    globalThis.__name = globalThis.__name || ((fn) => fn);
    const posted = [];
    window.__posted = posted;
    window.acquireVsCodeApi = () => ({
      postMessage: (message) => posted.push(message),
      getState: () => undefined,
      setState: () => {},
    });`);
  await page.goto(`${ORIGIN}/index.html`);
  await page.waitForFunction(
    (ready) =>
      ((window as unknown as { __posted: Array<{ type?: string }> }).__posted ?? []).some(
        (message) => message.type === ready,
      ),
    options.readyMessage ?? 'webview_ready',
  );
  if (!options.laterScriptGate) await page.waitForSelector('[aria-busy="true"]', { state: 'detached' });
  return page;
}

/** Delivers host messages to the webview, as VS Code does (a `message` event each). */
export async function deliver(page: Page, messages: unknown[]): Promise<void> {
  await page.evaluate((list) => {
    for (const message of list) window.postMessage(message, '*');
  }, messages);
}

/** Waits until `count` frames have been rendered. */
export async function frames(page: Page, count = 3): Promise<void> {
  await page.evaluate(async (n) => {
    for (let frame = 0; frame < n; frame++) await new Promise((resolve) => requestAnimationFrame(resolve));
  }, count);
}

/** What the webview posted to the host so far. */
export function postedByWebview(page: Page): Promise<unknown[]> {
  return page.evaluate(() => (window as unknown as { __posted: unknown[] }).__posted);
}

/** Nodes in the document, the light DOM and open shadow roots alike (elements, text, comments). */
export function countDomNodes(page: Page): Promise<{ elements: number; nodes: number }> {
  return page.evaluate(() => {
    let elements = 0;
    let nodes = 0;
    const visit = (root: Node) => {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_ALL);
      for (let node: Node | null = walker.currentNode; node; node = walker.nextNode()) {
        nodes++;
        if (node instanceof Element) {
          elements++;
          if (node.shadowRoot) visit(node.shadowRoot);
        }
      }
    };
    visit(document);
    return { elements, nodes };
  });
}

let seq = 0;

/** An event of conversation c1 as the host sends it, numbered in the order made. */
export function agentEvent(body: AgentEventBody, agentId = 'lead'): AgentEvent {
  return { conversationId: 'c1', agentId, seq: seq++, time: 0, ...body } as AgentEvent;
}

/** The host's message carrying `bodies` as the lead's events. */
export function agentEvents(...bodies: AgentEventBody[]): { type: 'agent_events'; events: AgentEvent[] } {
  return { type: 'agent_events', events: bodies.map((body) => agentEvent(body)) };
}

/** Numbers the next events from 0 again (a conversation replayed as it was). */
export function restartEventNumbers(): void {
  seq = 0;
}
