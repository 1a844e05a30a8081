/**
 * Coming back to a conversation: after New Chat and a window reload the chat is empty, "Show
 * History" lists the conversation, picking it shows it as it was, and the next prompt continues
 * it with its history. Choosing another model from the palette applies to the next prompt of the
 * same chat. (A reload alone brings the last chat back: chat-comeback.e2e.test.ts.)
 */
import assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';
import type { FakeModelServer } from '../fixtures/fake-model-server/server';
import type { WorkbenchSession } from '../harness/workbench-session';
import { TEST_TIMEOUT_MS, waitUntil } from '../harness/patience';
import { openChat, screenshot, send, startWithFakeModel } from './chat-helpers';
import { findWebviewFrame, quickPickRow, runCommand, waitForWorkbench } from './workbench-ui';

describe('history and models (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let fake: FakeModelServer;
  let session: WorkbenchSession;

  before(async () => {
    ({ fake, session } = await startWithFakeModel(
      {
        name: 'history',
        turns: [
          { match: 'capital of France', text: 'Paris is the capital of France.', chunkSize: 8, delayMs: 0 },
          {
            match: 'And of Italy',
            text: 'Rome, as the history shows I know we were on capitals.',
            chunkSize: 8,
            delayMs: 0,
          },
          { match: 'Which model', text: 'A different one now.', chunkSize: 8, delayMs: 0 },
        ],
        whenExhausted: 'echo',
      },
      'first-model',
    ));
  });
  after(async () => {
    await session?.stop();
    await fake?.close();
  });

  async function waitForComposer(chat: Frame, expected: string): Promise<void> {
    let value = '';
    await waitUntil(
      async () =>
        (value = await chat.locator('#prompt').evaluate((element) => (element as HTMLTextAreaElement).value)) ===
        expected,
      () => `the composer to hold ${JSON.stringify(expected)} (it holds ${JSON.stringify(value)})`,
    );
  }

  async function reopenChat(page: Page): Promise<Frame> {
    await waitForWorkbench(page);
    // The reloaded window may restore the sidebar as it was: focusing the chat is idempotent,
    // clicking the activity-bar icon would toggle it closed. (The palette only lists the command
    // once the window has registered the extension's contributions: runCommand looks again.)
    await runCommand(page, 'OpenAgent: Focus Chat');
    return findWebviewFrame(page, '#openagent-chat');
  }

  it('reopens a conversation from history after a window reload and continues it', async () => {
    const { page, chat } = await openChat(session);
    await send(chat, 'What is the capital of France?');
    await chat.locator('.turn-assistant', { hasText: 'Paris is the capital of France.' }).waitFor();

    await runCommand(page, 'OpenAgent: New Chat');
    await chat.locator('.turn-user').first().waitFor({ state: 'detached' });
    await page.reload();
    let reloaded = await reopenChat(page);
    assert.equal(await reloaded.locator('.turn-user').count(), 0, 'after New Chat, a reloaded window comes back empty');

    await runCommand(page, 'OpenAgent: Show History');
    await quickPickRow(page, 'What is the capital of France?').click();
    reloaded = await findWebviewFrame(page, '#openagent-chat');
    await reloaded.locator('.turn-assistant', { hasText: 'Paris is the capital of France.' }).waitFor();
    assert.equal(await reloaded.locator('.turn-user').first().innerText(), 'What is the capital of France?');

    await send(reloaded, 'And of Italy?');
    await reloaded.locator('.turn-assistant', { hasText: 'Rome' }).waitFor();
    const continued = fake.modelCalls.at(-1)?.body as {
      model: string;
      messages: Array<{ role: string; content: unknown }>;
    };
    assert.deepEqual(
      continued.messages.map((message) => message.role),
      ['user', 'assistant', 'user'],
      'the reopened conversation goes on with its history',
    );
    assert.match(JSON.stringify(continued.messages[1]), /Paris is the capital of France\./);
    await screenshot(page, 'chat-reopened-from-history.png');

    // The composer's "@" picker attaches a file of the workspace.
    await reloaded.locator('#pick-context').click();
    const pickInput = page.locator('.quick-input-widget input');
    await page.locator('.quick-input-list .monaco-list-row', { hasText: 'File…' }).waitFor();
    await pickInput.fill('File');
    await page.keyboard.press('Enter');
    await quickPickRow(page, 'src/greet.js').click();
    await waitForComposer(reloaded, '@file:src/greet.js ');
    await reloaded.locator('#prompt').evaluate((element) => ((element as HTMLTextAreaElement).value = ''));

    // Switching the model mid-chat through the palette: the next prompt of the same conversation uses it.
    assert.equal(await reloaded.locator('#pick-model').innerText(), 'first-model');
    await runCommand(page, 'OpenAgent: Choose Provider and Model');
    await quickPickRow(page, 'Anthropic').click();
    // The list comes from the server (GET /v1/models).
    await quickPickRow(page, 'fake-model-large').click();
    await page.getByText('OpenAgent will answer with Anthropic · fake-model-large.', { exact: true }).waitFor();
    await reloaded.locator('#pick-model', { hasText: 'fake-model-large' }).waitFor();
    await send(reloaded, 'Which model are you?');
    await reloaded.locator('.turn-assistant', { hasText: 'A different one now.' }).waitFor();
    const switched = fake.modelCalls.at(-1)?.body as { model: string; messages: unknown[] };
    assert.equal(switched.model, 'fake-model-large');
    assert.equal(switched.messages.length, 5, 'still the same conversation');
  });
});
