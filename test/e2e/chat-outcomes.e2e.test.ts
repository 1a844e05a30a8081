/**
 * How things ended, in the real editor (packaged .vsix in code-server, driven with Playwright;
 * the fake model server scripts each turn): every tool line says what became of its call — the
 * user approved one and it ran, denied one, the workspace policy refused one, one failed — live
 * and after the window reloads and the conversation is reopened from history; a stopped answer
 * keeps its "Interrupted" mark after a reload; Retry after an error shows the prompt once and an
 * old Retry cannot send anything.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { FakeModelServer } from '../fixtures/fake-model-server/server';
import type { WorkbenchSession } from '../harness/workbench-session';
import { TEST_TIMEOUT_MS, waitUntil } from '../harness/patience';
import { openChat, screenshot, send, startWithFakeModel } from './chat-helpers';
import {
  clickNotificationButton,
  findWebviewFrame,
  quickPickRow,
  runCommand,
  setTheme,
  waitForNotification,
  waitForWorkbench,
} from './workbench-ui';

const TIDY = 'Tidy the project: notes, build folder, the missing file';
const STORY = 'Tell me a long story about the build';
const LONG_ANSWER = 'The build grew slowly, one careful step after another, as builds do. '.repeat(100);

/** Each tool line's outcome (its data-outcome), the call, and the outcome in words. */
async function toolLines(chat: Frame): Promise<string[][]> {
  const lines = await chat.locator('.turn-tool').all();
  return Promise.all(
    lines.map(async (line) => [
      (await line.getAttribute('data-outcome')) ?? '',
      await line.locator('.tool-call').innerText(),
      await line.locator('.tool-outcome').innerText(),
    ]),
  );
}

