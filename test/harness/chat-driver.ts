/**
 * Lets an in-editor suite use the OpenAgent chat as a user does. The suite runs in the
 * extension host, which cannot reach into a webview, so it asks the launcher over HTTP and the
 * launcher types into the chat webview of the workbench page with Playwright:
 *   POST /chat/prompt {"text": "..."} → 204 once the prompt is sent; 500 and the reason if not;
 *     with "append": true the text goes after what the composer holds (once it holds something).
 *   POST /notification {"text": "...", "button": "..."} → clicks that button of the notification
 *     whose text contains `text`, once it shows.
 *   POST /quick-input {"expect": "...", "text": "...", "pick": true} → waits for a quick pick or
 *     input box whose title, placeholder or prompt contains `expect`, types `text` and presses
 *     Enter; with `pick`, once the item the text filters to has the focus (the save dialog, a
 *     quick pick of folder entries, takes a typed path without `pick`).
 *   POST /dialog {"text": "...", "button": "..."} → clicks that button of the modal dialog
 *   POST /screen → 200 and what the workbench shows as text (notifications, quick input, dialogs,
 *     the chat's last lines): the suite asks when a test fails, so the report says what was there.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { send } from '../e2e/chat-helpers';
import { clickNotificationButton, findWebviewFrame, waitForNotification } from '../e2e/workbench-ui';
import { PATIENCE_MS, waitUntil } from './patience';

/** Tells the suite (through code-server's environment) where the driver is; see sendChatPrompt in test/integration/helpers.ts. */
export const CHAT_DRIVER_ENV = 'OPENAGENT_TEST_DRIVER';

export interface ChatDriver {
  url: string;
  close(): Promise<void>;
}

