/**
 * Coming back to a conversation: after a window reload the chat is empty, "Show History" lists
 * the conversation, picking it shows it as it was, and the next prompt continues it with its
 * history. Choosing another model from the palette applies to the next prompt of the same chat.
 */
import assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import type { WorkbenchSession } from '../harness/workbench-session';
import { API_KEY, openChat, screenshot, send, startPackagedSession } from './chat-helpers';
import { findWebviewFrame, openActivity, quickPickRow, runCommand, waitForWorkbench } from './workbench-ui';

describe('history and models (packaged extension, real VS Code UI)', function () {
  this.timeout(180_000);
  let fake: FakeModelServer;
  let session: WorkbenchSession;

  before(async () => {
    fake = await FakeModelServer.start({
      scenario: {
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
    });
    session = await startPackagedSession({
      workspace: 'sample',
      settings: {
        'openagent.provider': 'anthropic',
        'openagent.model': 'first-model',
        'openagent.baseUrl': fake.anthropicBaseUrl,
      },
      env: { ANTHROPIC_API_KEY: API_KEY, OPENAI_API_KEY: undefined, OPENAGENT_API_KEY: undefined },
    });
  });
  after(async () => {
    await session?.stop();
    await fake?.close();
  });

  async function reopenChat(page: Page): Promise<Frame> {
    await waitForWorkbench(page);
    await openActivity(page, 'OpenAgent');
    return findWebviewFrame(page, '#openagent-chat');
  }

  it('reopens a conversation from history after a window reload and continues it', async () => {
    const { page, chat } = await openChat(session);
    await send(chat, 'What is the capital of France?');
    await chat.locator('.turn-assistant', { hasText: 'Paris is the capital of France.' }).waitFor({ timeout: 60_000 });

    await page.reload();
    let reloaded = await reopenChat(page);
    assert.equal(await reloaded.locator('.turn-user').count(), 0, 'a reloaded window starts with an empty chat');

    await runCommand(page, 'OpenAgent: Show History');
    await quickPickRow(page, 'What is the capital of France?').click({ timeout: 15_000 });
    reloaded = await findWebviewFrame(page, '#openagent-chat');
    await reloaded
      .locator('.turn-assistant', { hasText: 'Paris is the capital of France.' })
      .waitFor({ timeout: 15_000 });
    assert.equal(await reloaded.locator('.turn-user').first().innerText(), 'What is the capital of France?');

    await send(reloaded, 'And of Italy?');
    await reloaded.locator('.turn-assistant', { hasText: 'Rome' }).waitFor({ timeout: 60_000 });
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

    // Switching the model mid-chat through the palette: the next prompt of the same conversation uses it.
    await runCommand(page, 'OpenAgent: Choose Provider and Model');
    await quickPickRow(page, 'Anthropic').click({ timeout: 15_000 });
    // The list comes from the server (GET /v1/models).
    await quickPickRow(page, 'fake-model-large').click({ timeout: 15_000 });
    await page
      .getByText('OpenAgent will answer with Anthropic · fake-model-large.', { exact: true })
      .waitFor({ timeout: 15_000 });
    await send(reloaded, 'Which model are you?');
    await reloaded.locator('.turn-assistant', { hasText: 'A different one now.' }).waitFor({ timeout: 60_000 });
    const switched = fake.modelCalls.at(-1)?.body as { model: string; messages: unknown[] };
    assert.equal(switched.model, 'fake-model-large');
    assert.equal(switched.messages.length, 5, 'still the same conversation');
  });
});
