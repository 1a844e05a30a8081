/**
 * Mocha hooks for a suite of tests on a built webview in plain Chromium: one browser for the
 * suite and a fresh page per test, closed after it — opened before each test with `options`, or
 * by the test itself with `open` when it needs its own size.
 */
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../harness/chromium';
import { openWebviewPage, type WebviewPageOptions } from '../harness/webview-page';

export interface WebviewPages {
  /** The current test's page (opened before it, or by `open`). */
  readonly page: Page;
  /** Opens the test's page with `options` (closing one opened before it). */
  open(options: WebviewPageOptions): Promise<Page>;
}

export function webviewPages(options?: WebviewPageOptions): WebviewPages {
  let browser: Browser | undefined;
  let current: Page | undefined;
  const open = async (pageOptions: WebviewPageOptions) => {
    await current?.close();
    if (!browser) throw new Error('Chromium is not running: webviewPages must be called inside describe().');
    current = await openWebviewPage(browser, pageOptions);
    return current;
  };
  before(async () => {
    browser = await launchChromium();
  });
  after(() => browser?.close());
  if (options) beforeEach(() => open(options).then(() => undefined));
  afterEach(async () => {
    await current?.close();
    current = undefined;
  });
  return {
    get page() {
      if (!current) throw new Error('No webview page is open for this test.');
      return current;
    },
    open,
  };
}
