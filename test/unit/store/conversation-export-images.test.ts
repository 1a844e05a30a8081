/**
 * Images in conversation exports (issue 36): JSON carries each image's bytes once however many
 * messages name it, import checks them before keeping anything, and markdown embeds them.
 */
import assert from 'node:assert/strict';
import { conversationToMarkdown, exportConversation, importConversation } from '../../../src/store/conversation-export';
import { imageReference } from '../../../src/core/images/user-images';
import type { SqlJsStore } from '../../../src/store/sqljs-store';
import { openStore, tempDir } from './store-helpers';
import { preparedImage } from '../images/image-fixtures';

async function conversationWithImages(store: SqlJsStore) {
  const screenshot = await preparedImage(11, 80, 60, 'screen.png');
  const diagram = await preparedImage(12, 30, 30, 'diagram.png');
  await store.saveConversation({ id: 'c1', title: 'The button', createdAt: 1, updatedAt: 2, settings: {} });
  const put = (seq: number, role: 'user' | 'event', content: unknown) =>
    store.putMessage({ id: `c1-${seq}`, conversationId: 'c1', seq, role, content, createdAt: seq });
  await store.images.put(screenshot, 'c1');
  await store.images.put(diagram, 'c1');
  await put(0, 'user', { text: 'Why is it grey?', images: [imageReference(screenshot)] });
  await put(1, 'event', {
    type: 'tool_result',
    toolCallId: 't',
    toolName: 'read_file',
    output: 'diagram.png',
    isError: false,
    durationMs: 1,
    images: [imageReference(diagram)],
  });
  // The same screenshot again: exported once.
  await put(2, 'user', { text: 'Same one.', images: [imageReference(screenshot)] });
  return { screenshot, diagram };
}

describe('conversation export with images', () => {
  it('JSON holds each image once; import keeps them under the new conversation', async () => {
    const { store } = await openStore(tempDir());
    const { screenshot, diagram } = await conversationWithImages(store);
    const exported = await exportConversation(store, 'c1');
    assert.deepEqual(
      exported.images?.map((image) => image.sha256),
      [screenshot.sha256, diagram.sha256],
    );
    const json = JSON.stringify(exported);
    assert.equal(json.split(screenshot.data).length - 1, 1, 'the bytes once');

    const { store: other } = await openStore(tempDir());
    const imported = await importConversation(other, json);
    assert.deepEqual(await other.images.get(screenshot.sha256), screenshot);
    await other.deleteConversation(imported.id);
    assert.equal(await other.images.get(screenshot.sha256), undefined, 'freed with the imported conversation');
    await store.close();
    await other.close();
  });

  it('refuses an import whose image bytes are not what its sha256 says, keeping nothing', async () => {
    const { store } = await openStore(tempDir());
    const { screenshot } = await conversationWithImages(store);
    const exported = await exportConversation(store, 'c1');
    const forged = {
      ...exported,
      images: exported.images!.map((image) =>
        image.sha256 === screenshot.sha256 ? { ...image, data: exported.images![1]!.data } : image,
      ),
    };
    const { store: other } = await openStore(tempDir());
    await assert.rejects(importConversation(other, JSON.stringify(forged)), /do not match its sha256/);
    assert.deepEqual(await other.listConversations(), []);
    assert.deepEqual(await other.images.totals(), { count: 0, bytes: 0 });
    await store.close();
    await other.close();
  });

  it('markdown embeds each image where it was used, and says where one is gone', async () => {
    const { store } = await openStore(tempDir());
    const { screenshot, diagram } = await conversationWithImages(store);
    const exported = await exportConversation(store, 'c1');
    const markdown = conversationToMarkdown(exported);
    assert.equal(markdown.split(`![screen.png](data:image/png;base64,${screenshot.data})`).length - 1, 2);
    assert.ok(markdown.includes(`![diagram.png](data:image/png;base64,${diagram.data})`));
    const without = conversationToMarkdown({ ...exported, images: [] });
    assert.match(without, /_\[image screen\.png, 80×60: no longer stored\]_/);
    await store.close();
  });
});
