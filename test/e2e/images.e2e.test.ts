/**
 * Images in the real editor (issue 36; packaged .vsix in code-server, driven with Playwright;
 * the fake model server records every request): a 4000×3000 screenshot pasted into the composer
 * shows as a chip, reaches the model scaled to 1568 px on its long side — as an Anthropic `image`
 * block and, on an OpenAI-compatible server, as an `image_url` data URL — and
 * the prompt in the chat shows its preview; read_file of a PNG in the workspace gives the model
 * the picture in both wire shapes; a dropped file becomes a chip and a dropped SVG is refused
 * with the typed text kept; a model that takes no images (by its name, as model-info tells) gets a
 * note instead, and the user sees why.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import type { RecordedRequest } from '../fixtures/fake-model-server/server';
import type { WorkbenchSession } from '../harness/workbench-session';
import { TEST_TIMEOUT_MS, waitUntil } from '../harness/patience';
import { parseScenario } from '../fixtures/fake-model-server/scenario';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { API_KEY, openChat, screenshot, send, startPackagedSession } from './chat-helpers';
import {
  chips,
  dimensionsOf,
  dropFiles,
  makeJpeg,
  makePng,
  pasteFiles,
  waitForChips,
  waitForTurnPreviews,
} from './image-helpers';
import { quickPickRow, runCommand } from './workbench-ui';

/** The long side every image is prepared to (IMAGE_LIMITS.maxLongSide), whichever the provider. */
const LONG_SIDE = 1568;

// ---------------------------------------------------------------- what the model was sent

type Block = { type: string; [key: string]: unknown };
type WireMessage = { role: string; content: string | Block[]; tool_call_id?: string };

function messagesOf(request: RecordedRequest | undefined): WireMessage[] {
  return ((request?.body as { messages?: WireMessage[] } | undefined)?.messages ?? []) as WireMessage[];
}

function blocksOf(message: WireMessage | undefined): Block[] {
  if (!message) return [];
  return typeof message.content === 'string' ? [{ type: 'text', text: message.content }] : message.content;
}

/** The last request's last user message (Anthropic and OpenAI alike). */
function lastUserMessage(request: RecordedRequest | undefined): WireMessage {
  const message = messagesOf(request).findLast((candidate) => candidate.role === 'user');
  assert.ok(message, 'the request has a user message');
  return message;
}

/** An Anthropic image block's bytes, checked to be what it says. */
function anthropicImage(block: Block): Buffer {
  const source = block.source as { type: string; media_type: string; data: string };
  assert.equal(source.type, 'base64');
  const bytes = Buffer.from(source.data, 'base64');
  assert.equal(source.media_type, `image/${dimensionsOf(bytes).format}`, 'the media type names the bytes');
  return bytes;
}

/** An OpenAI image_url part's bytes, from its data URL, checked to be what it says. */
function openAiImage(block: Block): Buffer {
  const url = (block.image_url as { url: string }).url;
  const match = /^data:(image\/[a-z]+);base64,(.+)$/s.exec(url);
  assert.ok(match, `a data URL: ${url.slice(0, 40)}`);
  const bytes = Buffer.from(match[2]!, 'base64');
  assert.equal(match[1], `image/${dimensionsOf(bytes).format}`, 'the media type names the bytes');
  return bytes;
}

// ---------------------------------------------------------------- the tests

// One session per wire format: code-server does not pass a settings.json written from outside
// on to the running extension, and the palette's provider switch clears the base URL.
let fake: FakeModelServer;
let session: WorkbenchSession;
let page: Page;
let chat: Frame;
/** A 4000×3000 screenshot, as pasted. */
const screenshotPng = makePng(4000, 3000);

/** In the calling describe: the fake model server, a packaged session set up by `settings`, its chat open. */
function useSession(settings: (fake: FakeModelServer) => Record<string, unknown>): void {
  before(async () => {
    fake = await FakeModelServer.start({ scenario: parseScenario({ name: 'empty', turns: [] }) });
    session = await startPackagedSession({
      workspace: 'sample',
      settings: settings(fake),
      env: { ANTHROPIC_API_KEY: API_KEY, OPENAI_API_KEY: undefined, OPENAGENT_API_KEY: undefined },
    });
    fs.mkdirSync(path.join(session.workspaceDir, 'docs'), { recursive: true });
    fs.writeFileSync(path.join(session.workspaceDir, 'docs', 'layout.png'), makePng(2000, 1000));
    ({ page, chat } = await openChat(session));
  });
  after(async () => {
    await session?.stop();
    await fake?.close();
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page && !page.isClosed()) {
      await screenshot(page, `images-failure-${this.currentTest.title.slice(0, 24).replace(/\W+/g, '-')}.png`).catch(
        () => undefined,
      );
    }
  });
}

