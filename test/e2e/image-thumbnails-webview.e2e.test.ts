/**
 * Images in the built webviews (issue 36), in plain Chromium under the extension's CSP, fed host
 * messages as VS Code delivers them. The developer panel: an event's images become thumbnails
 * once its row is on screen (asked for by sha256, a few per event), drawn as <img> with data: URLs;
 * a missing one says "no longer stored"; rows off screen ask nothing. The chat: a prompt's and a
 * read_file result's images are previewed. Hostile names stay text, hostile URLs never load.
 * Needs `node esbuild.mjs` first, like the other webview tests.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { AgentEvent, AgentEventBody } from '../../src/core/events/events';
import { agentEvents, deliver, frames, postedByWebview } from '../harness/webview-page';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { pngOf } from '../fixtures/image-bytes';
import { webviewPages } from './webview-pages';

const sha = (n: number) => n.toString(16).padStart(64, '0');
const HOSTILE_NAME = '<img src=x onerror="window.__pwned=1">"><script>window.__pwned=2</script>.png';

function image(n: number, name?: string) {
  return { sha256: sha(n), mediaType: 'image/png', width: 800, height: 600, ...(name ? { name } : {}) };
}

let seq = 0;
function panelEvents(...bodies: AgentEventBody[]): { type: 'agent_events'; events: AgentEvent[] } {
  return {
    type: 'agent_events',
    events: bodies.map(
      (body) => ({ conversationId: 'c1', agentId: 'lead', seq: seq++, time: 0, ...body }) as AgentEvent,
    ),
  };
}

/** The sha256s the panel asked thumbnails for, in order. */
async function asked(page: Page): Promise<string[]> {
  const posted = (await postedByWebview(page)) as Array<{ type: string; sha256s?: string[] }>;
  return posted.filter((message) => message.type === 'image_thumbnails_request').flatMap((message) => message.sha256s!);
}

async function openEvents(page: Page): Promise<void> {
  await page.locator('vscode-tab-header[data-tab="events"]').click();
  await page.locator('vscode-tab-panel[data-tab="events"]').waitFor({ state: 'visible' });
}

describe('developer panel webview: image thumbnails (Chromium)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const pages = webviewPages({ name: 'panel', width: 1100, height: 800, readyMessage: 'panel_ready' });
  let page: Page;
  let pngUrl: string;
  before(async () => (pngUrl = `data:image/png;base64,${(await pngOf(120, 90)).toString('base64')}`));
  beforeEach(() => (page = pages.page));

  it('draws a user_message and a read_file result as thumbnails, says which are gone, keeps names as text', async () => {
    await deliver(page, [
      panelEvents(
        { type: 'user_message', text: 'what is wrong here?', images: [image(1, HOSTILE_NAME), image(2, 'gone.png')] },
        { type: 'tool_call', toolCallId: 't1', toolName: 'read_file', input: { path: 'shot.webp' } },
        {
          type: 'tool_result',
          toolCallId: 't1',
          toolName: 'read_file',
          output: 'an image',
          isError: false,
          durationMs: 3,
          images: [image(3, 'shot.webp'), image(4, 'evil.png')],
        },
      ),
    ]);
    await frames(page);
    assert.deepEqual(await asked(page), [], 'nothing is asked while the Events tab is hidden');
    await openEvents(page);
    await page.waitForFunction(() =>
      (window as unknown as { __posted: Array<{ type: string }> }).__posted.some(
        (message) => message.type === 'image_thumbnails_request',
      ),
    );
    assert.deepEqual((await asked(page)).sort(), [sha(1), sha(2), sha(3), sha(4)]);
    await deliver(page, [
      {
        type: 'image_thumbnails',
        thumbnails: [
          { sha256: sha(1), url: pngUrl },
          { sha256: sha(2), problem: 'gone' },
          { sha256: sha(3), url: pngUrl.replace('image/png', 'image/jpeg') },
          // A URL that is not an image's data URL is never put in an <img>.
          { sha256: sha(4), url: 'javascript:window.__pwned=3' },
        ],
      },
    ]);
    await frames(page);

    const cells = await page.locator('.event-thumbnail').evaluateAll((elements) =>
      elements.map((element) => ({
        sha256: (element as HTMLElement).dataset.sha256,
        state: (element as HTMLElement).dataset.state,
        src: element.querySelector('img')?.getAttribute('src')?.slice(0, 23),
        loaded: (element.querySelector('img')?.naturalWidth ?? 0) > 0,
        text: element.textContent,
      })),
    );
    assert.deepEqual(cells, [
      { sha256: sha(1), state: 'shown', src: 'data:image/png;base64,i', loaded: true, text: HOSTILE_NAME },
      { sha256: sha(2), state: 'gone', src: undefined, loaded: false, text: 'no longer storedgone.png' },
      // (Chromium sniffs the PNG behind the jpeg label and draws it.)
      { sha256: sha(3), state: 'shown', src: 'data:image/jpeg;base64,', loaded: true, text: 'shot.webp' },
      { sha256: sha(4), state: 'no_preview', src: undefined, loaded: false, text: 'no previewevil.png' },
    ]);
    const rows = page.locator('.event-row');
    assert.equal(await rows.nth(0).locator('.event-thumbnail img').count(), 1);
    assert.equal(await rows.nth(2).locator('.event-thumbnail img').count(), 1, 'the read_file result row');
    // The picture is drawn within the thumbnail's box.
    const box = await page.locator('.event-thumbnail img').first().boundingBox();
    assert.ok(box && box.width <= 96 && box.width >= 90 && box.height <= 96, JSON.stringify(box));
    assert.equal(await page.locator('img[src="x"], script:not([nonce])').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  });

  it('asks only for rows on screen, a few per event, each sha256 once, and fills rows drawn again from what it has', async () => {
    await openEvents(page);
    const many = Array.from({ length: 20 }, (_, index) => image(1000 + index));
    const bodies: AgentEventBody[] = [
      { type: 'user_message', text: 'twenty screenshots', images: many },
      ...Array.from({ length: 300 }, (_, index) => ({
        type: 'user_message' as const,
        text: `prompt ${index}`,
        images: [image(index + 1)],
      })),
    ];
    await deliver(page, [panelEvents(...bodies)]);
    await page.waitForFunction(() =>
      (window as unknown as { __posted: Array<{ type: string }> }).__posted.some(
        (message) => message.type === 'image_thumbnails_request',
      ),
    );
    await frames(page, 5);
    const first = await asked(page);
    assert.equal(new Set(first).size, first.length, 'each sha256 asked once');
    assert.deepEqual(
      first.slice(0, 6),
      many.slice(0, 6).map((item) => item.sha256),
      'the first six of the twenty',
    );
    assert.ok(first.length < 40, `only rows on screen ask (${first.length} asked of 306 images)`);
    assert.equal(await page.locator('.thumbnail-more').first().innerText(), '+14 more');

    // Scrolled to the newest row: it asks for its own.
    await page.locator('.event-row').last().scrollIntoViewIfNeeded();
    await page.waitForFunction((wanted) => {
      const posted = (window as unknown as { __posted: Array<{ type: string; sha256s?: string[] }> }).__posted;
      return posted.some((message) => message.sha256s?.includes(wanted));
    }, sha(300));

    // Answered; then the filter draws the row again: filled at once, not asked again.
    await deliver(page, [{ type: 'image_thumbnails', thumbnails: [{ sha256: sha(300), url: pngUrl }] }]);
    const filter = page.locator('#event-text');
    await filter.click();
    await page.keyboard.type('prompt 299');
    await page.waitForFunction(() => document.querySelectorAll('.event-row').length === 1);
    await frames(page, 5);
    assert.equal(await page.locator('.event-row .event-thumbnail img').getAttribute('src'), pngUrl);
    const all = await asked(page);
    assert.equal(all.filter((sha256) => sha256 === sha(300)).length, 1);
    assert.equal(new Set(all).size, all.length, 'nothing asked twice while rows were drawn again per keystroke');
    assert.ok(all.length < 120, `${all.length} asked`);
  });

  it('a sha256 that is not one is never asked for and shows no preview', async () => {
    await openEvents(page);
    await deliver(page, [
      panelEvents({
        type: 'user_message',
        text: 'odd',
        images: [{ sha256: '"] , * { x', mediaType: 'image/png', width: 1, height: 100_000, name: 'odd.png' }],
      }),
    ]);
    await frames(page, 5);
    assert.deepEqual(await asked(page), []);
    assert.equal(await page.locator('.event-thumbnail').getAttribute('data-state'), 'no_preview');
  });
});

