/**
 * The packaged extension in a real VS Code, pointed at llama.cpp's own server with the
 * llama.cpp preset and nothing else set: the chat says hello, and a tool call the model makes
 * in its native format is approved in a notification and runs.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LlamaServer } from '../fixtures/llama-server/llama-server';
import { AFTER_TOOL, GREETING, TRIGGERS } from '../fixtures/llama-server/scenes';
import type { WorkbenchSession } from '../harness/workbench-session';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { openChat, screenshot, send, startPackagedSession } from './chat-helpers';
import { clickNotificationButton, waitForNotification } from './workbench-ui';

/** A real llama.cpp server and a packaged session with no keys, set up as `options` says for the server's address. */
async function llamaSession(
  options: (baseUrl: string) => { settings?: Record<string, unknown>; env?: Record<string, string> },
): Promise<{ server: LlamaServer; session: WorkbenchSession }> {
  const server = await LlamaServer.start({ contextSize: 8192 });
  const { settings, env } = options(server.baseUrl);
  const session = await startPackagedSession({
    workspace: 'sample',
    ...(settings ? { settings } : {}),
    env: { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAGENT_API_KEY: undefined, ...env },
  });
  return { server, session };
}

async function stopBoth(session: WorkbenchSession | undefined, server: LlamaServer | undefined): Promise<void> {
  await session?.stop();
  await server?.stop();
}

describe('chat with a real llama.cpp server (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: LlamaServer;
  let session: WorkbenchSession;

  before(async () => {
    ({ server, session } = await llamaSession((url) => ({
      settings: { 'openagent.provider': 'llamacpp', 'openagent.baseUrl': url },
    })));
  });
  after(() => stopBoth(session, server));

  it('says hello, then asks before the model writes a file and writes it once approved', async () => {
    const { page, chat } = await openChat(session);
    await send(chat, 'hello there');
    await chat.locator('.turn-assistant', { hasText: GREETING }).waitFor();

    await send(chat, `make the ${TRIGGERS.writeNotes} notes`);
    const toast = await waitForNotification(page, 'OpenAgent wants to write notes.md');
    await screenshot(page, 'llama-cpp-approval.png');
    await clickNotificationButton(toast, 'Approve');
    await chat.locator('.turn-assistant', { hasText: AFTER_TOOL }).waitFor();
    assert.equal(fs.readFileSync(path.join(session.workspaceDir, 'notes.md'), 'utf8'), '# Notes from the test model\n');
    assert.deepEqual(await chat.locator('.turn-assistant, .turn-tool .tool-call').allInnerTexts(), [
      GREETING,
      'write_file notes.md',
      AFTER_TOOL,
    ]);
    await screenshot(page, 'llama-cpp-chat.png');
    await page.close();
  });
});

describe('first contact with nothing set up (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: LlamaServer;
  let session: WorkbenchSession;

  before(async () => {
    // No provider, no key: only a llama.cpp server running (on a port of its own, said here).
    ({ server, session } = await llamaSession((url) => ({ env: { OPENAGENT_LOCAL_SERVERS: `llamacpp=${url}` } })));
  });
  after(() => stopBoth(session, server));

  it('offers the local server it finds beside Set API Key, and answers on it once chosen', async () => {
    const { page, chat } = await openChat(session);
    await send(chat, 'hello there');
    const offer = chat.locator('.notice', { hasText: 'Found on this machine' });
    await offer.waitFor();
    assert.match(
      await offer.innerText(),
      /Found on this machine: llama\.cpp server \(.*trigger-model-[0-9a-f]+\.gguf\)/,
    );
    const buttons = await offer.locator('vscode-button').allInnerTexts();
    assert.equal(buttons[0], 'Use llama.cpp server');
    assert.ok(buttons.includes('Set API Key'), buttons.join(', '));
    await screenshot(page, 'first-contact.png');

    await offer.locator('vscode-button').first().click();
    await chat.locator('.turn-assistant', { hasText: GREETING }).waitFor();
    const settings = fs.readFileSync(path.join(session.userDataDir, 'User', 'settings.json'), 'utf8');
    assert.match(settings, /"openagent\.provider": "llamacpp"/);
    assert.ok(settings.includes(`"openagent.baseUrl": "${server.baseUrl}"`), settings);
    await page.close();
  });
});