/** A new chat: New Chat, then an empty transcript before anything is sent. */
async function newChat(): Promise<void> {
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

/** Sends `text` and waits for the scripted answer `answer`; returns the requests it took. */
async function sendAndWait(text: string, answer: string): Promise<RecordedRequest[]> {
  const before = fake.modelCalls.length;
  await send(chat, text);
  await chat.locator('.turn-assistant', { hasText: answer }).waitFor();
  // The run is over (Stop goes): what is photographed next is the chat at rest.
  await chat.locator('#stop').waitFor({ state: 'hidden' });
  return fake.modelCalls.slice(before);
}

describe('images in the chat, Anthropic wire (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  useSession((fake) => ({
    'openagent.provider': 'anthropic',
    'openagent.model': 'claude-sonnet-4-6',
    'openagent.baseUrl': fake.anthropicBaseUrl,
  }));

  it('a pasted 4000×3000 screenshot: a chip with its preview, an Anthropic image block of 1568 px, the preview in the chat', async () => {
    fake.setScenario({ name: 'paste-anthropic', turns: [{ match: 'What is wrong', text: 'The header overlaps.' }] });
    await pasteFiles(chat, [{ name: 'shot.png', type: 'image/png', bytes: screenshotPng }]);
    await waitForChips(chat, ['shot.png']);
    await screenshot(page, 'images-chip.png');

    const [request, ...more] = await sendAndWait('What is wrong in this screen?', 'The header overlaps.');
    assert.equal(more.length, 0, 'one model call');
    assert.equal(request!.protocol, 'anthropic');
    const message = lastUserMessage(request);
    const images = blocksOf(message).filter((block) => block.type === 'image');
    assert.equal(images.length, 1, 'one image block');
    const sent = dimensionsOf(anthropicImage(images[0]!));
    assert.deepEqual(
      [sent.width, sent.height],
      [LONG_SIDE, 1176],
      'scaled to 1568 px on the long side, the shape kept',
    );
    assert.ok(
      blocksOf(message).some(
        (block) => block.type === 'text' && String(block.text).includes('What is wrong in this screen?'),
      ),
      'the prompt travels with it',
    );
    assert.deepEqual(await chips(chat), [], 'the chip went with the prompt');

    await waitForTurnPreviews(chat, 'What is wrong in this screen?', 1);
    assert.equal(
      await chat.locator('.turn-user .image-preview').first().getAttribute('title'),
      'shot.png (1568×1176)',
      'the preview names the image and the size the model got',
    );
    await screenshot(page, 'images-turn-anthropic.png');
  });

  it('read_file of a PNG: the next Anthropic request carries it as an image in the tool_result', async () => {
    fake.setScenario({
      name: 'read-png-anthropic',
      turns: [
        {
          match: 'Look at the layout',
          text: 'Reading it.',
          toolCalls: [{ id: 'toolu_png', name: 'read_file', arguments: { path: 'docs/layout.png' } }],
        },
        { text: 'Two columns, four bands.' },
      ],
    });
    await newChat();
    const requests = await sendAndWait('Look at the layout picture', 'Two columns, four bands.');
    assert.equal(requests.length, 2);
    const result = messagesOf(requests[1])
      .flatMap((message) => blocksOf(message))
      .find((block) => block.type === 'tool_result' && block.tool_use_id === 'toolu_png');
    assert.ok(result, 'the tool_result of the call');
    assert.notEqual(result.is_error, true);
    const content = result.content as Block[];
    assert.ok(Array.isArray(content), 'the tool_result content is a list of blocks');
    assert.deepEqual(
      content.map((block) => block.type),
      ['text', 'image'],
    );
    const sent = dimensionsOf(anthropicImage(content[1]!));
    assert.deepEqual([sent.width, sent.height], [LONG_SIDE, 784], 'the 2000×1000 file scaled down');
    // In the chat: the tool line, and under it what the model was shown.
    assert.deepEqual(await chat.locator('.turn-tool .tool-call').allInnerTexts(), ['read_file docs/layout.png']);
    await waitUntil(
      () =>
        chat
          .locator('.turn-images img.image-preview')
          .evaluateAll((images) => images.filter((image) => (image as HTMLImageElement).naturalWidth > 0).length)
          .then((count) => count === 1),
      'the read picture shown under its tool line',
    );
    await screenshot(page, 'images-read-file-anthropic.png');
  });

  it('a dropped file becomes a chip; a dropped SVG is refused, saying why, and the typed text stays', async () => {
    fake.setScenario({ name: 'drop', turns: [{ match: 'dropped photo', text: 'A grey photo.' }] });
    await newChat();
    const input = chat.locator('#prompt textarea');
    await input.click();
    await input.fill('Compare with the dropped photo');
    await dropFiles(chat, [{ name: 'photo.jpg', type: 'image/jpeg', bytes: await makeJpeg() }]);
    await waitForChips(chat, ['photo.jpg']);

    await dropFiles(chat, [
      { name: 'logo.svg', type: 'image/svg+xml', bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>') },
    ]);
    const note = chat.locator('#image-note');
    await note.filter({ hasText: 'logo.svg' }).waitFor();
    assert.equal(
      await note.innerText(),
      'logo.svg is not an image for this purpose (it is text: attach it as a file).',
    );
    assert.equal(await input.inputValue(), 'Compare with the dropped photo', 'the typed text stays');
    assert.deepEqual(await chips(chat), [{ name: 'photo.jpg', preview: true }], 'the refused file is not attached');
    await screenshot(page, 'images-drop-svg-refused.png');

    await input.press('Enter');
    await chat.locator('.turn-assistant', { hasText: 'A grey photo.' }).waitFor();
    const images = blocksOf(lastUserMessage(fake.modelCalls.at(-1))).filter((block) => block.type === 'image');
    assert.equal(images.length, 1, 'the dropped photo went, the SVG did not');
    assert.deepEqual(dimensionsOf(anthropicImage(images[0]!)), { format: 'jpeg', width: 300, height: 200 });
    assert.ok(!JSON.stringify(fake.modelCalls.at(-1)!.body).includes('<svg'), 'nothing of the SVG reached the model');
    await waitForTurnPreviews(chat, 'Compare with the dropped photo', 1);
  });
});

