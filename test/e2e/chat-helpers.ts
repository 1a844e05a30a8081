/**
 * What the e2e tests of the OpenAgent chat share: a code-server session with the packaged
 * .vsix installed, the chat opened in the sidebar, prompts sent through it, and the tool
 * results the extension sent back to the fake model.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { parseScenario, type ScenarioInput } from '../fixtures/fake-model-server/scenario';
import { FakeModelServer, type RecordedRequest } from '../fixtures/fake-model-server/server';
import { installVsix } from '../harness/code-server';
import { projectRoot, WorkbenchSession, type WorkbenchSessionOptions } from '../harness/workbench-session';
import { waitUntil } from '../harness/patience';
import { findWebviewFrame, openActivity, waitForWorkbench } from './workbench-ui';

export const VSIX = path.join(projectRoot, 'openagent.vsix');
const RESULTS_DIR = path.join(projectRoot, 'test-results');
export const API_KEY = 'sk-ant-e2e-secret-key';

/** A code-server session on a copy of a fixture workspace, with the packaged extension installed. */
export function startPackagedSession(options: Omit<WorkbenchSessionOptions, 'prepare'>): Promise<WorkbenchSession> {
  if (!fs.existsSync(VSIX)) throw new Error(`${VSIX} is missing: run "npm run package" first`);
  return WorkbenchSession.start({
    ...options,
    prepare: ({ userDataDir, extensionsDir }) => installVsix(VSIX, extensionsDir, userDataDir),
  });
}

/**
 * The fake model server playing `scenario` and a packaged session on the sample workspace whose
 * user settings point OpenAgent at it (Anthropic wire format, the key in the environment).
 */
export async function startWithFakeModel(
  scenario: ScenarioInput,
  model = 'fake-model',
): Promise<{ fake: FakeModelServer; session: WorkbenchSession }> {
  const fake = await FakeModelServer.start({ scenario: parseScenario(scenario) });
  const session = await startPackagedSession({
    workspace: 'sample',
    settings: {
      'openagent.provider': 'anthropic',
      'openagent.model': model,
      'openagent.baseUrl': fake.anthropicBaseUrl,
    },
    env: { ANTHROPIC_API_KEY: API_KEY, OPENAI_API_KEY: undefined, OPENAGENT_API_KEY: undefined },
  });
  return { fake, session };
}

/** Opens the session's workspace in a new page and the OpenAgent chat in the sidebar. */
export async function openChat(session: WorkbenchSession): Promise<{ page: Page; chat: Frame }> {
  const page = await session.openPage(`folder=${encodeURIComponent(session.workspaceDir)}`);
  await waitForWorkbench(page);
  await openActivity(page, 'OpenAgent');
  const chat = await findWebviewFrame(page, '#openagent-chat');
  return { page, chat };
}

/** Saves a screenshot of the page as test-results/<fileName>, to look at after the run. */
export async function screenshot(page: Page, fileName: string): Promise<void> {
  fs.mkdirSync(RESULTS_DIR, { recursive: true });
  await page.screenshot({ path: path.join(RESULTS_DIR, fileName) });
}

/** Types a prompt into the chat and sends it with Enter, as a user does. */
export async function send(chat: Frame, text: string): Promise<void> {
  const input = chat.locator('#prompt textarea');
  await input.click();
  await input.fill(text);
  await input.press('Enter');
}

export interface SentToolResult {
  tool_use_id: string;
  content: string;
  is_error?: boolean;
}

/** The tool_result blocks of an Anthropic Messages request, with their content as text. */
export function toolResultsSent(request: RecordedRequest | undefined): SentToolResult[] {
  const body = request?.body as
    | {
        messages?: Array<{
          content: string | Array<{ type: string; tool_use_id?: string; content?: unknown; is_error?: boolean }>;
        }>;
      }
    | undefined;
  return (body?.messages ?? [])
    .flatMap((message) => (typeof message.content === 'string' ? [] : message.content))
    .filter((block) => block.type === 'tool_result')
    .map((block) => ({
      tool_use_id: String(block.tool_use_id),
      content:
        typeof block.content === 'string'
          ? block.content
          : Array.isArray(block.content)
            ? block.content.map((part: { text?: string }) => part.text ?? '').join('')
            : '',
      ...(block.is_error === undefined ? {} : { is_error: block.is_error }),
    }));
}

/** What a window keeps of its chat (src/core/session/chat-keeper.ts), as far as the tests look. */
export type KeptChat = {
  draft: string;
  conversationId?: string;
  workspace: string;
  queue: string[];
  queueImages?: unknown[][];
};

/** What the windows keep for their chats: the files in the extension's storage for each workspace. */
export function keptChats(session: WorkbenchSession): KeptChat[] {
  const storage = path.join(session.userDataDir, 'User', 'workspaceStorage');
  if (!fs.existsSync(storage)) return [];
  return fs
    .readdirSync(storage, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith(path.join('openagent.openagent', 'chat.json')))
    .flatMap((name) => {
      try {
        return [JSON.parse(fs.readFileSync(path.join(storage, name), 'utf8'))];
      } catch {
        return [];
      }
    });
}

/** Waits until the window on `workspace` has kept what `wanted` looks for (on disk: a reload cannot lose it after this). */
export function waitForKept(
  session: WorkbenchSession,
  wanted: (kept: KeptChat) => boolean,
  workspace = session.workspaceDir,
) {
  return waitUntil(
    () => keptChats(session).find((kept) => kept.workspace.endsWith(workspace) && wanted(kept)),
    () => `the chat to be kept as expected (kept: ${JSON.stringify(keptChats(session)).slice(0, 2_000)})`,
  );
}
