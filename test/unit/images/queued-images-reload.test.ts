/**
 * A queued message's images survive a window reload like its text (issue 36's leftover): kept
 * by reference with a use in the store (so nothing frees them while they wait), restored with
 * the message, previewed, sent with it once the user resumes the queue — and released when the
 * message goes. Real sessions on a real store, the fake model server speaking the Anthropic wire.
 */
import assert from 'node:assert/strict';
import { Jimp } from 'jimp';
import { ChatKeeper } from '../../../src/core/session/chat-keeper';
import type { ImagePart } from '../../../src/core/llm/llm-client';
import type { ConversationStore } from '../../../src/core/ports';
import { prepareImage } from '../../../src/node/images/prepare-image';
import type { SqlJsStore } from '../../../src/store/sqljs-store';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { waitUntil } from '../../harness/patience';
import { openStore, tempDir } from '../store/store-helpers';
import { sessionOn } from '../core/session/session-harness';
import { MemoryKeeping } from '../core/session/memory-keeping';

const VISION_MODEL = 'claude-fake-vision';

/** A prepared PNG of one colour, as the chat's composer makes it (stored, not yet used). */
export async function preparedPng(color: number, name: string, side = 24): Promise<ImagePart> {
  const picture = new Jimp({ width: side, height: side, color });
  return prepareImage(new Uint8Array(await picture.getBuffer('image/png')), { name });
}

/** The base64 image blocks a request body carries. */
export function sentImages(body: unknown): string[] {
  const found: string[] = [];
  JSON.stringify(body, (key, value: unknown) => {
    const source = value as { type?: string; data?: string } | null;
    if (key === 'source' && source?.type === 'base64' && source.data) found.push(source.data);
    return value;
  });
  return found;
}

/** Windows on one store folder: each a new session and store handle, with its keeper. */
export function windowsOn(server: () => FakeModelServer) {
  const directory = tempDir();
  const stores: ConversationStore[] = [];
  let ids = 0;
  const open = async (keeping: MemoryKeeping) => {
    const { store } = await openStore(directory);
    stores.push(store);
    const harness = sessionOn(server(), {
      readSettings: () => ({ provider: 'anthropic', model: VISION_MODEL, baseUrl: server().anthropicBaseUrl }),
      store: async () => store,
      newId: () => `conversation-${++ids}-${Date.now()}`,
      clock: { now: () => Date.now() },
    });
    const keeper = new ChatKeeper({ session: harness.session, keeping, workspace: '/work/project' });
    return { ...harness, keeper, store: store as SqlJsStore };
  };
  const close = async () => {
    for (const store of stores.splice(0)) await store.close();
  };
  return { open, close };
}

/** A window whose agent is busy with an answer that streams for minutes: what is sent now is queued. */
export async function busyWindow(windows: ReturnType<typeof windowsOn>, keeping: MemoryKeeping) {
  const window = await windows.open(keeping);
  await window.keeper.restore();
  await window.run('What is the capital of France?');
  await window.session.submit('an unfinished answer please');
  await waitUntil(() => window.events.some((event) => event.type === 'text_delta'), 'streaming');
  return window;
}

/** Queues `text` with `images` as the chat does: prepared, put in the store (no use yet), sent. */
export async function queueWithImages(
  window: Awaited<ReturnType<typeof busyWindow>>,
  text: string,
  images: readonly ImagePart[],
) {
  for (const image of images) await window.store.images.put(image);
  assert.equal(await window.session.submitWithMentions(text, async () => undefined, 'chat', images), undefined);
}

describe('queued images across a window reload', function () {
  this.timeout(60_000);
  let server: FakeModelServer;
  let windows: ReturnType<typeof windowsOn>;

  beforeEach(async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'queued images',
        turns: [{ match: 'unfinished', text: 'Still answering. '.repeat(200), chunkSize: 1, delayMs: 40 }],
        whenExhausted: 'echo',
      },
    });
    windows = windowsOn(() => server);
  });
  afterEach(async () => {
    await windows.close();
    await server.close();
  });

  it('restores a queued message with its images after a reload and sends them with it', async () => {
    const keeping = new MemoryKeeping();
    const before = await busyWindow(windows, keeping);
    const shot = await preparedPng(0x3366ccff, 'shot.png');
    await queueWithImages(before, 'what is wrong in this screenshot?', [shot]);
    await before.session.flush();
    await before.keeper.flush();
    const id = before.session.currentId;
    await before.session.dispose();

    const after = await windows.open(keeping);
    await after.keeper.restore();
    assert.equal(after.session.currentId, id);
    const [waiting] = after.session.queue.state.items;
    assert.equal(waiting?.text, 'what is wrong in this screenshot?');
    assert.deepEqual(
      waiting?.images,
      [{ sha256: shot.sha256, mediaType: 'image/png', width: 24, height: 24, name: 'shot.png' }],
      'the queued message came back with its image',
    );
    assert.deepEqual(after.session.queue.state.held, { kind: 'reloaded' });

    const calls = server.modelCalls.length;
    const done = after.events.filter((event) => event.type === 'done').length;
    assert.equal(after.session.queue.resume(), true);
    await after.waitDone(done + 1);
    assert.equal(server.modelCalls.length, calls + 1);
    assert.deepEqual(sentImages(server.modelCalls.at(-1)?.body), [shot.data], 'the image went out with the message');
    const prompt = after.events.findLast((event) => event.type === 'user_message');
    assert.ok(prompt?.type === 'user_message');
    assert.equal(prompt.text, 'what is wrong in this screenshot?');
    assert.deepEqual(
      prompt.images?.map((image) => image.sha256),
      [shot.sha256],
    );
  });
});
