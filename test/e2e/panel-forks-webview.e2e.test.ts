/**
 * The developer panel's Forks tab (SPEC 5b) in the built webview (dist/webview/panel.js), in plain
 * Chromium fed host messages as VS Code delivers them: the tree drawn root first with each fork
 * indented under its parent, where and why it was forked and the shown one marked; a click on a
 * row posts `fork_open` for it (the shown one is not a link); Refresh asks again; the host's
 * notice shows; hostile titles stay text; a 200-deep chain and 300 rows draw without freezing,
 * indentation capped, what is left out counted. Needs `node esbuild.mjs` first.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { ForkRow } from '../../src/protocol/messages';
import { countDomNodes, deliver, postedByWebview } from '../harness/webview-page';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { webviewPages } from './webview-pages';

const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> **bold**';

async function openForks(page: Page): Promise<void> {
  await page.locator('vscode-tab-header[data-tab="forks"]').click();
  await page.locator('vscode-tab-panel[data-tab="forks"]').waitFor({ state: 'visible' });
}

function row(id: string, depth: number, title: string, extra: Partial<ForkRow> = {}): ForkRow {
  return { id, depth, title, createdAt: Date.UTC(2026, 0, 2, 3, 4), shown: false, ...extra };
}

describe('developer panel webview in Chromium: the tree of forks', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const pages = webviewPages({ name: 'panel', width: 1100, height: 800, readyMessage: 'panel_ready' });
  let page: Page;
  beforeEach(() => (page = pages.page));

  it('draws the tree with where and why, marks the shown one, and a click asks the host to open', async () => {
    await openForks(page);
    assert.match(await page.locator('#forks').innerText(), /tree of forks/);
    await deliver(page, [{ type: 'fork_tree', rows: [row('root', 0, 'Fix the bug', { shown: true })], total: 1 }]);
    await page.locator('#forks .fork-row').waitFor();
    assert.match(await page.locator('#forks').innerText(), /no forks yet/);
    assert.equal(await page.locator('#count-forks').innerText(), '0');

    await deliver(page, [
      {
        type: 'fork_tree',
        rows: [
          row('root', 0, 'Fix the bug'),
          row('f1', 1, 'Fix the bug (fork)', {
            origin: { reason: 'fork', seq: 4, number: 2, role: 'assistant', text: 'Try the cache first.' },
          }),
          row('f2', 2, 'Fix the bug (fork) (fork)', {
            shown: true,
            origin: { reason: 'fork', seq: 9, number: 4, role: 'assistant', text: 'It was the cache.' },
          }),
          row('r1', 1, 'Fix the bug (before edit)', {
            origin: { reason: 'rewind', seq: 6, number: 3, role: 'user', text: 'and the tests?' },
          }),
        ],
        total: 4,
      },
    ]);
    await page.locator('#forks .fork-row[data-id="r1"]').waitFor();
    assert.equal(await page.locator('#count-forks').innerText(), '3');
    const rows = page.locator('#forks .fork-row');
    assert.deepEqual(await rows.evaluateAll((items) => items.map((item) => (item as HTMLElement).dataset.depth)), [
      '0',
      '1',
      '2',
      '1',
    ]);
    const lefts = await rows.evaluateAll((items) =>
      items.map((item) => (item.querySelector('.fork-title') as HTMLElement).getBoundingClientRect().left),
    );
    assert.ok(lefts[0]! < lefts[1]! && lefts[1]! < lefts[2]! && lefts[3] === lefts[1], `indented: ${lefts}`);
    const text = (id: string) => page.locator(`#forks .fork-row[data-id="${id}"] .fork-origin`).innerText();
    assert.match(await text('root'), /^The conversation the others were forked from · /);
    assert.match(await text('f1'), /^Forked at message 2 \(the answer\): “Try the cache first\.” · /);
    assert.match(await text('r1'), /^Kept when a prompt was edited \(rewind\) at message 3 \(your prompt\)/);
    const shown = page.locator('#forks .fork-row[data-id="f2"]');
    assert.match(await shown.innerText(), /shown/);
    assert.equal(await shown.locator('button').isDisabled(), true, 'the shown one is not a link');
    assert.equal(await shown.locator('button').getAttribute('aria-current'), 'true');

    await page.locator('#forks .fork-row[data-id="r1"] button').click();
    await page.keyboard.press('Tab');
    await page.locator('#forks .fork-row[data-id="root"] button').focus();
    await page.keyboard.press('Enter');
    await shown.locator('button').click({ force: true });
    const opened = ((await postedByWebview(page)) as Array<{ type: string }>).filter((m) => m.type === 'fork_open');
    assert.deepEqual(opened, [
      { type: 'fork_open', conversationId: 'r1' },
      { type: 'fork_open', conversationId: 'root' },
    ]);

    await deliver(page, [
      { type: 'forks_notice', level: 'warning', text: 'The agent is working: <b>stop</b> it first.' },
    ]);
    const notice = page.locator('#forks-notice');
    await page.waitForFunction(() => document.getElementById('forks-notice')?.textContent !== '');
    assert.equal(await notice.innerText(), 'The agent is working: <b>stop</b> it first.');
    await page.locator('#forks-refresh').click();
    assert.equal(await notice.innerText(), '', 'Refresh clears the notice');
    const asked = ((await postedByWebview(page)) as Array<{ type: string }>).filter((m) => m.type === 'forks_request');
    assert.equal(asked.length, 1);

    // A panel_reset (the session opened another conversation) leaves the tree until the next one.
    await deliver(page, [{ type: 'panel_reset' }]);
    assert.equal(await rows.count(), 4);
  });

  it('hostile titles and messages stay text', async () => {
    await openForks(page);
    await deliver(page, [
      {
        type: 'fork_tree',
        rows: [
          row('root', 0, HOSTILE, { shown: true }),
          row('f1', 1, HOSTILE, { origin: { reason: 'fork', seq: 1, number: 1, role: 'user', text: HOSTILE } }),
        ],
        total: 2,
      },
    ]);
    await page.locator('#forks .fork-row[data-id="f1"]').waitFor();
    assert.equal(await page.locator('#forks img, #forks script, #forks strong').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
    assert.equal(await page.locator('#forks .fork-row[data-id="f1"] .fork-title').innerText(), HOSTILE);
  });

  it('a 200-deep chain and a full list of rows draw quickly, indentation capped, the rest counted', async () => {
    await openForks(page);
    const chain = Array.from({ length: 200 }, (_, depth) =>
      row(`c${depth}`, depth, `level ${depth} ${'x'.repeat(150)}`, {
        shown: depth === 199,
        ...(depth > 0
          ? { origin: { reason: 'fork' as const, seq: depth, number: 1, role: 'user' as const, text: 'q' } }
          : {}),
      }),
    );
    const siblings = Array.from({ length: 100 }, (_, index) => row(`s${index}`, 1, `sibling ${index}`));
    const rows = [chain[0]!, ...siblings.slice(0, 50), ...chain.slice(1), ...siblings.slice(50)].slice(0, 300);
    rows[0] = { ...rows[0]!, more: 450 };
    await deliver(page, [{ type: 'fork_tree', rows, total: 750 }]);
    await page.locator('#forks .fork-row[data-id="c199"]').waitFor();
    assert.equal(await page.locator('#forks .fork-row').count(), 300);
    assert.match(await page.locator('#forks').innerText(), /450 more fork\(s\) below this one are not listed/);
    assert.match(await page.locator('#forks').innerText(), /450 more conversation\(s\) of this tree are not listed/);
    const deepest = page.locator('#forks .fork-row[data-id="c199"]');
    assert.match(await deepest.innerText(), /level 199/);
    assert.match(await deepest.innerText(), /↳ level 199/, 'a row deeper than the indentation says its depth');
    const box = await deepest.locator('.fork-title').boundingBox();
    assert.ok(box && box.x + box.width <= 1100, `the deepest row stays in the panel: ${JSON.stringify(box)}`);
    const { elements } = await countDomNodes(page);
    assert.ok(elements < 10_000, `${elements} elements`);
    // Still answering: a click on a row posts at once.
    await page.locator('#forks .fork-row[data-id="c100"] button').click();
    const opened = ((await postedByWebview(page)) as Array<{ type: string }>).filter((m) => m.type === 'fork_open');
    assert.deepEqual(opened, [{ type: 'fork_open', conversationId: 'c100' }]);
  });
});
