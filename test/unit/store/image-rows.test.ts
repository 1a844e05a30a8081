/**
 * Images in the sql.js store (issue 36): kept once per sha256, read back after reopening, freed
 * when the last conversation that uses them is deleted, kept for a fork whose parent goes.
 */
import assert from 'node:assert/strict';
import { openStore, tempDir, message } from './store-helpers';
import { preparedImage } from '../images/image-fixtures';
import type { SqlJsStore } from '../../../src/store/sqljs-store';

describe('images in the sql.js store', () => {
  let directory: string;
  let store: SqlJsStore;
  beforeEach(async () => {
    directory = tempDir();
    store = (await openStore(directory)).store;
  });
  afterEach(async () => store.close());

  async function conversation(id: string) {
    await store.saveConversation({ id, title: id, createdAt: 1, updatedAt: 1, settings: {} });
    await store.putMessage(message(id, 0, 'look at this'));
  }

  it('gives back the same image, bytes and all, after the store is reopened', async () => {
    const image = await preparedImage(1, 64, 48, 'button.png');
    await store.images.put(image, 'c1');
    await store.close();
    store = (await openStore(directory)).store;
    assert.deepEqual(await store.images.get(image.sha256), image);
    assert.equal(await store.images.get('0'.repeat(64)), undefined);
  });

  it('keeps one row per sha256 however many conversations use it', async () => {
    const image = await preparedImage(2);
    for (const id of ['a', 'b', 'c']) await store.images.put(image, id);
    await store.images.put({ ...image, name: 'renamed.png' }, 'a');
    assert.deepEqual(await store.images.totals(), { count: 1, bytes: Buffer.from(image.data, 'base64').length });
    // The first name stays: the bytes are the same image.
    assert.equal((await store.images.get(image.sha256))?.name, image.name);
  });

  it('frees an image when the last conversation that uses it is deleted, not before', async () => {
    const shared = await preparedImage(3);
    const own = await preparedImage(4);
    await conversation('a');
    await conversation('b');
    await store.images.put(shared, 'a');
    await store.images.put(own, 'a');
    await store.images.put(shared, 'b');
    await store.deleteConversation('a');
    assert.equal(await store.images.get(own.sha256), undefined, 'only a used it');
    assert.ok(await store.images.get(shared.sha256), 'b still uses it');
    await store.deleteConversation('b');
    assert.deepEqual(await store.images.totals(), { count: 0, bytes: 0 });
  });

  it('writes the bytes again when an image freed by a deletion is used again', async () => {
    const image = await preparedImage(6);
    await conversation('a');
    await store.images.put(image, 'a');
    await store.deleteConversation('a');
    assert.equal(await store.images.get(image.sha256), undefined);
    await store.images.put(image, 'b');
    assert.deepEqual(await store.images.get(image.sha256), image);
  });

  it("keeps a fork's images when its parent is deleted", async () => {
    const image = await preparedImage(5);
    await conversation('parent');
    await store.images.put(image, 'parent');
    await store.forkConversation({
      conversation: {
        id: 'fork',
        title: 'fork',
        createdAt: 2,
        updatedAt: 2,
        settings: {},
        forkedFrom: { conversationId: 'parent', seq: 0, reason: 'fork' },
      },
      copyUpTo: 0,
      add: [],
    });
    await store.deleteConversation('parent');
    assert.ok(await store.images.get(image.sha256));
    await store.deleteConversation('fork');
    assert.equal(await store.images.get(image.sha256), undefined);
  });
});
