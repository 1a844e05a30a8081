/**
 * Uses held by something other than a conversation (queued messages: queuedImagesHolder): put
 * under the holder, released to exactly what it still keeps, written through the journal (so a
 * reopened store has them), and gone with the conversation whose queue held them.
 */
import assert from 'node:assert/strict';
import { openStore, tempDir } from './store-helpers';
import { preparedImage } from '../images/image-fixtures';
import { queuedImagesHolder } from '../../../src/core/images/image-limits';

describe('image holds of queued messages in the store', () => {
  it('holds, releases to what is kept, survives a reopen, and goes with its conversation', async () => {
    const directory = tempDir();
    const holder = queuedImagesHolder('c1');
    const first = await openStore(directory);
    const [a, b] = [await preparedImage(1, 32, 32, 'a.png'), await preparedImage(2, 32, 32, 'b.png')];
    await first.store.images.put(a, holder);
    await first.store.images.put(b, holder);
    assert.deepEqual(await first.store.images.usedBy(holder), [a.sha256, b.sha256].sort());
    await first.store.images.release(holder, [b.sha256, 'not a sha256']);
    await first.store.images.release(holder, [b.sha256]);
    assert.deepEqual(await first.store.images.usedBy(holder), [b.sha256]);
    // Released, not freed: the bytes stay until a deletion frees what nothing uses.
    assert.ok(await first.store.images.get(a.sha256));
    await first.store.deleteConversation('someone-else');
    assert.equal(await first.store.images.get(a.sha256), undefined, 'freed by the next deletion');
    assert.ok(await first.store.images.get(b.sha256), 'the held one stays');
    await first.store.close();

    const second = await openStore(directory);
    assert.deepEqual(await second.store.images.usedBy(holder), [b.sha256], 'the journal kept the hold');
    await second.store.deleteConversation('c1');
    assert.deepEqual(await second.store.images.usedBy(holder), []);
    assert.deepEqual(await second.store.images.totals(), { count: 0, bytes: 0 });
    await assert.rejects(second.store.images.release('', []), /holder/);
    await second.store.close();
  });
});
