/**
 * The chat's images (issue 36) between a fake webview and a fake session, with the real
 * preparation (probe, scale, re-encode), a real in-memory ImageStore and real previews: what the
 * composer attached reaches the session prepared; a bad one sends nothing and says why; the
 * transcript's and the queue's images get previews; a model without vision is named once.
 */
import assert from 'node:assert/strict';
import { fakeChatHost } from '../../fixtures/fake-chat-host';
import { waitUntil } from '../../harness/patience';
import { pngOf, dimensionsOf } from '../../fixtures/image-bytes';
import { MemoryImageStore } from '../../../src/core/images/memory-image-store';
import { prepareImage } from '../../../src/node/images/prepare-image';
import { imageThumbnail } from '../../../src/node/images/image-thumbnail';
import { imageReference } from '../../../src/core/images/user-images';
import type { ChatImageDeps } from '../../../src/host/chat/chat-images';
import { ATTACHED_IMAGE_MAX_BYTES, MAX_ATTACHED_IMAGES, type HostToWebview } from '../../../src/protocol/messages';
import * as composerLimits from '../../../webview/chat/composer-images';

function imageDeps(sees = true): ChatImageDeps & { store: MemoryImageStore } {
  return {
    store: new MemoryImageStore(),
    prepare: (bytes, name) => prepareImage(bytes, { name }),
    thumbnail: imageThumbnail,
    modelSeesImages: () => ({ model: sees ? 'claude-sonnet-4-5' : 'qwen2.5-coder:7b', sees }),
  };
}

async function readyHost(images = imageDeps()) {
  const host = fakeChatHost(undefined, { images });
  host.webview.send({ type: 'webview_ready' });
  await waitUntil(() => host.webview.posts.some((post) => post.message.type === 'chat_status'), 'the handshake');
  const posted = <T extends HostToWebview['type']>(type: T) =>
    host.webview.posts
      .map((post) => post.message)
      .filter((message): message is Extract<HostToWebview, { type: T }> => message.type === type);
  return { ...host, images, posted };
}

describe('chat images: the composer to the session', () => {
  it('prepares a pasted 3000×2000 PNG to the long-side limit, keeps it, and sends it with the prompt', async () => {
    const { webview, session, images, posted } = await readyHost();
    const data = (await pngOf(3000, 2000)).toString('base64');
    webview.send({
      type: 'prompt_submit',
      requestId: 'r1',
      text: 'what is wrong here?',
      images: [{ name: 'shot.png', mediaType: 'image/png', data }],
    });
    await waitUntil(() => posted('prompt_result').length > 0, 'the answer');
    assert.equal(posted('prompt_result')[0]!.problem, undefined);
    const sent = session.submitted.at(-1)!;
    assert.equal(sent.text, 'what is wrong here?');
    assert.equal(sent.images?.length, 1);
    const image = sent.images![0]!;
    assert.deepEqual([image.width, image.height], [1568, 1045]);
    assert.deepEqual(dimensionsOf(image.data), { width: 1568, height: 1045, type: 'png' });
    assert.equal(image.name, 'shot.png');
    assert.ok(await images.store.get(image.sha256), 'kept in the store by sha256');
  });

  it('sends nothing when one image is bad: the reason is shown and the prompt goes back', async () => {
    const { webview, session, posted } = await readyHost();
    const good = (await pngOf(40, 30)).toString('base64');
    const fake = Buffer.from('this is a text file, not a picture\n'.repeat(20)).toString('base64');
    webview.send({
      type: 'prompt_submit',
      requestId: 'r2',
      text: 'look',
      images: [
        { name: 'ok.png', mediaType: 'image/png', data: good },
        { name: 'notes.png', mediaType: 'image/png', data: fake },
      ],
    });
    await waitUntil(() => posted('prompt_result').length > 0, 'the answer');
    const problem = posted('prompt_result')[0]!.problem ?? '';
    assert.match(problem, /notes\.png is not a PNG, JPEG, GIF or WebP image/);
    assert.equal(session.submitted.length, 0, 'the prompt was not sent');
    assert.ok(posted('chat_notice').some((notice) => notice.text === problem));
  });

  it("'Send now' with images goes through sendNow with them", async () => {
    const { webview, session, posted } = await readyHost();
    const data = (await pngOf(20, 20)).toString('base64');
    webview.send({
      type: 'prompt_submit',
      requestId: 'r3',
      text: 'instead, this',
      sendNow: true,
      images: [{ name: 'a.png', mediaType: 'image/png', data }],
    });
    await waitUntil(() => posted('prompt_result').length > 0, 'the answer');
    assert.equal(session.submitted.at(-1)?.sendNow, true);
    assert.equal(session.submitted.at(-1)?.images?.length, 1);
  });
});

describe('chat images: previews and the notice', () => {
  it("posts a small preview of a prompt's image, once, and names a model without vision once", async () => {
    const deps = imageDeps(false);
    const { session, posted } = await readyHost(deps);
    const image = await prepareImage(await pngOf(1200, 800), { name: 'big.png' });
    await deps.store.put(image);
    for (const text of ['first', 'second'])
      session.emit({ type: 'user_message', text, images: [imageReference(image)] });
    await waitUntil(() => posted('image_previews').length > 0, 'a preview');
    await new Promise((resolve) => setTimeout(resolve, 50));
    const previews = posted('image_previews').flatMap((message) => message.previews);
    assert.equal(previews.length, 1, 'one preview per image, however often it is shown');
    assert.equal(previews[0]!.sha256, image.sha256);
    assert.match(previews[0]!.url, /^data:image\/jpeg;base64,/);
    assert.ok(previews[0]!.url.length < 20_000, `a small preview, not ${previews[0]!.url.length} characters`);
    const notices = posted('chat_notice').filter((notice) => notice.text.includes('does not accept images'));
    assert.equal(notices.length, 1);
    assert.equal(
      notices[0]!.text,
      'qwen2.5-coder:7b does not accept images: it was told what they are, not shown them — set openagent.modelAcceptsImages to "yes" if it does.',
    );
  });

  it('says nothing of vision to a model that sees images, and previews again after a reload', async () => {
    const deps = imageDeps(true);
    const { session, webview, posted } = await readyHost(deps);
    const image = await prepareImage(await pngOf(30, 30), { name: 'tiny.png' });
    await deps.store.put(image);
    session.emit({ type: 'user_message', text: 'x', images: [imageReference(image)] });
    await waitUntil(() => posted('image_previews').length > 0, 'a preview');
    assert.equal(posted('chat_notice').length, 0);
    // A fresh page (a reload) is given its previews again.
    webview.send({ type: 'webview_ready' });
    await waitUntil(() => posted('image_previews').length > 1, 'the preview again after the reload');
  });
});

describe('chat images: the composer limits', () => {
  it("are the protocol's (the composer repeats them so its first script loads no schemas)", () => {
    assert.equal(composerLimits.ATTACHED_IMAGE_MAX_BYTES, ATTACHED_IMAGE_MAX_BYTES);
    assert.equal(composerLimits.MAX_ATTACHED_IMAGES, MAX_ATTACHED_IMAGES);
  });
});