describe('chat webview: image previews (Chromium)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const pages = webviewPages({});
  let page: Page;
  let pngUrl: string;
  before(async () => (pngUrl = `data:image/png;base64,${(await pngOf(120, 90)).toString('base64')}`));
  beforeEach(() => (page = pages.page));

  it("shows the prompt's images and a read_file result's image from their previews; names stay text", async () => {
    await deliver(page, [
      agentEvents(
        { type: 'user_message', text: 'look at this', images: [image(1, HOSTILE_NAME)] },
        { type: 'tool_call', toolCallId: 't1', toolName: 'read_file', input: { path: 'shot.png' } },
        {
          type: 'tool_result',
          toolCallId: 't1',
          toolName: 'read_file',
          output: 'an image',
          isError: false,
          durationMs: 2,
          images: [image(2, 'shot.png')],
        },
        { type: 'text_delta', text: 'I see a gradient.' },
        { type: 'done', stopReason: 'end_turn', turns: 1 },
      ),
      {
        type: 'image_previews',
        previews: [
          { sha256: sha(1), url: pngUrl },
          { sha256: sha(2), url: pngUrl },
        ],
      },
    ]);
    await frames(page, 5);
    const previews = await page.locator('img.image-preview').evaluateAll((elements) =>
      elements.map((element) => ({
        sha256: (element as HTMLImageElement).dataset.sha256,
        data: (element as HTMLImageElement).src.startsWith('data:image/png;base64,'),
        loaded: (element as HTMLImageElement).naturalWidth > 0,
        alt: (element as HTMLImageElement).alt,
      })),
    );
    assert.deepEqual(previews, [
      { sha256: sha(1), data: true, loaded: true, alt: `${HOSTILE_NAME} (800×600)` },
      { sha256: sha(2), data: true, loaded: true, alt: 'shot.png (800×600)' },
    ]);
    // The read_file result's picture sits after the user's turn, under the tool's line.
    const order = await page
      .locator('.turn')
      .evaluateAll((turns) =>
        turns.map((turn) => (turn.querySelector('img.image-preview') ? 'image' : turn.className.split(' ')[1])),
      );
    assert.equal(order.filter((kind) => kind === 'image').length, 2, order.join(','));
    assert.equal(await page.locator('img[src="x"]').count(), 0);
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
  });

  it('a preview URL that is not an image data URL is not loaded', async () => {
    await deliver(page, [
      agentEvents({ type: 'user_message', text: 'look', images: [image(5, 'a.png')] }),
      { type: 'image_previews', previews: [{ sha256: sha(5), url: 'data:text/html;base64,PHNjcmlwdD48L3NjcmlwdD4=' }] },
    ]);
    await frames(page, 5);
    assert.equal(await page.locator('img.image-preview').getAttribute('src'), null);
  });
});
