/**
 * "Fork from here" and "Edit and resend" (SPEC 5b) in the built chat webview (dist/webview/chat.js),
 * in plain Chromium fed host messages as VS Code delivers them: each prompt offers both, an answer
 * offers Fork, none shows while the agent runs; Edit turns the prompt into an inline editor that
 * sends `message_edit` with the new text (Escape and Cancel leave it as it was); Fork sends
 * `message_fork` naming the message's event; hostile message text stays text. Needs
 * `node esbuild.mjs` first.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { agentEvent, agentEvents, deliver, postedByWebview, restartEventNumbers } from '../harness/webview-page';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { webviewPages } from './webview-pages';

type Posted = { type: string; conversationId?: string; seq?: number; text?: string };

async function postedOf(page: Page, type: string): Promise<Posted[]> {
  return ((await postedByWebview(page)) as Posted[]).filter((message) => message.type === type);
}

const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> **bold** [link](https://e.x)';

describe('chat webview in Chromium: fork and edit a message', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const pages = webviewPages({});
  beforeEach(() => restartEventNumbers());

  /** Two finished exchanges; returns the seqs of the prompts and of the first answer. */
  async function twoExchanges(page: Page, first = 'first question'): Promise<{ prompts: number[]; answer: number }> {
    const prompt1 = agentEvent({ type: 'user_message', text: first });
    const answer1 = agentEvent({ type: 'text_delta', text: 'First answer.' });
    const done1 = agentEvent({ type: 'done', stopReason: 'end_turn', turns: 1 });
    const prompt2 = agentEvent({ type: 'user_message', text: 'second question' });
    const answer2 = agentEvent({ type: 'text_delta', text: 'Second answer.' });
    const done2 = agentEvent({ type: 'done', stopReason: 'end_turn', turns: 1 });
    await deliver(page, [{ type: 'agent_events', events: [prompt1, answer1, done1, prompt2, answer2, done2] }]);
    await page.locator('.turn-user').nth(1).waitFor();
    return { prompts: [prompt1.seq, prompt2.seq], answer: answer1.seq };
  }

  it('offers Fork and Edit on each prompt and Fork on an answer; Fork posts the message it is on', async () => {
    const page = pages.page;
    const { prompts, answer } = await twoExchanges(page);
    const second = page.locator('.turn-user').nth(1);
    // The actions are not part of the message's text until the pointer is on it.
    assert.equal(await second.innerText(), 'second question');
    await second.hover();
    await second.locator('.message-fork').waitFor({ state: 'visible' });
    assert.equal(await second.locator('.message-edit').isVisible(), true);
    assert.equal(await second.innerText(), 'second question', 'the labels are drawn, not part of the text');
    assert.equal(await second.locator('.message-edit').getAttribute('aria-label'), 'Edit and resend');
    await second.locator('.message-fork').click();
    assert.deepEqual(await postedOf(page, 'message_fork'), [
      { type: 'message_fork', conversationId: 'c1', seq: prompts[1] },
    ]);
    const firstAnswer = page.locator('.turn-assistant', { hasText: 'First answer.' });
    await firstAnswer.hover();
    await firstAnswer.locator('.message-fork').click();
    assert.deepEqual((await postedOf(page, 'message_fork')).at(-1), {
      type: 'message_fork',
      conversationId: 'c1',
      seq: answer,
    });
    // A keyboard reaches them too: focus on the prompt shows its actions.
    await page.locator('.turn-user').first().focus();
    await page.locator('.turn-user').first().locator('.message-edit').waitFor({ state: 'visible' });
  });

  it('hides the actions while the agent runs', async () => {
    const page = pages.page;
    await twoExchanges(page);
    await deliver(page, [agentEvents({ type: 'user_message', text: 'third question' })]);
    await page.locator('.turn-user', { hasText: 'third question' }).waitFor();
    const first = page.locator('.turn-user').first();
    await first.hover();
    await page.waitForTimeout(100);
    assert.equal(await first.locator('.message-fork').isVisible(), false, 'no Fork while the agent runs');
    assert.equal(await first.locator('.message-edit').isVisible(), false, 'no Edit while the agent runs');
    await deliver(page, [agentEvents({ type: 'done', stopReason: 'end_turn', turns: 1 })]);
    await page.locator('#activity').waitFor({ state: 'hidden' });
    await page.mouse.move(0, 0);
    await first.hover();
    await first.locator('.message-fork').waitFor({ state: 'visible' });
  });

  it('Edit opens an inline editor: Send posts message_edit with the new text, Escape and Cancel do not', async () => {
    const page = pages.page;
    const { prompts } = await twoExchanges(page);
    const second = page.locator('.turn-user').nth(1);
    await second.hover();
    await second.locator('.message-edit').click();
    const editor = second.locator('textarea.message-editor');
    await editor.waitFor();
    assert.equal(await editor.inputValue(), 'second question');
    // Escape: back as it was, nothing sent.
    await editor.press('Escape');
    await editor.waitFor({ state: 'detached' });
    assert.equal(await second.locator('.user-text').innerText(), 'second question');
    // Cancel: the same.
    await second.hover();
    await second.locator('.message-edit').click();
    await editor.fill('never sent');
    await second.locator('.message-editor-cancel').click();
    await editor.waitFor({ state: 'detached' });
    assert.deepEqual(await postedOf(page, 'message_edit'), []);
    // Send: the edited text, for this prompt.
    await second.hover();
    await second.locator('.message-edit').click();
    await editor.fill('second question, asked better');
    await second.locator('.message-editor-send').click();
    await editor.waitFor({ state: 'detached' });
    assert.deepEqual(await postedOf(page, 'message_edit'), [
      { type: 'message_edit', conversationId: 'c1', seq: prompts[1], text: 'second question, asked better' },
    ]);
    // Enter sends too (Shift+Enter is a new line).
    const first = page.locator('.turn-user').first();
    await first.hover();
    await first.locator('.message-edit').click();
    await first.locator('textarea.message-editor').fill('again');
    await first.locator('textarea.message-editor').press('Shift+Enter');
    await first.locator('textarea.message-editor').pressSequentially('more');
    await first.locator('textarea.message-editor').press('Enter');
    assert.deepEqual((await postedOf(page, 'message_edit')).at(-1), {
      type: 'message_edit',
      conversationId: 'c1',
      seq: prompts[0],
      text: 'again\nmore',
    });
  });

  it('shows a hostile prompt as text, in the message and in its editor', async () => {
    const page = pages.page;
    const { prompts } = await twoExchanges(page, HOSTILE);
    const first = page.locator('.turn-user').first();
    assert.equal(await first.locator('.user-text').innerText(), HOSTILE);
    assert.equal(await first.locator('img, script').count(), 0);
    await first.hover();
    await first.locator('.message-edit').click();
    const editor = first.locator('textarea.message-editor');
    assert.equal(await editor.inputValue(), HOSTILE);
    await first.locator('.message-editor-send').click();
    assert.deepEqual(await postedOf(page, 'message_edit'), [
      { type: 'message_edit', conversationId: 'c1', seq: prompts[0], text: HOSTILE },
    ]);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  });

  it("shows the host's refusal as a notice", async () => {
    const page = pages.page;
    await twoExchanges(page);
    await deliver(page, [
      {
        type: 'chat_notice',
        level: 'warning',
        text: 'The agent is working: stop it first (a fork or an edit while it edits files would race it).',
        actions: [],
      },
    ]);
    await page.locator('.notice', { hasText: 'stop it first' }).waitFor();
  });
});
