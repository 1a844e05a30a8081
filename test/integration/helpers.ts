import * as vscode from 'vscode';
import type { OpenAgentApi } from '../../src/extension';

export const EXTENSION_ID = 'openagent.openagent';

export async function activateOpenAgent(): Promise<OpenAgentApi> {
  const extension = vscode.extensions.getExtension<OpenAgentApi>(EXTENSION_ID);
  if (!extension) throw new Error(`extension ${EXTENSION_ID} is not installed in this editor`);
  return extension.activate();
}

/** Resolves when `check` is true, polling; rejects after `timeoutMs` with `what` in the message. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
}
