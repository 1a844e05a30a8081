/**
 * Hostile inputs to the image store (issue 36): a put whose bytes are not its sha256, bytes over
 * the cap, rows damaged or oversized in the database, a store that throws, a reopened conversation
 * whose image rows are gone, and 100 images in one conversation (each written once).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import initSqlJs from 'sql.js';
import { MIGRATIONS } from '../../src/store/schema';
import { applyImage, ImageRefusedError, SqlJsImages } from '../../src/store/image-rows';
import { ImageKeeper } from '../../src/core/images/image-keeper';
import { withStoredImages, pendingImage } from '../../src/core/images/stored-images';
import { imageReference } from '../../src/core/images/user-images';
import { IMAGE_LIMITS } from '../../src/core/images/image-limits';
import type { ImagePart, ModelMessage } from '../../src/core/llm/llm-client';
import { openStore, tempDir, WASM } from '../unit/store/store-helpers';
import { preparedImage } from '../unit/images/image-fixtures';
import { createHash } from 'node:crypto';

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function refused(put: Promise<void>, pattern: RegExp): Promise<void> {
  await assert.rejects(put, (error: unknown) => error instanceof ImageRefusedError && pattern.test(error.message));
}

describe('hostile images in the store', function () {
  this.timeout(120_000);

  it('refuses bytes that are not their sha256, over the cap, not base64, or not an image type; keeps nothing', async () => {
    const directory = tempDir();
    const { store } = await openStore(directory);
    const image = await preparedImage(31);
    const other = await preparedImage(32);
    await refused(store.images.put({ ...image, data: other.data }, 'c'), /do not match its sha256/);
    await refused(store.images.put({ ...image, sha256: 'not-a-hash' }, 'c'), /no valid sha256/);
    const huge = Buffer.alloc(IMAGE_LIMITS.maxBytes + 1, 7);
    await refused(
      store.images.put({ ...image, data: huge.toString('base64'), sha256: sha256(huge) }, 'c'),
      /over 4194304 bytes/,
    );
    await refused(store.images.put({ ...image, data: '!!!!' }, 'c'), /not base64/);
    await refused(
      store.images.put({ ...image, mediaType: 'image/svg+xml' as ImagePart['mediaType'] }, 'c'),
      /not PNG, JPEG, GIF or WebP/,
    );
    await refused(store.images.put({ ...image, width: 0 }, 'c'), /no valid size/);
    assert.deepEqual(await store.images.totals(), { count: 0, bytes: 0 });
    // Nothing refused reached the journal (a refused put must not be replayed at every open).
    assert.doesNotMatch(fs.readFileSync(path.join(directory, 'store.journal'), 'utf8'), /"op":"image"/);
    await store.images.put(image, 'c');
    assert.ok(await store.images.get(image.sha256), 'the store still works');
    await store.close();
  });

  it('reads a damaged or oversized row as missing, never as bytes to send', async () => {
    const SQL = await initSqlJs({ locateFile: () => WASM });
    const db = new SQL.Database();
    for (const migration of MIGRATIONS) db.run(migration);
    const images = new SqlJsImages({
      write: async (entry) => applyImage(db, entry as Parameters<typeof applyImage>[1]),
      read: async (query, parameters) => {
        const statement = db.prepare(query);
        statement.bind(parameters);
        const rows = [];
        while (statement.step()) rows.push(statement.getAsObject());
        statement.free();
        return rows;
      },
      redact: (value) => value,
      now: () => 1,
    });
    const good = await preparedImage(33);
    // A row whose bytes are over the cap (written by something else, straight into the database).
    const huge = Buffer.alloc(IMAGE_LIMITS.maxBytes + 10, 1);
    applyImage(db, {
      op: 'image',
      image: { ...imageReference(good), sha256: sha256(huge), data: huge.toString('base64'), time: 1 },
    });
    assert.equal(await images.get(sha256(huge)), undefined);
    // A row whose bytes changed after they were written.
    await images.put(good, 'c');
    db.run('UPDATE images SET bytes = ? WHERE sha256 = ?', [Buffer.from('not the picture'), good.sha256]);
    assert.equal(await images.get(good.sha256), undefined);
    // A row of a type that is not an image for this purpose.
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');
    db.run('INSERT INTO images VALUES (?, ?, 1, 1, NULL, ?, 1)', [sha256(svg), 'image/svg+xml', svg]);
    assert.equal(await images.get(sha256(svg)), undefined);
    assert.equal(await images.get("' OR 1=1 --"), undefined);
    db.close();
  });

  it('a reopened history whose image rows are gone, or whose store throws, gets notes and stays sendable', async () => {
    const { store } = await openStore(tempDir());
    const kept = await preparedImage(34, 40, 30, 'kept.png');
    const gone = await preparedImage(35, 800, 600, 'x.png');
    await store.images.put(kept, 'c');
    const history: ModelMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: 'both' },
          pendingImage(imageReference(kept)),
          pendingImage(imageReference(gone)),
        ],
      },
    ];
    const restored = await withStoredImages(history, store.images);
    assert.deepEqual(restored[0]!.content[1], kept);
    assert.deepEqual(restored[0]!.content[2], { type: 'text', text: '[image x.png, 800×600: no longer stored]' });
    const throwing = {
      put: async () => undefined,
      get: async (): Promise<ImagePart | undefined> => {
        throw new Error('database is locked');
      },
    };
    const fromBroken = await withStoredImages(history, throwing);
    assert.equal(fromBroken[0]!.content.filter((part) => part.type === 'image').length, 0);
    assert.equal(fromBroken[0]!.content.filter((part) => part.type === 'text').length, 3);
    await store.close();
  });

  it('100 images in one conversation: each written once, however often they are used', async () => {
    const directory = tempDir();
    const { store } = await openStore(directory);
    const images = await Promise.all(Array.from({ length: 100 }, (_, index) => preparedImage(100 + index, 24, 16)));
    assert.equal(new Set(images.map((image) => image.sha256)).size, 100);
    const told: unknown[] = [];
    const keeper = new ImageKeeper(store.images, 'many', (error) => told.push(error));
    // Attached in batches of 20 (a message's limit), then all read back again by tools.
    for (let start = 0; start < 100; start += 20) await keeper.keep(images.slice(start, start + 20));
    await keeper.keep(images);
    await keeper.keep([images[0]!, images[0]!, images[0]!]);
    assert.deepEqual(told, []);
    assert.equal((await store.images.totals()).count, 100);
    const journal = fs.readFileSync(path.join(directory, 'store.journal'), 'utf8');
    assert.equal(journal.match(/"op":"image"/g)?.length, 100, 'one image entry per image');
    assert.equal(journal.match(/"op":"image_use"/g)?.length ?? 0, 0, 'no use written twice');
    // Reopened: all 100 come back.
    await store.close();
    const { store: again } = await openStore(directory);
    for (const image of images) assert.deepEqual(await again.images.get(image.sha256), image);
    await again.close();
  });
});
