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
import { openChat, screenshot, send, startPackagedSession } from './chat-helpers';
import { clickNotificationButton, waitForNotification } from './workbench-ui';

describe('chat with a real llama.cpp server (packaged extension, real VS Code UI)', function () {
  this.timeout(240_000);
  let server: LlamaServer;
  let session: WorkbenchSession;

  before(async () => {
    server = await LlamaServer.start({ contextSize: 8192 });
    session = await startPackagedSession({
      workspace: 'sample',
      settings: { 'openagent.provider': 'llamacpp', 'openagent.baseUrl': server.baseUrl },
      env: { ANTHROPIC_API_KEY: undefined, OPENAI_API_KEY: undefined, OPENAGENT_API_KEY: undefined },
    });
  });
  after(async () => {
    await session?.stop();
    await server?.stop();
  });

  it('says hello, then asks before the model writes a file and writes it once approved', async () => {
    const { page, chat } = await openChat(session);
    await send(chat, 'hello there');
    await chat.locator('.turn-assistant', { hasText: GREETING }).waitFor({ timeout: 60_000 });

    await send(chat, `make the ${TRIGGERS.writeNotes} notes`);
    const toast = await waitForNotification(page, 'OpenAgent wants to write notes.md');
    await screenshot(page, 'llama-cpp-approval.png');
    await clickNotificationButton(toast, 'Approve');
    await chat.locator('.turn-assistant', { hasText: AFTER_TOOL }).waitFor({ timeout: 60_000 });
    assert.equal(fs.readFileSync(path.join(session.workspaceDir, 'notes.md'), 'utf8'), '# Notes from the test model\n');
    assert.deepEqual(await chat.locator('.turn-assistant, .turn-tool').allInnerTexts(), [
      GREETING,
      'write_file notes.md',
      AFTER_TOOL,
    ]);
    await screenshot(page, 'llama-cpp-chat.png');
    await page.close();
  });
});
