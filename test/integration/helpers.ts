import * as vscode from 'vscode';
import type { OpenAgentApi } from '../../src/extension';
import type { ScenarioInput } from '../fixtures/fake-model-server/scenario';
import type { RecordedRequest } from '../fixtures/fake-model-server/server';
import { PATIENCE_MS, waitUntil } from '../harness/patience';

export const EXTENSION_ID = 'openagent.openagent';

export async function activateOpenAgent(): Promise<OpenAgentApi> {
  const extension = vscode.extensions.getExtension<OpenAgentApi>(EXTENSION_ID);
  if (!extension) throw new Error(`extension ${EXTENSION_ID} is not installed in this editor`);
  return extension.activate();
}

/**
 * Resolves when `check` is true, polling; rejects after `timeoutMs` (generous: see
 * test/harness/patience.ts) with `what` in the message.
 */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = PATIENCE_MS,
): Promise<void> {
  await waitUntil(async () => (await check()) || undefined, what, timeoutMs);
}

/**
 * Types a prompt into the OpenAgent chat and sends it, as a user does. The extension host
 * cannot reach into a webview, so the launcher does it (test/harness/chat-driver.ts); the chat
 * view must be open.
 */
export async function sendChatPrompt(text: string, options: { append?: boolean } = {}): Promise<void> {
  await askDriver('/chat/prompt', { text, append: options.append === true }, 'send the prompt');
}

/** Clicks `button` on the notification whose text contains `text`, once it shows (through the launcher). */
export async function clickNotification(text: string, button: string): Promise<void> {
  await askDriver('/notification', { text, button }, `click "${button}"`);
}

/**
 * Closes every editor, dropping unsaved changes first: an untitled or edited document a test
 * left would otherwise bring up "Do you want to save?", a real modal now that the suites run as
 * installed extensions (test/fixtures/extensions/suite-runner), and block every later test.
 */
export async function closeAllEditors(): Promise<void> {
  for (const document of vscode.workspace.textDocuments) {
    if (!document.isDirty || document.isClosed) continue;
    await vscode.window.showTextDocument(document, { preview: false, preserveFocus: false });
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
  }
  await vscode.commands.executeCommand('workbench.action.closeAllEditors');
}

/** Clicks `button` of the modal dialog whose text contains `text`, once it shows (through the launcher). */
export async function clickDialog(text: string, button: string): Promise<void> {
  await askDriver('/dialog', { text, button }, `click "${button}" in the dialog`);
}

async function askDriver(route: string, body: object, what: string): Promise<void> {
  const driver = process.env.OPENAGENT_TEST_DRIVER;
  if (!driver) throw new Error('OPENAGENT_TEST_DRIVER is not set: run the suite with npm run test:integration');
  const response = await fetch(`${driver}${route}`, { method: 'POST', body: JSON.stringify(body) });
  if (!response.ok) throw new Error(`the launcher could not ${what}: ${await response.text()}`);
}

/**
 * Answers the quick pick or input box a command opened, through the launcher (see
 * test/harness/chat-driver.ts): waits for one whose title, placeholder or prompt contains
 * `expect`, types `text` and presses Enter — with `pick`, once `text` has filtered the list to
 * the item meant.
 */
export async function answerQuickInput(expect: string, text: string, options: { pick?: boolean } = {}): Promise<void> {
  await askDriver('/quick-input', { expect, text, pick: options.pick === true }, 'answer the quick input');
}

/** A fake model server the launcher started, scripted and read over its control endpoints. */
export class FakeModelControl {
  constructor(readonly baseUrl: string) {}

  /** The server named by an environment variable the launcher set. */
  static fromEnv(variable: string): FakeModelControl {
    const url = process.env[variable];
    if (!url) throw new Error(`${variable} is not set: run the suite with npm run test:integration`);
    return new FakeModelControl(url);
  }

  async setScenario(scenario: ScenarioInput): Promise<void> {
    const response = await fetch(`${this.baseUrl}/__scenario`, { method: 'POST', body: JSON.stringify(scenario) });
    if (!response.ok) throw new Error(`the fake model server refused the scenario: ${await response.text()}`);
  }

  /** Forgets the requests received so far. */
  async clearRequests(): Promise<void> {
    await fetch(`${this.baseUrl}/__requests`, { method: 'DELETE' });
  }

  /** Every request received so far, in order (model calls, model listings, unknown paths). */
  async requests(): Promise<RecordedRequest[]> {
    const response = await fetch(`${this.baseUrl}/__requests`);
    return (await response.json()) as RecordedRequest[];
  }

  /** The model calls since the last clear (the launcher's server also records listings). */
  async modelCalls(): Promise<RecordedRequest[]> {
    return (await this.requests()).filter((request) => request.protocol === 'anthropic');
  }

  /** Waits until `count` model calls arrived and the agent has finished with them. */
  async callsWhenIdle(api: { isRunning: boolean }, count: number, timeoutMs = PATIENCE_MS): Promise<RecordedRequest[]> {
    let calls: RecordedRequest[] = [];
    await waitFor(
      async () => (calls = await this.modelCalls()).length >= count && !api.isRunning,
      `${count} model call(s) and the agent idle`,
      timeoutMs,
    );
    return calls;
  }
}

/** The tool_result blocks of an Anthropic request the fake server recorded, by tool_use_id, with their text. */
export function toolResults(request: RecordedRequest): Map<string, { text: string; isError: boolean }> {
  const body = request.body as {
    messages: Array<{
      content: string | Array<{ type: string; tool_use_id?: string; content?: unknown; is_error?: boolean }>;
    }>;
  };
  const blocks = body.messages.flatMap((message) => (typeof message.content === 'string' ? [] : message.content));
  const text = (content: unknown) =>
    Array.isArray(content) ? content.map((part: { text?: string }) => part.text ?? '').join('') : String(content);
  return new Map(
    blocks
      .filter((block) => block.type === 'tool_result')
      .map((block) => [String(block.tool_use_id), { text: text(block.content), isError: block.is_error === true }]),
  );
}
