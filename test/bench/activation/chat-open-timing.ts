/**
 * A webview view opened from the activity bar (OpenAgent's chat, or the bare view the bench
 * compares it with), timed from the click (the mousedown the workbench receives) to the
 * webview's first contentful paint and to its input taking typing (composer-watch.js watches
 * that from inside the workbench), with where the time went. The input is then typed into, to
 * be sure it takes it.
 */
import assert from 'node:assert/strict';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { PATIENCE_MS, waitUntil } from '../../harness/patience';
import { findWebviewFrame, openActivity } from '../../e2e/workbench-ui';

const WATCH = path.join(__dirname, 'composer-watch.js');

/** Milliseconds from the click; the steps are medians' material for "where the time went". */
export interface ChatOpenTiming {
  /** The chat document's first contentful paint (VS Code shows the webview once it has loaded). */
  firstPaintMs: number;
  /** The first frame showing the composer, laid out and enabled. */
  composerPaintedMs: number;
  /** The first moment after that frame the page could handle a keystroke. */
  composerReadyMs: number;
  /** VS Code created the webview's frame (it activates OpenAgent meanwhile). */
  webviewCreatedMs: number;
  /** The webview's frame loaded its document, its service worker was ready, it made the frame for the page. */
  frameLoadedMs?: number;
  workerReadyMs?: number;
  pageFrameCreatedMs?: number;
  /** OpenAgent's page was written into the webview (activated, the view resolved). */
  contentWrittenMs?: number;
  /** The chat's first script had arrived. */
  scriptArrivedMs?: number;
  /** The extension host began to load OpenAgent's code, and activate() returned (filled in by the bench). */
  activationStartedMs?: number;
  activatedMs?: number;
  /** The mousedown, in epoch milliseconds (the other figures count from it). */
  clickedAt: number;
}

interface Watch {
  extensionId: string;
  webviewCreated: number;
  frameLoaded?: number;
  workerReady?: number;
  pageFrameCreated?: number;
  contentWritten?: number;
  scriptArrived?: number;
  painted?: number;
  ready?: number;
}

declare global {
  interface Window {
    __openagentComposer?: Watch;
    __openagentClick?: number;
    __openagentWatching?: boolean;
  }
}

/** A webview view in the activity bar, and its input (see composer-watch.js). */
export interface TimedView {
  /** The activity bar entry's title. */
  activity: string;
  extensionId: string;
  /** The input typed into. */
  input: string;
}

export const OPENAGENT_CHAT: TimedView = {
  activity: 'OpenAgent',
  extensionId: 'openagent.openagent',
  input: '#openagent-chat #prompt textarea',
};

/** The least a webview view can be (test/fixtures/extensions/bare-webview-view): the editor's floor. */
export const BARE_WEBVIEW_VIEW: TimedView = {
  activity: 'Bare Webview',
  extensionId: 'openagent-bench.bare-webview-view',
  input: '#bare-webview textarea',
};

export async function openViewTimed(page: Page, view: TimedView = OPENAGENT_CHAT): Promise<ChatOpenTiming> {
  if (!(await page.evaluate(() => window.__openagentWatching ?? false))) {
    await page.addInitScript({ path: WATCH });
    await page.evaluate(() => (window.__openagentWatching = true));
  }
  await page.evaluate(() =>
    document.addEventListener(
      'mousedown',
      (event) => (window.__openagentClick = performance.timeOrigin + event.timeStamp),
      {
        capture: true,
        once: true,
      },
    ),
  );
  const before = Date.now();
  await openActivity(page, view.activity);
  const watch = await waitUntil(
    async () => {
      for (const frame of page.frames()) {
        const found = await frame.evaluate(() => window.__openagentComposer).catch(() => undefined);
        if (found?.extensionId === view.extensionId && found.ready !== undefined) return found;
      }
      return undefined;
    },
    `the ${view.activity} view's input to take typing`,
    PATIENCE_MS,
    25,
  );
  const clicked = (await page.evaluate(() => window.__openagentClick)) ?? before;
  const frame = await findWebviewFrame(page, view.input);
  const painted = await waitUntil(() => firstContentfulPaint(frame), 'the webview to paint', PATIENCE_MS, 25);
  await assertTakesInput(frame, view.input);
  const since = (time: number) => time - clicked;
  const maybeSince = (time: number | undefined) => (time === undefined ? undefined : since(time));
  return {
    firstPaintMs: since(painted),
    composerPaintedMs: since(watch.painted!),
    composerReadyMs: since(watch.ready!),
    webviewCreatedMs: since(watch.webviewCreated),
    frameLoadedMs: maybeSince(watch.frameLoaded),
    workerReadyMs: maybeSince(watch.workerReady),
    pageFrameCreatedMs: maybeSince(watch.pageFrameCreated),
    contentWrittenMs: maybeSince(watch.contentWritten),
    scriptArrivedMs: maybeSince(watch.scriptArrived),
    clickedAt: clicked,
  };
}

function firstContentfulPaint(frame: Frame): Promise<number | undefined> {
  return frame.evaluate(() => {
    const paint = performance.getEntriesByType('paint').find((entry) => entry.name === 'first-contentful-paint');
    return paint ? performance.timeOrigin + paint.startTime : undefined;
  });
}

/** A key typed into the composer lands there (then the composer is left empty again). */
async function assertTakesInput(frame: Frame, selector: string): Promise<void> {
  const input = frame.locator(selector);
  await input.press('x');
  assert.equal(await input.inputValue(), 'x', 'the composer takes a typed key');
  await input.fill('');
}
