/**
 * Fork from here and the tree of forks in the real VS Code UI (packaged extension, fake model):
 * after two exchanges, Fork from here on the second prompt (here, in the workspace) shows a new
 * conversation holding only the first exchange, and the next prompt goes on from there; the
 * developer panel's Forks tab shows the original with the fork under it, the fork marked as
 * shown; clicking the original's row brings it back to the chat, both exchanges in it.
 */
import assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';
import type { FakeModelServer } from '../fixtures/fake-model-server/server';
import type { WorkbenchSession } from '../harness/workbench-session';
import { TEST_TIMEOUT_MS, waitUntil } from '../harness/patience';
import { openChat, screenshot, send, startWithFakeModel } from './chat-helpers';
import { findWebviewFrame, quickPickRow, runCommand } from './workbench-ui';

describe('fork from here and the tree of forks (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let fake: FakeModelServer;
  let session: WorkbenchSession;
  let page: Page;
  let chat: Frame;

  before(async () => {
    ({ fake, session } = await startWithFakeModel({
      name: 'fork',
      turns: [
        { match: 'first question', text: 'First answer.' },
        { match: 'second question', text: 'Second answer.' },
        { match: 'another way', text: 'Taking another way.' },
      ],
    }));
    ({ page, chat } = await openChat(session));
  });
  after(async () => {
    await session?.stop();
    await fake?.close();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page) await screenshot(page, 'forks-failure.png');
  });

  const userTurns = () => chat.locator('.turn-user');
  const transcript = () => chat.locator('#transcript').innerText();

  it('forks at the second prompt: the new conversation holds the first exchange and goes on from it', async () => {
    await send(chat, 'first question');
    await chat.locator('.turn-assistant', { hasText: 'First answer.' }).waitFor();
    await send(chat, 'second question');
    await chat.locator('.turn-assistant', { hasText: 'Second answer.' }).waitFor();
    await chat.locator('#activity').waitFor({ state: 'hidden' });

    const second = userTurns().filter({ hasText: 'second question' });
    await second.hover();
    await second.locator('.message-fork').click();
    // Where the fork works: here, in the workspace.
    await quickPickRow(page, 'Here (this workspace)').click();

    await waitUntil(
      async () => !/second question/.test(await transcript()) && /First answer\./.test(await transcript()),
      'the fork shown in the chat: the first exchange only',
    );
    await send(chat, 'another way, please');
    await chat.locator('.turn-assistant', { hasText: 'Taking another way.' }).waitFor();
    const last = fake.modelCalls.at(-1)!.body as { messages: Array<{ content: unknown }> };
    const sent = JSON.stringify(last.messages);
    assert.match(sent, /first question/, 'the fork carries the first exchange to the model');
    assert.doesNotMatch(sent, /second question/, 'and not what came after the fork point');
  });

  it('the Forks tab shows the original with the fork under it; a click brings the original back', async () => {
    await runCommand(page, 'OpenAgent: Open Developer Panel');
    const panel = await findWebviewFrame(page, '#openagent-panel');
    await panel.locator('vscode-tab-header[data-tab="forks"]').click();
    await panel.locator('vscode-tab-panel[data-tab="forks"]').waitFor({ state: 'visible' });
    const rows = panel.locator('#forks .fork-row');
    await waitUntil(async () => (await rows.count()) === 2, 'two rows: the original and its fork');
    const texts = await rows.allInnerTexts();
    assert.match(texts[0]!, /first question/, 'the original first, by its title');
    assert.match(texts[1]!, /Forked at message/, 'the fork under it says where it was forked');
    assert.equal(await rows.nth(1).locator('button').getAttribute('aria-current'), 'true', 'the fork is shown');
    await screenshot(page, 'forks-panel.png');

    await rows.nth(0).locator('button').click();
    await waitUntil(
      async () => /second question/.test(await transcript()) && /Second answer\./.test(await transcript()),
      'the original back in the chat, both exchanges in it',
    );
    assert.doesNotMatch(await transcript(), /Taking another way/);
    await waitUntil(
      async () => (await rows.nth(0).locator('button').getAttribute('aria-current')) === 'true',
      'the original marked as shown',
    );
  });
});
