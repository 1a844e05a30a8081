/**
 * Reviewing the agent's edits hunk by hunk in the real editor, as a user does: the agent edits
 * two places of one file; the chat lists the file with its two changes to review; "Review" opens
 * it with Keep / Undo above each hunk; the user keeps one and undoes the other; the file holds
 * exactly the kept one, and the next request the model receives says which hunk was undone.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { FakeModelServer } from '../fixtures/fake-model-server/server';
import type { WorkbenchSession } from '../harness/workbench-session';
import { TEST_TIMEOUT_MS, waitUntil } from '../harness/patience';
import { openChat, screenshot, send, startWithFakeModel } from './chat-helpers';
import { clickNotificationButton, waitForNotification } from './workbench-ui';

const ORIGINAL = fs.readFileSync(
  path.join(__dirname, '..', 'fixtures', 'workspaces', 'sample', 'src', 'greet.js'),
  'utf8',
);
const COMMENT = ['/** Returns a greeting for a name. */', '/** Returns a friendly greeting for a name. */'] as const;
const EXPORTS = ['module.exports = { greet };', 'module.exports = { greet, default: greet };'] as const;

/** The lens (a link above a line of the editor) whose whole text is `label`, the first from the top. */
function lens(page: Page, label: string) {
  return page.locator('.monaco-editor .codelens-decoration a', { hasText: new RegExp(`^\\s*${label}\\s*$`) }).first();
}

describe('review of the agent’s edits, hunk by hunk (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let fake: FakeModelServer;
  let session: WorkbenchSession;

  before(async () => {
    ({ fake, session } = await startWithFakeModel({
      name: 'two hunks',
      turns: [
        {
          match: 'Polish greet.js',
          toolCalls: [
            {
              id: 'toolu_edit',
              name: 'edit_file',
              arguments: {
                path: 'src/greet.js',
                edits: [
                  { oldText: COMMENT[0], newText: COMMENT[1] },
                  { oldText: EXPORTS[0], newText: EXPORTS[1] },
                ],
              },
            },
          ],
        },
        { text: 'I polished the comment and the exports of greet.js.' },
        { match: 'What did I undo', text: 'You undid the new export; I will leave it out.' },
      ],
    }));
  });
  after(async () => {
    await session?.stop();
    await fake?.close();
  });

  it('keeps one hunk and undoes the other: the file holds exactly the kept one, and the model is told', async () => {
    const file = path.join(session.workspaceDir, 'src', 'greet.js');
    const { page, chat } = await openChat(session);

    await send(chat, 'Polish greet.js');
    await clickNotificationButton(await waitForNotification(page, 'OpenAgent wants to edit src/greet.js'), 'Approve');
    await chat.locator('.turn-assistant', { hasText: 'I polished the comment' }).waitFor();
    const files = chat.locator('.turn-files').last();
    await files.locator('.review-state', { hasText: '2 to review' }).waitFor();
    assert.equal(
      fs.readFileSync(file, 'utf8'),
      ORIGINAL.replace(COMMENT[0], COMMENT[1]).replace(EXPORTS[0], EXPORTS[1]),
    );
    await screenshot(page, 'review-chat-two-changes.png');

    // "Review" opens the file with Keep / Undo above each of its hunks.
    await files.locator('a.review-open').click();
    await page.locator('.monaco-editor .codelens-decoration', { hasText: '2 changes to review' }).waitFor();
    await lens(page, 'Undo').waitFor();
    assert.equal(await page.locator('.monaco-editor .codelens-decoration a', { hasText: /^\s*Keep\s*$/ }).count(), 2);
    await screenshot(page, 'review-editor-two-hunks.png');

    // Keep the first hunk (the comment)…
    await lens(page, 'Keep').click();
    await page.locator('.monaco-editor .codelens-decoration', { hasText: '1 change to review' }).waitFor();
    // …and undo the other (the exports): the only Undo left above a hunk.
    await lens(page, 'Undo').click();
    const kept = ORIGINAL.replace(COMMENT[0], COMMENT[1]);
    await waitUntil(() => fs.readFileSync(file, 'utf8') === kept, 'the file to hold exactly the kept hunk');
    await page.locator('.monaco-editor .codelens-decoration').first().waitFor({ state: 'detached' });
    await files.locator('.review-state', { hasText: '1 kept · 1 undone' }).waitFor();
    await screenshot(page, 'review-kept-one-undid-one.png');

    // The next request tells the model which hunk was undone — and not the kept one.
    const before = fake.modelCalls.length;
    await send(chat, 'What did I undo?');
    await chat.locator('.turn-assistant', { hasText: 'You undid the new export' }).waitFor();
    const request = fake.modelCalls[before]?.body as {
      messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }>;
    };
    const last = request.messages.at(-1)!;
    const text =
      typeof last.content === 'string' ? last.content : last.content.map((block) => block.text ?? '').join('\n');
    assert.match(text, /What did I undo\?/);
    assert.match(text, /undid these hunks/);
    assert.ok(
      text.includes(`src/greet.js line 6\n- ${EXPORTS[1]}\n+ ${EXPORTS[0]}`),
      `the undone hunk, by file and line, in:\n${text}`,
    );
    assert.ok(!text.includes(COMMENT[1]), 'the kept hunk is not reported as undone');
    await chat.locator('.turn-status', { hasText: 'The agent was told what you undid (1 change).' }).waitFor();
    assert.equal(fs.readFileSync(file, 'utf8'), kept, 'the file still holds the kept hunk only');
    await screenshot(page, 'review-model-told.png');
  });
});
