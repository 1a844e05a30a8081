/**
 * The chat that comes back and queued messages, in the real editor (packaged extension,
 * code-server, Chromium): after a window reload the last conversation is back, scrolled to its
 * end, with the half-typed prompt in the composer; after New Chat and a reload, the new empty
 * chat and its own half-typed text come back. Messages sent while the agent waits for an
 * approval are queued under the composer — edited, removed — and go out, in order, as new user
 * turns once the run has ended. Two windows on two folders each come back to their own chat.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import type { FakeModelServer, RecordedRequest } from '../fixtures/fake-model-server/server';
import { lastUserText } from '../fixtures/fake-model-server/wire-writer';
import type { WorkbenchSession } from '../harness/workbench-session';
import { TEST_TIMEOUT_MS, waitUntil } from '../harness/patience';
import { openChat, screenshot, send, startWithFakeModel, waitForKept } from './chat-helpers';
import {
  clickNotificationButton,
  findWebviewFrame,
  runCommand,
  waitForNotification,
  waitForWorkbench,
} from './workbench-ui';

/** A long answer, so the transcript scrolls and "scrolled to the end" means something. */
const LONG_ANSWER = `${Array.from({ length: 60 }, (_, index) => `${index + 1}. The project has a part worth a line of its own.`).join('\n')}\n\nEND OF THE OVERVIEW.`;

type Messages = Array<{ role: string; content: unknown }>;
const messagesOf = (request: RecordedRequest | undefined) => (request?.body as { messages: Messages }).messages;
const lastUser = (request: RecordedRequest | undefined) => lastUserText({ messages: messagesOf(request) });

function waitForKeptDraft(session: WorkbenchSession, draft: string, workspace = session.workspaceDir) {
  return waitForKept(session, (kept) => kept.draft === draft, workspace);
}

async function composerText(chat: Frame): Promise<string> {
  return chat.locator('#prompt').evaluate((element) => (element as HTMLTextAreaElement).value);
}

async function waitForComposer(chat: Frame, expected: string): Promise<void> {
  let value = '';
  await waitUntil(
    async () => (value = await composerText(chat)) === expected,
    () => `the composer to hold ${JSON.stringify(expected)} (it holds ${JSON.stringify(value)})`,
  );
}

/** Types into the composer without sending. */
async function type(chat: Frame, text: string): Promise<void> {
  const input = chat.locator('#prompt textarea');
  await input.click();
  await input.fill(text);
}

/** After a reload: the workbench, then the chat (focusing it is idempotent; the icon would toggle it). */
async function reopenChat(page: Page): Promise<Frame> {
  await waitForWorkbench(page);
  await runCommand(page, 'OpenAgent: Focus Chat');
  return findWebviewFrame(page, '#openagent-chat');
}

/** Clicks Approve on an approval: on its toast, or in the notification center if the toast has been tucked away. */
async function approve(page: Page, toast: Locator): Promise<void> {
  if (await toast.isVisible()) return clickNotificationButton(toast, 'Approve');
  await runCommand(page, 'Notifications: Show Notifications');
  const item = page.locator('.notifications-center .notification-list-item', { hasText: 'OpenAgent wants to' });
  await clickNotificationButton(item, 'Approve');
}