describe('images in the chat, OpenAI-compatible wire (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  useSession((fake) => ({
    'openagent.provider': 'openai-compatible',
    'openagent.model': 'gpt-4.1',
    'openagent.baseUrl': fake.openAiBaseUrl,
  }));

  it('on an OpenAI-compatible server: the pasted screenshot goes as an image_url data URL of 1568 px', async () => {
    fake.setScenario({ name: 'paste-openai', turns: [{ match: 'What is wrong', text: 'The footer is cut.' }] });
    await pasteFiles(chat, [{ name: 'shot.png', type: 'image/png', bytes: screenshotPng }]);
    await waitForChips(chat, ['shot.png']);
    const [request, ...more] = await sendAndWait('What is wrong in this one?', 'The footer is cut.');
    assert.equal(more.length, 0, 'one model call');
    assert.equal(request!.protocol, 'openai');
    const parts = blocksOf(lastUserMessage(request));
    const images = parts.filter((part) => part.type === 'image_url');
    assert.equal(images.length, 1, 'one image_url part');
    const sent = dimensionsOf(openAiImage(images[0]!));
    assert.deepEqual([sent.width, sent.height], [LONG_SIDE, 1176]);
    assert.ok(parts.some((part) => part.type === 'text' && String(part.text).includes('What is wrong in this one?')));
    await waitForTurnPreviews(chat, 'What is wrong in this one?', 1);
    await screenshot(page, 'images-turn-openai.png');
  });

  it('read_file of a PNG on the OpenAI wire: a tool message, then a user message with the image_url', async () => {
    fake.setScenario({
      name: 'read-png-openai',
      turns: [
        {
          match: 'Look at the layout',
          text: 'Reading it.',
          toolCalls: [{ id: 'call_png', name: 'read_file', arguments: { path: 'docs/layout.png' } }],
        },
        { text: 'Still two columns.' },
      ],
    });
    await newChat();
    const requests = await sendAndWait('Look at the layout again', 'Still two columns.');
    assert.equal(requests.length, 2);
    const messages = messagesOf(requests[1]);
    const toolAt = messages.findIndex((message) => message.role === 'tool' && message.tool_call_id === 'call_png');
    assert.ok(toolAt >= 0, 'the tool message of the call');
    assert.equal(typeof messages[toolAt]!.content, 'string', 'Chat Completions tool messages carry text only');
    const after = messages[toolAt + 1];
    assert.equal(after?.role, 'user', 'the picture follows in a user message');
    const parts = blocksOf(after);
    assert.deepEqual(
      parts.map((part) => part.type),
      ['text', 'image_url'],
    );
    assert.equal(parts[0]!.text, 'The image read_file returned (call call_png):');
    const sent = dimensionsOf(openAiImage(parts[1]!));
    assert.deepEqual([sent.width, sent.height], [LONG_SIDE, 784]);
  });

  it('a model that takes no images (by its name): the chat says so, and the request carries the note instead', async () => {
    // The user picks the server's other model, whose name model-info does not know to see images.
    await runCommand(page, 'OpenAgent: Choose Provider and Model');
    await quickPickRow(page, 'OpenAI-compatible server').click();
    await quickPickRow(page, 'fake-model').click();
    await chat.locator('#pick-model .chip-label', { hasText: /^fake-model$/ }).waitFor();
    fake.setScenario({ name: 'blind', turns: [{ match: 'Describe', text: 'I cannot see it.' }] });
    await newChat();
    await pasteFiles(chat, [{ name: 'shot.png', type: 'image/png', bytes: screenshotPng }]);
    await waitForChips(chat, ['shot.png']);
    const [request] = await sendAndWait('Describe the screenshot', 'I cannot see it.');
    const notice = chat.locator('.notice', { hasText: 'does not accept images' });
    await notice.waitFor();
    assert.match(
      await notice.innerText(),
      /fake-model does not accept images: it was told what they are, not shown them — set openagent\.modelAcceptsImages to "yes" if it does\./,
    );
    const body = JSON.stringify(request!.body);
    assert.ok(!body.includes('image_url') && !body.includes('"type":"image"'), 'no image went to the model');
    const text = blocksOf(lastUserMessage(request))
      .map((part) => String(part.text ?? ''))
      .join('\n');
    assert.match(text, /\[The user attached the image shot\.png \(1568×1176\), but fake-model does not accept images/);
    assert.match(text, /Describe the screenshot/);
    // The user still sees what was attached.
    await waitForTurnPreviews(chat, 'Describe the screenshot', 1);
    await screenshot(page, 'images-not-accepted.png');
  });

  it('the setting says the model takes images after all: the next screenshot goes to it', async () => {
    // As a user does: the Settings editor, the setting found by its id, "yes" chosen.
    await runCommand(page, 'Preferences: Open User Settings');
    // The search box is a small editor (a textarea in older VS Codes, an EditContext in newer
    // ones): clicked and typed into, as a user does.
    const search = page.locator('.settings-editor .search-container .monaco-editor').first();
    await search.click();
    await page.keyboard.type('openagent.modelAcceptsImages');
    const item = page.locator('.settings-editor .setting-item-enum', { hasText: 'Model Accepts Images' });
    const choice = item.locator('select');
    await choice.waitFor();
    await choice.selectOption('yes');
    // The workbench holds the value once the setting shows as changed from its default.
    await waitUntil(
      () =>
        item.evaluate(
          (element) => element.classList.contains('is-configured') || !!element.querySelector('.is-configured'),
        ),
      'the setting shown as set',
    );
    await screenshot(page, 'images-setting-yes.png');
    // Then the user switches to the server's other model (also unknown to see images). The palette's
    // write follows the setting's in the extension's configuration: once the chip names the model,
    // the extension has both.
    await runCommand(page, 'OpenAgent: Choose Provider and Model');
    await quickPickRow(page, 'OpenAI-compatible server').click();
    await quickPickRow(page, 'fake-model-large').click();
    await chat.locator('#pick-model .chip-label', { hasText: /^fake-model-large$/ }).waitFor();
    fake.setScenario({ name: 'sees', turns: [{ match: 'Now look', text: 'Now I see it.' }] });
    await newChat();
    await pasteFiles(chat, [{ name: 'shot.png', type: 'image/png', bytes: screenshotPng }]);
    await waitForChips(chat, ['shot.png']);
    const [request] = await sendAndWait('Now look at the screenshot', 'Now I see it.');
    const images = blocksOf(lastUserMessage(request)).filter((part) => part.type === 'image_url');
    assert.equal(images.length, 1, 'the image went to fake-model-large');
    assert.equal((request!.body as { model: string }).model, 'fake-model-large');
    const sent = dimensionsOf(openAiImage(images[0]!));
    assert.deepEqual([sent.width, sent.height], [LONG_SIDE, 1176]);
    assert.equal(await chat.locator('.notice', { hasText: 'does not accept images' }).count(), 0, 'no notice now');
  });
});
