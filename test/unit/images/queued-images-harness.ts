/** Windows on one store folder for the tests of queued images across a reload (real sessions and store). */
import assert from 'node:assert/strict';
import { Jimp } from 'jimp';
import { ChatKeeper } from '../../../src/core/session/chat-keeper';
import type { ImagePart } from '../../../src/core/llm/llm-client';
import type { ConversationStore, ImageStore } from '../../../src/core/ports';
import { prepareImage } from '../../../src/node/images/prepare-image';
import type { SqlJsStore } from '../../../src/store/sqljs-store';
import type { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { waitUntil } from '../../harness/patience';
import { openStore, tempDir } from '../store/store-helpers';
import { sessionOn } from '../core/session/session-harness';
import type { MemoryKeeping } from '../core/session/memory-keeping';

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
  /** `images`: what the session sees of the store's images instead of them (a hostile store). */
  const open = async (keeping: MemoryKeeping, images?: (real: ImageStore) => ImageStore) => {
    const { store } = await openStore(directory);
    stores.push(store);
    const seen = images
      ? Object.assign(Object.create(store) as ConversationStore, { images: images(store.images) })
      : store;
    const harness = sessionOn(server(), {
      readSettings: () => ({ provider: 'anthropic', model: VISION_MODEL, baseUrl: server().anthropicBaseUrl }),
      store: async () => seen,
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
