/** Finding things in the VS Code workbench as a user sees it, with Playwright. */
import type { Frame, Page } from 'playwright-core';

export async function waitForWorkbench(page: Page): Promise<void> {
  await page.waitForSelector('.monaco-workbench', { timeout: 60_000 });
}

/** Clicks the activity-bar entry whose label contains `title`. */
export async function openActivity(page: Page, title: string): Promise<void> {
  await page
    .locator(`.activitybar a[aria-label*="${title}"], .activitybar [role="tab"][aria-label*="${title}"]`)
    .first()
    .click();
}

/** A webview's document sits in nested iframes: find the frame that holds `rootSelector`. */
export async function findWebviewFrame(page: Page, rootSelector: string, timeoutMs = 30_000): Promise<Frame> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    for (const frame of page.frames()) {
      try {
        if (await frame.$(rootSelector)) return frame;
      } catch {
        // frames detach while the workbench lays out; try the next one
      }
    }
    await page.waitForTimeout(200);
  }
  throw new Error(`no webview frame containing ${rootSelector} within ${timeoutMs} ms`);
}
