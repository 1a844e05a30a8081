/**
 * A queued message's picture survives a window reload (packaged extension, code-server,
 * Chromium; the fake model server records every request): a screenshot pasted while the agent
 * waits for an approval is queued with its preview; the window reloads; the queued message comes
 * back held, with the same preview; Resume sends it — the model gets the picture's bytes.
 */
import assert from 'node:assert/strict';
import type { Frame, Page } from 'playwright-core';
import { parseScenario } from '../fixtures/fake-model-server/scenario';
import { FakeModelServer, type RecordedRequest } from '../fixtures/fake-model-server/server';
import type { WorkbenchSession } from '../harness/workbench-session';
import { TEST_TIMEOUT_MS, waitUntil } from '../harness/patience';
import { API_KEY, openChat, screenshot, send, startPackagedSession, waitForKept } from './chat-helpers';
import { dimensionsOf, makePng, pasteFiles, waitForChips } from './image-helpers';
import { findWebviewFrame, runCommand, waitForNotification, waitForWorkbench } from './workbench-ui';

type Block = { type: string; source?: { type: string; data: string } };

/** The image blocks of the request's last user message. */
function lastUserImages(request: RecordedRequest | undefined): Buffer[] {
  const messages = (request?.body as { messages: Array<{ role: string; content: unknown }> }).messages;
  const last = messages.filter((message) => message.role === 'user').at(-1);
  const blocks = Array.isArray(last?.content) ? (last.content as Block[]) : [];
  return blocks.flatMap((block) =>
    block.type === 'image' && block.source?.type === 'base64' ? [Buffer.from(block.source.data, 'base64')] : [],
  );
}

/** How many previews in `scope` are drawn (a data: URL the host sent, decoded by the page). */
function drawnPreviews(chat: Frame, scope: string): Promise<number> {
  return chat
    .locator(`${scope} img.image-preview`)
    .evaluateAll(
      (images) =>
        images.filter(
          (image) =>
            (image as HTMLImageElement).src.startsWith('data:image/') && (image as HTMLImageElement).naturalWidth > 0,
        ).length,
    );
}

describe('a queued picture across a reload (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let fake: FakeModelServer;
  let session: WorkbenchSession;
  let page: Page;

  before(async () => {
    fake = await FakeModelServer.start({
      scenario: parseScenario({
        name: 'queued-picture',
        turns: [
          {
            match: 'Deploy the docs',
            toolCalls: [{ id: 'toolu_docs', name: 'write_file', arguments: { path: 'docs/deploy.md', content: 'x' } }],
          },
          { match: 'after the reload', text: 'The queued screenshot shows four bands.' },
        ],
        whenExhausted: 'echo',
      }),
    });
    session = await startPackagedSession({
      workspace: 'sample',
      settings: {
        'openagent.provider': 'anthropic',
        'openagent.model': 'claude-sonnet-4-6',
        'openagent.baseUrl': fake.anthropicBaseUrl,
      },
      env: { ANTHROPIC_API_KEY: API_KEY, OPENAI_API_KEY: undefined, OPENAGENT_API_KEY: undefined },
    });
  });
  after(async () => {
    await session?.stop();
    await fake?.close();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page && !page.isClosed())
      await screenshot(page, 'queued-images-failure.png').catch(() => undefined);
  });

  it('pasted while the agent waits, queued with its preview, back after the reload, sent on Resume', async () => {
    let chat: Frame;
    ({ page, chat } = await openChat(session));
    await send(chat, 'Deploy the docs');
    await waitForNotification(page, 'OpenAgent wants to write docs/deploy.md');

    await pasteFiles(chat, [{ name: 'bands.png', type: 'image/png', bytes: makePng(800, 600) }]);
    await waitForChips(chat, ['bands.png']);
    await send(chat, 'Look at this after the reload');
    await chat.locator('#queue .queued-text', { hasText: 'Look at this after the reload' }).waitFor();
    await waitUntil(async () => (await drawnPreviews(chat, '#queue .queued-images')) === 1, 'the queued preview');
    await waitForKept(session, (kept) => kept.queue.length === 1 && (kept.queueImages?.[0]?.length ?? 0) === 1);
    const calls = fake.modelCalls.length;

    // The window reloads while the run waits for its approval: the run is gone, the queue is not.
    await page.reload();
    await waitForWorkbench(page);
    await runCommand(page, 'OpenAgent: Focus Chat');
    chat = await findWebviewFrame(page, '#openagent-chat');
    await chat.locator('#queue .queue-header', { hasText: 'Waiting: queued before the window reloaded.' }).waitFor();
    assert.deepEqual(await chat.locator('#queue .queued-text').allInnerTexts(), ['Look at this after the reload']);
    await waitUntil(
      async () => (await drawnPreviews(chat, '#queue .queued-images')) === 1,
      'the queued preview after the reload',
    );
    assert.equal(
      await chat.locator('#queue .queued-images img.image-preview').first().getAttribute('title'),
      'bands.png (800×600)',
    );
    await screenshot(page, 'queued-images-after-reload.png');
    assert.equal(fake.modelCalls.length, calls, 'nothing is sent by itself after the reload');

    await chat.locator('#queue vscode-button', { hasText: 'Resume' }).click();
    await chat.locator('.turn-assistant', { hasText: 'The queued screenshot shows four bands.' }).waitFor();
    const images = lastUserImages(fake.modelCalls.at(-1));
    assert.equal(images.length, 1, 'the picture went with the queued message');
    const sent = dimensionsOf(images[0]!);
    assert.deepEqual([sent.width, sent.height], [800, 600]);
    await waitUntil(async () => await chat.locator('#queue').isHidden(), 'the queue to be empty');
  });
});
