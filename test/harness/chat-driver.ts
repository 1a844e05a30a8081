/**
 * Lets an in-editor suite use the OpenAgent chat as a user does. The suite runs in the
 * extension host, which cannot reach into a webview, so it asks the launcher over HTTP and the
 * launcher types into the chat webview of the workbench page with Playwright:
 *   POST /chat/prompt {"text": "..."} → 204 once the prompt is sent; 500 and the reason if not.
 */
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { send } from '../e2e/chat-helpers';
import { findWebviewFrame } from '../e2e/workbench-ui';

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
      () => response.writeHead(204).end(),
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

async function handle(request: http.IncomingMessage, page: Page | undefined): Promise<void> {
  if (request.method !== 'POST' || request.url !== '/chat/prompt') {
    throw new Error(`chat driver: no route for ${request.method} ${request.url}`);
  }
  if (!page) throw new Error('chat driver: the workbench page is not open');
  let body = '';
  for await (const chunk of request) body += String(chunk);
  const { text } = JSON.parse(body) as { text?: unknown };
  if (typeof text !== 'string') throw new Error('chat driver: the body needs a "text" string');
  await send(await findWebviewFrame(page, '#openagent-chat'), text);
}