describe('how things ended (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let fake: FakeModelServer;
  let session: WorkbenchSession;
  /** The page the current test drives: photographed when the test fails. */
  let shown: Page | undefined;

  before(async () => {
    ({ fake, session } = await startWithFakeModel({ name: 'empty', turns: [] }));
    // The workspace's policy: deleting the build folder is never allowed.
    fs.mkdirSync(path.join(session.workspaceDir, '.openagent'), { recursive: true });
    fs.writeFileSync(
      path.join(session.workspaceDir, '.openagent', 'agent.yaml'),
      'tools:\n  bash:\n    deny: ["rm -rf*"]\n',
    );
  });
  after(async () => {
    await session?.stop();
    await fake?.close();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && shown && !shown.isClosed()) {
      await screenshot(shown, `outcomes-failure-${this.currentTest.title.slice(0, 20).replace(/\W+/g, '-')}.png`).catch(
        () => undefined,
      );
    }
  });

  /**
   * A new chat of its own: the window first comes back to the last test's conversation (`last`),
   * then New Chat empties the transcript — only then is a prompt sent, so it cannot land in the old one.
   */
  async function newChatAfter(page: Page, chat: Frame, last: string): Promise<void> {
    await chat.locator('.turn-user', { hasText: last }).first().waitFor();
    await runCommand(page, 'OpenAgent: New Chat');
    await waitUntil(
      () =>
        chat
          .locator('.turn-user')
          .count()
          .then((count) => count === 0),
      'an empty chat after New Chat',
    );
  }

  /** After a reload: the chat again, and the conversation reopened from history. */
  async function reopenFromHistory(page: Page, title: string): Promise<Frame> {
    // A new chat first: a reloaded window would otherwise bring the conversation back by itself.
    await runCommand(page, 'OpenAgent: New Chat');
    await page.reload();
    await waitForWorkbench(page);
    // Focusing the chat is idempotent (clicking the activity-bar icon could toggle it closed).
    await runCommand(page, 'OpenAgent: Focus Chat');
    await findWebviewFrame(page, '#openagent-chat');
    await runCommand(page, 'OpenAgent: Show History');
    await quickPickRow(page, title).click();
    await page.locator('.quick-input-widget').waitFor({ state: 'hidden' });
    const chat = await findWebviewFrame(page, '#openagent-chat');
    await chat.locator('.turn-user', { hasText: title }).waitFor();
    return chat;
  }

  it('shows each tool line with its outcome: ran, denied by you, refused by policy, failed — also reopened', async () => {
    fake.setScenario({
      name: 'four-outcomes',
      turns: [
        {
          match: 'Tidy the project',
          text: 'Four steps.',
          toolCalls: [
            { id: 'toolu_keep', name: 'write_file', arguments: { path: 'notes/kept.md', content: '# Kept\n' } },
            { id: 'toolu_drop', name: 'write_file', arguments: { path: 'notes/dropped.md', content: 'no' } },
            { id: 'toolu_rm', name: 'bash', arguments: { command: 'rm -rf build' } },
            { id: 'toolu_read', name: 'read_file', arguments: { path: 'missing.txt' } },
          ],
        },
        { text: 'One note written; the rest did not happen.' },
      ],
    });
    const { page, chat } = await openChat(session);
    shown = page;
    await send(chat, TIDY);
    const approve = await waitForNotification(page, 'OpenAgent wants to write notes/kept.md');
    // While the notification waits, the line says so.
    await chat.locator('.turn-tool[data-outcome="awaiting_approval"]').waitFor();
    await clickNotificationButton(approve, 'Approve');
    const deny = await waitForNotification(page, 'OpenAgent wants to write notes/dropped.md');
    await clickNotificationButton(deny, 'Deny');
    await chat.locator('.turn-assistant', { hasText: 'One note written' }).waitFor();

    const live = await toolLines(chat);
    assert.deepEqual(
      live.map(([outcome, call]) => [outcome, call]),
      [
        ['ran', 'write_file notes/kept.md'],
        ['denied', 'write_file notes/dropped.md'],
        ['refused', 'bash rm -rf build'],
        ['failed', 'read_file missing.txt'],
      ],
    );
    assert.match(live[0]![2]!, /^✓Ran · /);
    assert.equal(live[1]![2], '⊘Denied by you');
    assert.match(live[2]![2]!, /^⊘Refused by policy · .*bash\.deny "rm -rf\*"/, 'the rule is named');
    assert.match(live[3]![2]!, /^✗Failed · .*missing\.txt/);
    assert.equal(fs.readFileSync(path.join(session.workspaceDir, 'notes', 'kept.md'), 'utf8'), '# Kept\n');
    assert.equal(fs.existsSync(path.join(session.workspaceDir, 'notes', 'dropped.md')), false);
    await screenshot(page, 'outcomes-live.png');

    const reopened = await reopenFromHistory(page, TIDY);
    await reopened.locator('.turn-assistant', { hasText: 'One note written' }).waitFor();
    assert.deepEqual(await toolLines(reopened), live, 'the same outcomes, worked out from the stored events');
    await screenshot(page, 'outcomes-reopened.png');
    // In the other kinds of theme (the next tests go on in the last one, the default light).
    for (const [theme, file] of [
      ['Dark Modern', 'outcomes-dark.png'],
      ['Dark High Contrast', 'outcomes-high-contrast.png'],
      ['Light Modern', 'outcomes-light.png'],
    ] as const) {
      await setTheme(page, reopened, theme);
      await screenshot(page, file);
    }
    await page.close();
  });

  it('marks a stopped answer as interrupted, and still does after a reload', async () => {
    fake.setScenario({
      name: 'slow',
      turns: [{ match: 'long story', text: LONG_ANSWER, chunkSize: 4, delayMs: 250 }],
    });
    const { page, chat } = await openChat(session);
    shown = page;
    await newChatAfter(page, chat, TIDY);
    await send(chat, STORY);
    const answer = chat.locator('.turn-assistant').last();
    await answer.filter({ hasText: 'The build grew' }).waitFor();
    // With Stop showing, the composer's chips are whole (not cut by the buttons beside them).
    await chat.locator('#stop').waitFor();
    const cut = await chat.evaluate(
      () =>
        [...document.querySelectorAll('.composer-pickers vscode-button')].filter((button) => {
          const base = button.shadowRoot!.querySelector('.base')!;
          return base.scrollWidth > base.clientWidth + 1;
        }).length,
    );
    assert.equal(cut, 0, 'no chip is cut while Stop shows');
    await screenshot(page, 'outcomes-stop-showing.png');
    await chat.locator('#stop').click();
    await answer.locator('.answer-cut').waitFor();
    assert.equal(await answer.locator('.answer-cut').innerText(), 'Interrupted · Stopped by the user.');
    await screenshot(page, 'outcomes-stopped.png');

    const reopened = await reopenFromHistory(page, STORY);
    const mark = reopened.locator('.turn-assistant .answer-cut');
    await mark.waitFor();
    assert.equal(await mark.innerText(), 'Interrupted · Stopped by the user.');
    assert.match(await reopened.locator('.turn-assistant').last().innerText(), /^The build grew/);
    await screenshot(page, 'outcomes-stopped-reopened.png');
    await page.close();
  });

  it('Retry after an error shows the prompt once, and an old Retry cannot resend it', async () => {
    fake.setScenario({
      name: 'retry',
      turns: [
        {
          match: 'Fix the failing test',
          text: 'Fixed on the second try.',
          fault: { type: 'http_error', status: 400, message: 'scripted failure of the first try' },
        },
        {
          match: 'Now the docs',
          text: 'never reached',
          fault: { type: 'http_error', status: 400, times: 9, message: 'scripted failure of the docs' },
        },
        { match: 'And the changelog', text: 'Changelog written.' },
      ],
    });
    const { page, chat } = await openChat(session);
    shown = page;
    await newChatAfter(page, chat, STORY);
    await send(chat, 'Fix the failing test');
    const firstError = chat.locator('.turn-error', { hasText: 'scripted failure of the first try' });
    await firstError.waitFor();
    await screenshot(page, 'outcomes-error.png');
    await firstError.locator('vscode-button', { hasText: 'Retry' }).click();
    await chat.locator('.turn-assistant', { hasText: 'Fixed on the second try.' }).waitFor();
    assert.deepEqual(
      await chat.locator('.turn-user').allInnerTexts(),
      ['Fix the failing test'],
      'the retried prompt shows once',
    );
    const used = firstError.locator('vscode-button').last();
    assert.equal(await used.innerText(), 'Retried');
    assert.equal(await used.getAttribute('disabled'), '');
    const retried = fake.modelCalls.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
    assert.equal(
      retried.messages.filter((message) => JSON.stringify(message.content).includes('Fix the failing test')).length,
      1,
      'the model got the prompt once',
    );

    // A newer prompt fails, another one succeeds: the failed one's Retry is out of date.
    await send(chat, 'Now the docs');
    const docsError = chat.locator('.turn-error', { hasText: 'scripted failure of the docs' });
    await docsError.waitFor();
    await send(chat, 'And the changelog');
    await chat.locator('.turn-assistant', { hasText: 'Changelog written.' }).waitFor();
    const stale = docsError.locator('vscode-button', { hasText: 'Retry' });
    assert.equal(await stale.getAttribute('disabled'), '');
    const calls = fake.modelCalls.length;
    // Clicked anyway (a script, a keyboard, a stale screen): nothing is sent.
    await stale.evaluate((button) => (button as HTMLElement).click());
    await used.evaluate((button) => (button as HTMLElement).click());
    await chat.waitForTimeout(1_500);
    assert.equal(fake.modelCalls.length, calls, 'no prompt went to the model');
    assert.deepEqual(await chat.locator('.turn-user').allInnerTexts(), [
      'Fix the failing test',
      'Now the docs',
      'And the changelog',
    ]);
    await waitUntil(
      () =>
        chat
          .locator('.turn-assistant')
          .count()
          .then((count) => count === 2),
      'two answers',
    );
    await screenshot(page, 'outcomes-retry.png');
    await page.close();
  });
});
