/**
 * Images through a real session (issue 36): read_file of a PNG on the fake model server, the
 * store real on disk. The bytes are kept once in the store, the events carry references only,
 * and a reopened conversation sends the image again — or a note when its rows are gone.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Jimp } from 'jimp';
import type { ConversationStore, ImageStore } from '../../../src/core/ports';
import { createFileTools } from '../../../src/core/tools/builtin/file-tools';
import { NodeWorkspace } from '../../../src/node/node-workspace';
import { nodeImageFiles } from '../../../src/node/images/node-image-files';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { openStore, tempDir } from '../store/store-helpers';
import { sessionOn } from '../core/session/session-harness';
import { tempWorkspace } from '../core/session/fork-harness';

const VISION_MODEL = 'claude-fake-vision';

function imageSession(server: FakeModelServer, store: ConversationStore, root: string, told: unknown[] = []) {
  const workspace = new NodeWorkspace(root);
  let ids = 0;
  return sessionOn(server, {
    readSettings: () => ({ provider: 'anthropic', model: VISION_MODEL, baseUrl: server.anthropicBaseUrl }),
    clock: { now: () => Date.now() },
    newId: () => `img-${++ids}-${Date.now()}`,
    store: async () => store,
    onStoreError: (error) => told.push(error),
    tools: () =>
      createFileTools(
        workspace,
        nodeImageFiles(() => ({ model: VISION_MODEL, sees: true })),
      ),
    approvals: { request: async () => ({ approved: true, source: 'user' as const }) },
  });
}

/** The base64 image blocks a request body carries (tool results' included). */
function sentImages(body: unknown): string[] {
  const found: string[] = [];
  JSON.stringify(body, (key, value: unknown) => {
    const source = value as { type?: string; data?: string } | null;
    if (key === 'source' && source?.type === 'base64' && source.data) found.push(source.data);
    return value;
  });
  return found;
}

async function pngWorkspace(): Promise<string> {
  const picture = new Jimp({ width: 300, height: 200, color: 0x3366ccff });
  return tempWorkspace({ 'shot.png': new Uint8Array(await picture.getBuffer('image/png')) });
}

describe('images kept in the store through a session', function () {
  this.timeout(60_000);
  let server: FakeModelServer;
  beforeEach(async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'read an image',
        turns: [
          {
            match: 'look',
            text: 'Reading it.',
            toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'shot.png' } }],
          },
          { text: 'A blue rectangle.' },
          {
            match: 'again',
            text: 'The other.',
            toolCalls: [{ id: 'r2', name: 'read_file', arguments: { path: 'second.png' } }],
          },
          { text: 'A red one.' },
        ],
        whenExhausted: 'echo',
      },
    });
  });
  afterEach(async () => server.close());

  it('keeps read_file images once, by reference, and sends them again after reopening', async () => {
    const { store } = await openStore(tempDir());
    const root = await pngWorkspace();
    const first = imageSession(server, store, root);
    await first.run('look at shot.png');
    await first.session.flush();
    const id = first.session.currentId!;
    const result = first.events.find((event) => event.type === 'tool_result');
    assert.ok(result?.type === 'tool_result' && result.images?.length === 1, 'the result names its image');
    const reference = result.images![0]!;
    assert.equal(reference.name, 'shot.png');
    assert.deepEqual([reference.width, reference.height], [300, 200]);
    assert.ok(!('data' in reference), 'no bytes in the event');

    const stored = await store.listMessages(id);
    const keptImage = await store.images!.get(reference.sha256);
    assert.ok(keptImage, 'the bytes are in the store');
    // The stored events name the image; none of them holds its bytes.
    assert.ok(stored.every((message) => !JSON.stringify(message.content).includes(keptImage.data.slice(0, 200))));
    const sentFirst = sentImages(server.modelCalls.at(-1)?.body);
    assert.deepEqual(sentFirst, [keptImage.data]);

    // Another window reopens it and goes on: the image is sent again, read from the store.
    const second = imageSession(server, store, root);
    assert.equal(await second.session.open(id), true);
    await second.run('and the colour?');
    assert.deepEqual(sentImages(server.modelCalls.at(-1)?.body), [keptImage.data]);
    await store.close();
  });

  it('a fork keeps its images working, after its parent is deleted too', async () => {
    const { store } = await openStore(tempDir());
    const root = await pngWorkspace();
    const first = imageSession(server, store, root);
    await first.run('look at shot.png');
    await first.session.flush();
    const parentId = first.session.currentId!;
    const points = await first.session.forks.points();
    const forked = await first.session.forks.fork(points.at(-1)!.cutSeq);
    assert.equal(forked.status, 'forked');
    if (forked.status !== 'forked') return;
    await first.session.library.delete(parentId);
    const kept = (await store.images!.totals()).count;
    assert.equal(kept, 1, 'the fork still uses the image');
    const second = imageSession(server, store, root);
    assert.equal(await second.session.open(forked.fork.id), true);
    await second.run('and in the fork?');
    assert.equal(sentImages(server.modelCalls.at(-1)?.body).length, 1, 'the fork sends the image');
    await second.session.library.delete(forked.fork.id);
    assert.equal((await store.images!.totals()).count, 0, 'freed with the last conversation using it');
    await store.close();
  });

  it('a reopened conversation whose image rows are gone sends a note instead, and goes on', async () => {
    const { store } = await openStore(tempDir());
    const root = await pngWorkspace();
    const first = imageSession(server, store, root);
    await first.run('look at shot.png');
    await first.session.flush();
    const id = first.session.currentId!;
    const forgetful: ImageStore = { put: async () => undefined, get: async () => undefined };
    const withoutImages = Object.assign(Object.create(store) as ConversationStore, { images: forgetful });
    const second = imageSession(server, withoutImages, root);
    assert.equal(await second.session.open(id), true);
    await second.run('and now?');
    const body = JSON.stringify(server.modelCalls.at(-1)?.body);
    assert.deepEqual(sentImages(server.modelCalls.at(-1)?.body), []);
    assert.match(body, /\[image shot\.png, 300×200: no longer stored\]/);
    assert.ok(second.events.some((event) => event.type === 'done'));
    await store.close();
  });

  it('a store that fails to keep images: the run goes on and the user is told once', async () => {
    const { store } = await openStore(tempDir());
    const root = await pngWorkspace();
    const red = new Jimp({ width: 20, height: 20, color: 0xcc3333ff });
    fs.writeFileSync(path.join(root, 'second.png'), await red.getBuffer('image/png'));
    const failing: ImageStore = {
      put: async () => {
        throw new Error('disk full');
      },
      get: async () => undefined,
    };
    const told: unknown[] = [];
    const broken = Object.assign(Object.create(store) as ConversationStore, { images: failing });
    const session = imageSession(server, broken, root, told);
    await session.run('look at shot.png');
    await session.run('look again, at second.png');
    assert.equal(session.events.filter((event) => event.type === 'done').length, 2);
    // Both puts failed; both results still reached the model as images.
    assert.equal(server.modelCalls.filter((call) => sentImages(call.body).length > 0).length, 3);
    assert.equal(told.length, 1, 'told once');
    assert.match(String(told[0]), /Could not keep the image shot\.png in the store \(disk full\)/);
    await store.close();
  });
});
