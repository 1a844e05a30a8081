/**
 * Stopping and redirecting the agent from the chat, as a user does: Stop ends a slow answer
 * mid-stream (the partial text stays); "Send now" with a new prompt while the agent works
 * interrupts it and the model receives the user's words as the next message (a plain Send
 * would queue it: see chat-comeback.e2e.test.ts).
 */
import assert from 'node:assert/strict';
import type { FakeModelServer } from '../fixtures/fake-model-server/server';
import type { WorkbenchSession } from '../harness/workbench-session';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { openChat, screenshot, send, startWithFakeModel } from './chat-helpers';
import { setTheme } from './workbench-ui';

// Slow enough to be stopped mid-way however loaded the machine: streaming it all would take over
// eight minutes, and the test stops each answer as soon as its first words show.
const SLOW = { chunkSize: 4, delayMs: 250 };
const LONG_ANSWER = 'This answer streams slowly on purpose, word by word, so there is time to stop it. '.repeat(100);

describe('stop and redirect (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let fake: FakeModelServer;
  let session: WorkbenchSession;

  before(async () => {
    ({ fake, session } = await startWithFakeModel({
      name: 'slow',
      turns: [
        { match: 'Tell me a long story', text: LONG_ANSWER, ...SLOW },
        { match: 'Explain the build', text: LONG_ANSWER, ...SLOW },
        { match: 'Only the summary', text: 'Short summary, as asked.', chunkSize: 8, delayMs: 0 },
      ],
    }));
  });
  after(async () => {
    await session?.stop();
    await fake?.close();
  });

  it('stops a streaming answer, then redirects a running one with new words', async () => {
    const { page, chat } = await openChat(session);

    await send(chat, 'Tell me a long story');
    const story = chat.locator('.turn-assistant').last();
    await story.filter({ hasText: 'streams slowly' }).waitFor();
    await chat.locator('#stop').click();
    // The cut-off answer says so.
    await story.locator('.answer-cut', { hasText: 'Interrupted · Stopped by the user.' }).waitFor();
    const partial = await story.locator('p').first().innerText();
    assert.ok(partial.length > 0 && partial.length < LONG_ANSWER.trim().length, 'the partial answer stays, cut short');
    assert.equal(await chat.locator('#stop').isVisible(), false);

    await send(chat, 'Explain the build');
    await chat.locator('.turn-assistant', { hasText: 'streams slowly' }).nth(1).waitFor();
    // "Send now" while the agent works interrupts it with the new words.
    await chat.locator('#prompt textarea').fill('Only the summary, please');
    await chat.locator('#send-now').click();
    await chat.locator('.answer-cut', { hasText: 'Interrupted · Redirected by the user.' }).waitFor();
    await chat.locator('.turn-assistant', { hasText: 'Short summary, as asked.' }).waitFor();
    const last = fake.modelCalls.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
    assert.match(JSON.stringify(last.messages.at(-1)), /Only the summary, please/);
    assert.deepEqual(await chat.locator('.turn-user').allInnerTexts(), [
      'Tell me a long story',
      'Explain the build',
      'Only the summary, please',
    ]);
    await screenshot(page, 'chat-stop-and-redirect.png');

    // The chat in each kind of theme (looked at by a person; contrast comes from VS Code's variables).
    for (const [theme, file] of [
      ['Dark Modern', 'chat-dark.png'],
      ['Dark High Contrast', 'chat-high-contrast.png'],
      ['Light Modern', 'chat-light.png'],
    ] as const) {
      await setTheme(page, chat, theme);
      await screenshot(page, file);
    }
  });
});
