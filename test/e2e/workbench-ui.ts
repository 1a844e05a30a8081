/**
 * Finding things in the VS Code workbench as a user sees it, with Playwright. Every wait is for
 * a condition with a generous deadline (test/harness/patience.ts; the workbench pages have it as
 * their default timeout), never for a fixed time.
 */
import * as path from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import { PATIENCE_MS, waitUntil } from '../harness/patience';

export async function waitForWorkbench(page: Page): Promise<void> {
  await page.waitForSelector('.monaco-workbench');
}

/** Clicks the activity-bar entry whose label contains `title`. */
export async function openActivity(page: Page, title: string): Promise<void> {
  await page
    .locator(`.activitybar a[aria-label*="${title}"], .activitybar [role="tab"][aria-label*="${title}"]`)
    .first()
    .click();
}

/** A webview's document sits in nested iframes: find the frame that holds `rootSelector`. */
export async function findWebviewFrame(page: Page, rootSelector: string, timeoutMs = PATIENCE_MS): Promise<Frame> {
  return waitUntil(
    async () => {
      for (const frame of page.frames()) {
        try {
          if (await frame.$(rootSelector)) return frame;
        } catch {
          // frames detach while the workbench lays out; try the next one
        }
      }
      return undefined;
    },
    `a webview frame containing ${rootSelector}`,
    timeoutMs,
    200,
  );
}

/** Waits for the notification (a toast, a modal dialog, or a row of the open notification center) whose text contains `text`. */
export async function waitForNotification(page: Page, text: string, timeoutMs = PATIENCE_MS): Promise<Locator> {
  const toast = page.locator('.notification-toast, .monaco-dialog-box, .notifications-center .monaco-list-row', {
    hasText: text,
  });
  await toast.waitFor({ timeout: timeoutMs });
  return toast;
}

/** Clicks the button of a notification whose label is exactly `label`. */
export async function clickNotificationButton(toast: Locator, label: string): Promise<void> {
  // A toast's buttons and a modal dialog's are both buttons by role, named by their label.
  await toast.getByRole('button', { name: label, exact: true }).first().click();
}

/**
 * The terminal shown in the panel: its name (from the panel's single-terminal tab) and the rows
 * on screen as text. xterm.js only puts its rows in the DOM with its DOM renderer, so the session
 * needs the setting `"terminal.integrated.gpuAcceleration": "off"` (WebGL draws on a canvas).
 */
export async function readTerminalPanel(page: Page): Promise<{ name: string; text: string }> {
  const panel = page.locator('.part.panel');
  const name = (await panel.locator('.single-terminal-tab').first().innerText()).trim();
  const rows = await panel.locator('.terminal-wrapper.active .xterm-rows > div').allInnerTexts();
  return { name, text: rows.map((row) => row.replace(/\u00a0/g, ' ').trimEnd()).join('\n') };
}

/** Waits until the terminal shown in the panel has every one of `patterns` on screen. */
export async function waitForTerminalText(
  page: Page,
  patterns: RegExp[],
  timeoutMs = PATIENCE_MS,
): Promise<{ name: string; text: string }> {
  let last = { name: '', text: '' };
  return waitUntil(
    async () => {
      last = await readTerminalPanel(page).catch(() => last);
      return patterns.every((pattern) => pattern.test(last.text)) && last;
    },
    () => `the terminal "${last.name}" to show ${patterns.join(', ')}; it shows:\n${last.text}`,
    timeoutMs,
    250,
  );
}

/** Opens a workspace file in the editor through Quick Open and returns the editor's visible text. */
export async function openFileInEditor(page: Page, relativePath: string): Promise<string> {
  await page.keyboard.press('Control+P');
  const input = page.locator('.quick-input-widget input');
  await input.waitFor();
  await input.fill(relativePath);
  await page
    .locator('.quick-input-list .monaco-list-row', { hasText: path.basename(relativePath) })
    .first()
    .waitFor();
  await input.press('Enter');
  const editor = page.locator('.editor-instance .monaco-editor .view-lines').first();
  await page.locator('.tabs-container .tab.active', { hasText: path.basename(relativePath) }).waitFor();
  await editor.waitFor();
  return (await editor.innerText()).replace(/\u00a0/g, ' ');
}

/** The row of the open quick pick whose label is exactly `label`. */
export function quickPickRow(page: Page, label: string): Locator {
  const exact = new RegExp(`^${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`);
  return page
    .locator('.quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: exact }) })
    .first();
}

/**
 * Chooses `label` in the open quick pick as a keyboard user does: types it to filter the list,
 * waits until the focused row is that one, presses Enter. Sturdier than a click while the quick
 * input is still turning from an input box into a list (VS Code 1.139 reuses the widget).
 */
export async function chooseInQuickPick(page: Page, label: string): Promise<void> {
  await quickPickRow(page, label).waitFor();
  const input = page.locator('.quick-input-widget .quick-input-box input');
  await input.fill(label);
  await page.waitForFunction((wanted) => {
    const focused = document.querySelector('.quick-input-widget .quick-input-list .monaco-list-row.focused');
    return focused?.querySelector('.label-name')?.textContent?.trim() === wanted;
  }, label);
  await input.press('Enter');
}

/**
 * Runs a command from the Command Palette by its title, as a user does. The palette lists the
 * commands registered when it opens: in a window that just (re)loaded, the extensions' commands
 * come a moment after the workbench shows, and an open palette never adds them. So it is opened
 * again, with longer and longer looks, until the command is listed (or, closed by a webview
 * taking the focus, until it stays open).
 */
export async function runCommand(page: Page, title: string): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  const row = quickPickRow(page, title);
  let lookMs = 5_000;
  await waitUntil(async () => {
    await page.keyboard.press('F1');
    // The palette closes when something takes the focus meanwhile (a webview as it loads): then
    // the text cannot be typed, and the palette is opened again.
    const typed = await input.fill(`>${title}`, { timeout: lookMs }).then(
      () => true,
      () => false,
    );
    const listed =
      typed &&
      (await row.waitFor({ timeout: lookMs }).then(
        () => true,
        () => false,
      ));
    if (listed) return true;
    lookMs = Math.min(2 * lookMs, 60_000);
    await page.keyboard.press('Escape');
    return false;
  }, `the command "${title}" in the Command Palette`);
  await row.click();
}

export type ColorTheme = 'Light Modern' | 'Dark Modern' | 'Dark High Contrast' | 'Light High Contrast';

/** Switches the color theme as a user does (Preferences: Color Theme) and waits until `webview` has it. */
export async function setTheme(page: Page, webview: Frame, theme: ColorTheme): Promise<void> {
  await runCommand(page, 'Preferences: Color Theme');
  const input = page.locator('.quick-input-widget input');
  await input.fill(theme);
  await quickPickRow(page, theme).click();
  const themeClass = theme.includes('High Contrast')
    ? theme.startsWith('Light')
      ? 'vscode-high-contrast-light'
      : 'vscode-high-contrast'
    : theme.startsWith('Light')
      ? 'vscode-light'
      : 'vscode-dark';
  await webview.waitForFunction((name) => document.body.classList.contains(name), themeClass);
  // The workbench around the webview repaints in the new theme over a few frames: let them pass
  // before the screenshot that usually follows.
  await page.evaluate(
    () => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve(undefined)))),
  );
}