describe('the chat comes back; queued messages (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS * 2);
  let fake: FakeModelServer;
  let session: WorkbenchSession;

  before(async () => {
    ({ fake, session } = await startWithFakeModel({
      name: 'comeback',
      turns: [
        { match: 'overview of the project', text: LONG_ANSWER, chunkSize: 200, delayMs: 0 },
        { match: 'how it is tested', text: 'It is tested with mocha, in plain Node and in the editor.' },
        {
          match: 'Deploy the docs',
          toolCalls: [{ id: 'toolu_docs', name: 'write_file', arguments: { path: 'docs/deploy.md', content: 'x' } }],
        },
        { match: 'after the reload', text: 'Sent after the reload, as queued.' },
        {
          match: 'Write the release notes',
          text: 'I will write them.',
          toolCalls: [
            { id: 'toolu_notes', name: 'write_file', arguments: { path: 'notes/release.md', content: '# 1.0\n' } },
          ],
        },
        { text: 'Wrote the release notes.' },
        { match: 'changelog', text: 'Added the changelog entry.' },
        { match: 'README', text: 'Updated the README.' },
      ],
      whenExhausted: 'echo',
    }));
  });
  after(async () => {
    await session?.stop();
    await fake?.close();
  });

  it('reopens the last conversation after a reload, at its end, with the half-typed prompt; New Chat comes back empty', async () => {
    const { page, chat } = await openChat(session);
    await send(chat, 'Give me an overview of the project');
    await chat.locator('.turn-assistant', { hasText: 'END OF THE OVERVIEW.' }).waitFor();
    const draft = 'Next, explain @file:src/greet.js and';
    await type(chat, draft);
    await waitForKeptDraft(session, draft);

    await page.reload();
    const back = await reopenChat(page);
    await back.locator('.turn-assistant', { hasText: 'END OF THE OVERVIEW.' }).waitFor();
    await waitForComposer(back, draft);
    const transcript = back.locator('#transcript');
    const scroll = await transcript.evaluate((element) => ({
      overflows: element.scrollHeight > element.clientHeight + 10,
      fromEnd: element.scrollHeight - element.scrollTop - element.clientHeight,
    }));
    assert.ok(scroll.overflows, 'the conversation is longer than the view');
    assert.ok(scroll.fromEnd < 4, `scrolled to the end (${scroll.fromEnd} px from it)`);
    await screenshot(page, 'chat-comeback-after-reload.png');
    // The prompt it answered is above (the transcript keeps only the turns near the view in the page).
    await transcript.evaluate((element) => element.scrollTo({ top: 0 }));
    await back.locator('.turn-user', { hasText: 'Give me an overview of the project' }).waitFor();

    // The half-typed prompt, finished and sent, continues the same conversation.
    await back.locator('#prompt textarea').press('End');
    await back.locator('#prompt textarea').pressSequentially(' how it is tested');
    await back.locator('#prompt textarea').press('Enter');
    await back.locator('.turn-user', { hasText: 'how it is tested' }).waitFor();
    await waitUntil(
      () => lastUser(fake.modelCalls.at(-1)).includes('how it is tested'),
      'the prompt to reach the model',
    );
    assert.deepEqual(
      messagesOf(fake.modelCalls.at(-1)).map((message) => message.role),
      ['user', 'assistant', 'user'],
      'the conversation went on with its history',
    );
    await waitUntil(async () => !(await back.locator('#stop').isVisible()), 'the answer to end');

    // New Chat, something half-typed, reload: the new empty chat and its text come back.
    await runCommand(page, 'OpenAgent: New Chat');
    await back.locator('.turn-user').first().waitFor({ state: 'detached' });
    await type(back, 'A fresh start, half typed');
    await waitForKeptDraft(session, 'A fresh start, half typed');
    await page.reload();
    const fresh = await reopenChat(page);
    await waitForComposer(fresh, 'A fresh start, half typed');
    assert.equal(await fresh.locator('.turn').count(), 0, 'the new chat is empty');
    await screenshot(page, 'chat-comeback-new-chat.png');
    await fresh.locator('#prompt textarea').fill('');
    await page.close();
  });

  it('queues messages sent while the agent works — editable, removable — and sends them after the run', async () => {
    const page = await session.openPage(`folder=${encodeURIComponent(session.workspaceDir)}`);
    const chat = await reopenChat(page);
    await runCommand(page, 'OpenAgent: New Chat');
    const callsBefore = fake.modelCalls.length;

    await send(chat, 'Write the release notes');
    // The run waits for the approval of its file write: the agent is working.
    const toast = await waitForNotification(page, 'OpenAgent wants to write notes/release.md');
    await chat.locator('#send', { hasText: 'Queue' }).waitFor();
    await send(chat, 'Also add a changelog entry');
    await send(chat, 'Update the docs');
    await send(chat, 'Delete everything');
    const queued = chat.locator('#queue .queued');
    await waitUntil(async () => (await queued.count()) === 3, 'three queued messages');
    assert.deepEqual(await chat.locator('.turn-user').allInnerTexts(), ['Write the release notes']);

    // Edit the second, remove the third.
    await queued.nth(1).locator('vscode-button', { hasText: 'Edit' }).click();
    const editor = queued.nth(1).locator('.queued-editor textarea');
    await editor.fill('Update the README too');
    await queued.nth(1).locator('vscode-button', { hasText: 'Save' }).click();
    await chat.locator('#queue .queued-text', { hasText: 'Update the README too' }).waitFor();
    await queued.nth(2).locator('vscode-button', { hasText: 'Remove' }).click();
    await waitUntil(async () => (await queued.count()) === 2, 'the removed message gone');
    assert.deepEqual(await chat.locator('#queue .queued-text').allInnerTexts(), [
      'Also add a changelog entry',
      'Update the README too',
    ]);
    assert.equal(fake.modelCalls.length, callsBefore + 1, 'nothing queued reached the model while it waited');
    await screenshot(page, 'chat-queue-waiting.png');

    await approve(page, toast);
    await chat.locator('.turn-assistant', { hasText: 'Updated the README.' }).waitFor();
    assert.deepEqual(await chat.locator('.turn-user').allInnerTexts(), [
      'Write the release notes',
      'Also add a changelog entry',
      'Update the README too',
    ]);
    const calls = fake.modelCalls.slice(callsBefore);
    assert.deepEqual(
      calls.map((call) => lastUser(call)),
      ['Write the release notes', '', 'Also add a changelog entry', 'Update the README too'],
    );
    // The first queued message came as a new user turn after the first run's full answer.
    const afterRun = messagesOf(calls[2]);
    assert.equal(afterRun.at(-1)?.role, 'user');
    assert.match(JSON.stringify(afterRun.at(-2)), /Wrote the release notes\./);
    assert.ok(!JSON.stringify(calls).includes('Delete everything'), 'the removed message was never sent');
    await waitUntil(async () => await chat.locator('#queue').isHidden(), 'the queue to be empty');
    await screenshot(page, 'chat-queue-answered.png');
    await page.close();
  });

  it('keeps the queue across a reload: held, shown, and sent when the user resumes it', async () => {
    const page = await session.openPage(`folder=${encodeURIComponent(session.workspaceDir)}`);
    const chat = await reopenChat(page);
    await runCommand(page, 'OpenAgent: New Chat');
    await send(chat, 'Deploy the docs');
    await waitForNotification(page, 'OpenAgent wants to write docs/deploy.md');
    await send(chat, 'Publish them after the reload');
    await chat.locator('#queue .queued-text', { hasText: 'Publish them after the reload' }).waitFor();
    await waitForKept(session, (kept) => kept.queue.includes('Publish them after the reload'));

    // The window reloads while the run waits for its approval: that run is gone, the queue is not.
    await page.reload();
    const back = await reopenChat(page);
    await back.locator('.turn-user', { hasText: 'Deploy the docs' }).waitFor();
    await back.locator('#queue .queue-header', { hasText: 'Waiting: queued before the window reloaded.' }).waitFor();
    assert.deepEqual(await back.locator('#queue .queued-text').allInnerTexts(), ['Publish them after the reload']);
    const calls = fake.modelCalls.length;
    await screenshot(page, 'chat-queue-after-reload.png');
    assert.equal(fake.modelCalls.length, calls, 'nothing is sent by itself after the reload');

    await back.locator('#queue vscode-button', { hasText: 'Resume' }).click();
    await back.locator('.turn-assistant', { hasText: 'Sent after the reload, as queued.' }).waitFor();
    assert.match(lastUser(fake.modelCalls.at(-1)), /Publish them after the reload/);
    await waitUntil(async () => await back.locator('#queue').isHidden(), 'the queue to be empty');
    await page.close();
  });

  it('brings each window back to its own chat: two windows on two folders', async () => {
    const otherFolder = path.join(session.root, 'other-workspace');
    fs.cpSync(session.workspaceDir, otherFolder, { recursive: true });
    // One window at a time in front: a page in the background is throttled by Chromium.
    const first = await session.openPage(`folder=${encodeURIComponent(session.workspaceDir)}`);
    const firstChat = await reopenChat(first);
    await runCommand(first, 'OpenAgent: New Chat');
    await send(firstChat, 'A question in the first window');
    await firstChat.locator('.turn-assistant').first().waitFor();

    const second = await session.openPage(`folder=${encodeURIComponent(otherFolder)}`);
    const secondChat = await reopenChat(second);
    await send(secondChat, 'A question in the second window');
    await secondChat.locator('.turn-assistant').first().waitFor();
    await type(secondChat, 'second window draft');
    await waitForKeptDraft(session, 'second window draft', otherFolder);

    await first.bringToFront();
    await first.reload();
    const again1 = await reopenChat(first);
    await again1.locator('.turn-user', { hasText: 'A question in the first window' }).waitFor();
    assert.deepEqual(await again1.locator('.turn-user').allInnerTexts(), ['A question in the first window']);
    assert.equal(await composerText(again1), '');

    await second.bringToFront();
    await second.reload();
    const again2 = await reopenChat(second);
    await again2.locator('.turn-user', { hasText: 'A question in the second window' }).waitFor();
    await waitForComposer(again2, 'second window draft');
    assert.deepEqual(await again2.locator('.turn-user').allInnerTexts(), ['A question in the second window']);
    await screenshot(second, 'chat-comeback-second-window.png');
  });
});
