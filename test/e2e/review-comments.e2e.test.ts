/**
 * Review comments back to the agent in the real editor (issue 36, item 3), as a user does: the
 * agent edits greet.js; "Review" opens the file at its hunk; the user comments on the hunk's line
 * through VS Code's comments UI and presses "Add and Send to OpenAgent"; the fake model receives
 * the comment as the next user message — file, line, the comment quoted and the line's code — and
 * answers with an edit that lands in the file; once that turn ends the comment is gone.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FakeModelServer } from '../fixtures/fake-model-server/server';
import type { WorkbenchSession } from '../harness/workbench-session';
import { TEST_TIMEOUT_MS, waitUntil } from '../harness/patience';
import { openChat, screenshot, send, startWithFakeModel } from './chat-helpers';
import { clickNotificationButton, runCommand, waitForNotification } from './workbench-ui';

const ORIGINAL = fs.readFileSync(
  path.join(__dirname, '..', 'fixtures', 'workspaces', 'sample', 'src', 'greet.js'),
  'utf8',
);
const EXPORTS = [
  'module.exports = { greet };',
  'module.exports = { greet, default: greet };',
  'module.exports = { greet, hello: greet, default: greet };',
] as const;
const COMMENT = 'Also export it as hello';

describe('review comments sent back to the agent (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let fake: FakeModelServer;
  let session: WorkbenchSession;

  before(async () => {
    ({ fake, session } = await startWithFakeModel({
      name: 'review comment',
      turns: [
        {
          match: 'Export greet as default',
          toolCalls: [
            {
              id: 'toolu_first',
              name: 'edit_file',
              arguments: { path: 'src/greet.js', edits: [{ oldText: EXPORTS[0], newText: EXPORTS[1] }] },
            },
          ],
        },
        { text: 'greet.js now has a default export.' },
        {
          match: 'Review comments from the user',
          toolCalls: [
            {
              id: 'toolu_comment',
              name: 'edit_file',
              arguments: { path: 'src/greet.js', edits: [{ oldText: EXPORTS[1], newText: EXPORTS[2] }] },
            },
          ],
        },
        { text: 'Done: greet is exported as hello too.' },
      ],
    }));
  });
  after(async () => {
    await session?.stop();
    await fake?.close();
  });

  it('a comment on the hunk reaches the model as the next message, and its edit lands', async () => {
    const file = path.join(session.workspaceDir, 'src', 'greet.js');
    const { page, chat } = await openChat(session);

    await send(chat, 'Export greet as default');
    await clickNotificationButton(await waitForNotification(page, 'OpenAgent wants to edit src/greet.js'), 'Approve');
    await chat.locator('.turn-assistant', { hasText: 'greet.js now has a default export.' }).waitFor();
    const files = chat.locator('.turn-files').last();
    await files.locator('.review-state', { hasText: '1 to review' }).waitFor();

    // "Review" opens the file with the cursor on the hunk's line; the user comments on it.
    await files.locator('a.review-open').click();
    await page.locator('.monaco-editor .codelens-decoration', { hasText: '1 change to review' }).waitFor();
    await runCommand(page, 'Comments: Add Comment on Current Selection');
    const widget = page.locator('.review-widget').first();
    await widget.getByRole('button', { name: 'Add Comment', exact: true }).waitFor();
    await page.keyboard.type(COMMENT);
    await screenshot(page, 'review-comment-typed.png');
    const before = fake.modelCalls.length;
    // The form's first action is its primary one: its name carries its key (Ctrl+Enter) too.
    await widget.getByRole('button', { name: /^Add and Send to OpenAgent/ }).click();

    // The model receives it as the next user message: file, line, the comment, the line's code.
    await waitUntil(() => fake.modelCalls.length > before, 'the comment to reach the model');
    const request = fake.modelCalls[before]!.body as {
      messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }>;
    };
    const last = request.messages.at(-1)!;
    assert.equal(last.role, 'user');
    const text =
      typeof last.content === 'string' ? last.content : last.content.map((block) => block.text ?? '').join('\n');
    assert.match(text, /Review comments from the user on your changes: 1 comment\./);
    assert.ok(
      text.includes(`Comment 1: src/greet.js line 6\n> ${COMMENT}\n\`\`\`\n${EXPORTS[1]}\n\`\`\``),
      `the comment with its file, line and code, in:\n${text}`,
    );
    await chat.locator('.turn-user', { hasText: COMMENT }).first().waitFor();

    // The agent acts on it: its edit lands, and once the turn ends the comment is gone.
    await clickNotificationButton(await waitForNotification(page, 'OpenAgent wants to edit src/greet.js'), 'Approve');
    await chat.locator('.turn-assistant', { hasText: 'Done: greet is exported as hello too.' }).waitFor();
    await waitUntil(
      () => fs.readFileSync(file, 'utf8') === ORIGINAL.replace(EXPORTS[0], EXPORTS[2]),
      'the agent’s edit to land in the file',
    );
    await page.locator('.review-widget .comment-body', { hasText: COMMENT }).waitFor({ state: 'detached' });
    await screenshot(page, 'review-comment-answered.png');
  });
});