/** Starts the driver; `page` gives the workbench page once it is open. */
export async function startChatDriver(page: () => Page | undefined): Promise<ChatDriver> {
  const server = http.createServer((request, response) => {
    handle(request, page()).then(
      (text) =>
        typeof text !== 'string'
          ? response.writeHead(204).end()
          : response.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' }).end(text),
      (error: unknown) =>
        response
          .writeHead(500, { 'content-type': 'text/plain' })
          .end(error instanceof Error ? error.message : String(error)),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

interface DriverRequest {
  text?: unknown;
  expect?: unknown;
  pick?: unknown;
  append?: unknown;
  button?: unknown;
}

async function handle(request: http.IncomingMessage, page: Page | undefined): Promise<string | void> {
  const route = request.method === 'POST' ? request.url : undefined;
  if (
    route !== '/chat/prompt' &&
    route !== '/quick-input' &&
    route !== '/notification' &&
    route !== '/dialog' &&
    route !== '/screen'
  )
    throw new Error(`chat driver: no route for ${request.method} ${request.url}`);
  if (!page) throw new Error('chat driver: the workbench page is not open');
  if (route === '/screen') return describeScreen(page);
  let body = '';
  for await (const chunk of request) body += String(chunk);
  const { text, expect, pick, append, button } = JSON.parse(body) as DriverRequest;
  if (route === '/notification') {
    if (typeof text !== 'string' || typeof button !== 'string')
      throw new Error('chat driver: /notification needs "text" and "button" strings');
    const toast = await waitForNotification(page, text).catch(async (error: Error) => {
      // What was on screen instead says why (another notification in the way, a different text).
      const shown = await page.locator('.notification-toast').allInnerTexts();
      throw new Error(`${error.message}\nNotifications on screen: ${shown.join(' | ') || 'none'}`);
    });
    return clickNotificationButton(toast, button);
  }
  if (route === '/dialog') {
    if (typeof text !== 'string' || typeof button !== 'string')
      throw new Error('chat driver: /dialog needs "text" and "button" strings');
    return clickDialogButton(page, text, button);
  }
  if (typeof text !== 'string') throw new Error('chat driver: the body needs a "text" string');
  if (route === '/chat/prompt') {
    const chat = await findWebviewFrame(page, '#openagent-chat');
    if (append !== true) return send(chat, text);
    const input = chat.locator('#prompt textarea');
    // What a command put into the composer arrives as a message to the webview: wait for it.
    await chat.waitForFunction(() => document.querySelector<HTMLTextAreaElement>('#prompt')?.value);
    await input.fill((await input.inputValue()) + text);
    return input.press('Enter');
  }
  if (typeof expect !== 'string') throw new Error('chat driver: /quick-input needs an "expect" string');
  await answerQuickInput(page, expect, text, pick === true);
}

/** What the workbench shows, as text: each part on its own lines, the chat's last 2,000 characters. */
async function describeScreen(page: Page): Promise<string> {
  const texts = async (selector: string) =>
    (
      await page
        .locator(selector)
        .allInnerTexts()
        .catch(() => [] as string[])
    ).map((text) => text.replace(/\s+/g, ' '));
  const chat = await findWebviewFrame(page, '#openagent-chat', 5_000)
    .then((frame) => frame.locator('body').innerText({ timeout: 5_000 }))
    .catch((error: Error) => `(no chat: ${error.message.split('\n')[0]})`);
  const parts: Array<[string, string[]]> = [
    ['toasts', await texts('.notification-toast')],
    ['notification center', await texts('.notifications-center .monaco-list-row')],
    ['dialog', await texts('.monaco-dialog-box')],
    ['quick input', await texts('.quick-input-widget:visible')],
    ['status bar', await texts('.statusbar-item:visible')],
    ['chat', [chat.slice(-2_000)]],
  ];
  return parts.map(([name, lines]) => `${name}: ${lines.join(' | ') || 'none'}`).join('\n');
}

/** Clicks `button` of the modal dialog saying `text`, once it shows: what a user does. */
async function clickDialogButton(page: Page, text: string, button: string): Promise<void> {
  const dialog = page.locator('.monaco-dialog-box').filter({ hasText: text });
  await dialog.waitFor({ state: 'visible' }).catch(async (error: Error) => {
    const shown = await page.locator('.monaco-dialog-box').allInnerTexts();
    throw new Error(`${error.message}\nDialogs on screen: ${shown.join(' | ') || 'none'}`);
  });
  await dialog.getByRole('button', { name: button, exact: true }).click();
}

/** Answers the open quick input as a user does: types into its box and presses Enter. */
async function answerQuickInput(page: Page, expected: string, text: string, pick: boolean): Promise<void> {
  await page
    .waitForFunction((wanted) => {
      const widget = document.querySelector<HTMLElement>('.quick-input-widget');
      if (!widget || widget.style.display === 'none') return false;
      const input = widget.querySelector<HTMLInputElement>('.quick-input-box input');
      const words = [
        widget.querySelector('.quick-input-title')?.textContent,
        input?.placeholder,
        input?.getAttribute('aria-label'),
        widget.querySelector('.quick-input-message')?.textContent,
      ].join(' ');
      return words.includes(wanted);
    }, expected)
    .catch(() => {
      throw new Error(`chat driver: no quick input saying "${expected}" opened`);
    });
  const input = page.locator('.quick-input-widget .quick-input-box input');
  // The save dialog is busy while it reads a folder, then fills in its own path, which can
  // overwrite what was typed (and a typed path makes it read that folder): type while it is
  // idle, until the text stays.
  const busy = page.locator('.quick-input-widget .quick-input-progress.active:not(.done)');
  await waitUntil(
    async () => {
      if ((await busy.count()) > 0) return false;
      if ((await input.inputValue()) === text) return true;
      await input.fill(text);
      return false;
    },
    `the quick input saying "${expected}" to keep "${text}"`,
    PATIENCE_MS,
    250,
  );
  // A quick pick filters as the text is typed; wait until the focused item is the one meant.
  if (pick)
    await page
      .waitForFunction((typed) => {
        const focused = document.querySelector('.quick-input-widget .quick-input-list .monaco-list-row.focused');
        return (focused?.getAttribute('aria-label') ?? '').toLowerCase().includes(typed.toLowerCase());
      }, text)
      .catch(() => {
        throw new Error(`chat driver: no item "${text}" in the quick pick saying "${expected}"`);
      });
  await input.press('Enter');
}
