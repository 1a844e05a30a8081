/**
 * The chat shows a queued message's images (issue 36): the queue_state the page gets names them
 * by reference (never their bytes), the protocol accepts it, and ChatImages posts their previews
 * — for a message queued just now and for one restored after a reload alike.
 */
import assert from 'node:assert/strict';
import { Jimp } from 'jimp';
import { ChatQueueLink } from '../../../src/host/chat/chat-queue-link';
import { ChatImages } from '../../../src/host/chat/chat-images';
import { MemoryImageStore } from '../../../src/core/images/memory-image-store';
import { prepareImage } from '../../../src/node/images/prepare-image';
import { hostToWebviewSchema, type HostToWebview } from '../../../src/protocol/messages';
import type { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { sessionOn } from '../core/session/session-harness';

describe('the chat shows queued messages’ images', () => {
  it('posts their references in queue_state and their previews', async () => {
    const picture = new Jimp({ width: 30, height: 20, color: 0x3366ccff });
    const image = await prepareImage(new Uint8Array(await picture.getBuffer('image/png')), { name: 'shot.png' });
    const store = new MemoryImageStore();
    await store.put(image);
    const { session } = sessionOn({ anthropicBaseUrl: 'http://127.0.0.1:9' } as FakeModelServer);
    session.queue.restore([{ text: 'what is wrong here?', attached: [image] }, 'words only']);

    const posts: HostToWebview[] = [];
    const images = new ChatImages(
      {
        store,
        prepare: async () => image,
        thumbnail: async (shown) => `data:image/png;base64,preview-of-${shown.sha256.slice(0, 8)}`,
        modelSeesImages: () => ({ model: 'm', sees: true }),
      },
      (message) => posts.push(message),
    );
    const link = new ChatQueueLink(
      session,
      (message) => {
        posts.push(message);
        if (message.type === 'queue_state') images.queued(message.items);
      },
      () => undefined,
      undefined,
    );
    link.webviewReady();
    const state = posts.find((message) => message.type === 'queue_state');
    assert.ok(state?.type === 'queue_state');
    assert.deepEqual(state.items[0]?.images, [
      { sha256: image.sha256, mediaType: 'image/png', width: 30, height: 20, name: 'shot.png' },
    ]);
    assert.equal(state.items[1]?.images, undefined);
    assert.ok(!JSON.stringify(state).includes(image.data), 'no bytes go to the page');
    assert.equal(hostToWebviewSchema.safeParse(state).success, true, 'the page’s parser accepts it');
    await new Promise((resolve) => setTimeout(resolve, 20));
    const previews = posts.find((message) => message.type === 'image_previews');
    assert.ok(previews?.type === 'image_previews', 'a preview was posted');
    assert.deepEqual(previews.previews, [
      { sha256: image.sha256, url: `data:image/png;base64,preview-of-${image.sha256.slice(0, 8)}` },
    ]);
    link.dispose();
    await session.dispose();
  });
});
