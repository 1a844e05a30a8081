/**
 * The chat webview's start (issue 23) in plain Chromium, with the script it loads after its
 * first paint held back: the composer is there and takes input before the rest of the chat's
 * code, and what the host sends meanwhile is shown once that code is in, all of it, in the order
 * it came. Needs `npm run package` (or `node esbuild.mjs`) first, like the other e2e tests.
 */
import assert from 'node:assert/strict';
import { agentEvents as events, deliver, frames, postedByWebview } from '../harness/webview-page';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { webviewPages } from './webview-pages';

/** A gate for the later script, opened by the test. */
function gate(): { promise: Promise<boolean>; open(serve: boolean): void } {
  let open: (serve: boolean) => void = () => undefined;
  const promise = new Promise<boolean>((resolve) => (open = resolve));
  return { promise, open };
}

describe('chat webview in Chromium (the composer first)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const pages = webviewPages();

  it('takes input before the rest of the chat has loaded, then shows all the host sent meanwhile, in order', async () => {
    const later = gate();
    const page = await pages.open({ laterScriptGate: later.promise });
    // The composer is painted and takes typing; the transcript waits for its code.
    const input = page.locator('#prompt textarea');
    await input.pressSequentially('my words');
    assert.equal(await input.inputValue(), 'my words');
    assert.equal(await page.locator('#transcript').getAttribute('aria-busy'), 'true');
    assert.ok((await postedByWebview(page)).some((message) => (message as { type: string }).type === 'webview_ready'));

    await deliver(page, [
      { type: 'chat_status', model: 'first-model', preset: 'coding' },
      events({ type: 'user_message', text: 'First question' }, { type: 'text_delta', text: 'First **answer**.' }),
      events(
        { type: 'done', stopReason: 'end_turn', turns: 1 },
        { type: 'user_message', text: 'Second question' },
        { type: 'text_delta', text: 'Second answer.' },
      ),
      { type: 'chat_status', model: 'second-model', preset: 'work' },
      { type: 'queue_state', items: [{ id: 'q1', text: 'Queued meanwhile' }] },
      { type: 'draft_restore', text: 'an old draft' },
      { type: 'composer_insert', text: '@file:src/app.ts' },
    ]);
    await frames(page);
    assert.equal(await page.locator('.turn').count(), 0, 'nothing is shown before its code is in');

    later.open(true);
    await page.waitForSelector('#transcript[aria-busy]', { state: 'detached' });
    await frames(page);
    assert.deepEqual(await page.locator('.turn-user, .turn-assistant').allInnerTexts(), [
      'First question',
      'First answer.',
      'Second question',
      'Second answer.',
    ]);
    // The later status wins, as it came later; the queue is there; the draft never overwrites typing.
    assert.equal(await page.locator('#pick-model .chip-label').innerText(), 'second-model');
    assert.equal(await page.locator('#pick-preset .chip-label').innerText(), 'work');
    assert.match(await page.locator('#queue').innerText(), /Queued meanwhile/);
    assert.equal(await input.inputValue(), 'my words @file:src/app.ts');
  });

  it('keeps the composer working and says so when the rest of the chat cannot load', async () => {
    const later = gate();
    const page = await pages.open({ laterScriptGate: later.promise });
    later.open(false);
    await page.locator('.notice-error', { hasText: 'could not finish loading' }).waitFor();
    const input = page.locator('#prompt textarea');
    await input.fill('still here');
    await input.press('Enter');
    const posted = (await postedByWebview(page)) as Array<{ type: string; text?: string }>;
    assert.ok(posted.some((message) => message.type === 'prompt_submit' && message.text === 'still here'));
  });
});
