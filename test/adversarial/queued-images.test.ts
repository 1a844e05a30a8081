/**
 * Hostile turns for the images of queued messages (issue 36's leftover): a deletion that frees
 * every unused image while they wait, a kept chat naming images the store does not have (or
 * naming garbage), a store that throws, 20 images in one message, one image in two messages,
 * removal and New Chat releasing the store's hold, and a rewind while a message with images
 * waits. Whatever happens, the queued message comes back and goes out — with its images, or
 * with a note saying which are gone.
 */
import assert from 'node:assert/strict';
import { queuedImagesHolder } from '../../src/core/images/image-limits';
import type { ImagePart } from '../../src/core/llm/llm-client';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { waitUntil } from '../harness/patience';
import { MemoryKeeping } from '../unit/core/session/memory-keeping';
import { busyWindow, preparedPng, queueWithImages, sentImages, windowsOn } from '../unit/images/queued-images-harness';

type Window = Awaited<ReturnType<typeof busyWindow>>;

/** Waits for everything the window writes, then ends it as a reload does. */
async function reload(window: Window): Promise<void> {
  await window.session.flush();
  await window.keeper.flush();
  await window.session.dispose();
}

type AnyWindow = Awaited<ReturnType<ReturnType<typeof windowsOn>['open']>>;

/** Waits until the prompt `text` has been answered (reopening replays old `done` events, so counting them misleads). */
async function answered(window: AnyWindow, text: string): Promise<void> {
  await waitUntil(() => {
    const prompt = window.events.findLastIndex((event) => event.type === 'user_message' && event.text === text);
    return prompt >= 0 && window.events.slice(prompt).some((event) => event.type === 'done');
  }, `the answer to ${text}`);
}

/** Resumes the restored queue and returns the request its first message went out in. */
async function resumeAndSend(window: AnyWindow, server: FakeModelServer) {
  const text = window.session.queue.state.items[0]!.text;
  assert.equal(window.session.queue.resume(), true);
  await answered(window, text);
  return server.modelCalls.at(-1)?.body;
}

describe('hostile turns for queued images', function () {
  this.timeout(120_000);
  let server: FakeModelServer;
  let windows: ReturnType<typeof windowsOn>;

  beforeEach(async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'queued images',
        turns: [
          { match: 'unfinished', text: 'Still answering. '.repeat(200), chunkSize: 1, delayMs: 40 },
          { match: 'shorter', text: 'Short now.' },
        ],
        whenExhausted: 'echo',
      },
    });
    windows = windowsOn(() => server);
  });
  afterEach(async () => {
    await windows.close();
    await server.close();
  });

  it('keeps a queued image when a deletion frees every unused image meanwhile', async () => {
    const keeping = new MemoryKeeping();
    const before = await busyWindow(windows, keeping);
    const shot = await preparedPng(0xcc3333ff, 'red.png');
    await queueWithImages(before, 'and this one?', [shot]);
    await before.keeper.flush();
    assert.deepEqual(await before.store.images.usedBy(queuedImagesHolder(before.session.currentId!)), [shot.sha256]);
    // Any conversation's deletion frees every image nothing uses: the queue's hold is a use.
    await before.store.deleteConversation('some-other-conversation');
    assert.equal((await before.store.images.get(shot.sha256))?.data, shot.data, 'still stored');
    await reload(before);

    const after = await windows.open(keeping);
    await after.keeper.restore();
    assert.deepEqual(sentImages(await resumeAndSend(after, server)), [shot.data]);
    // Sent: its conversation uses it now, and the queue lets it go.
    await after.keeper.flush();
    assert.deepEqual(await after.store.images.usedBy(queuedImagesHolder(after.session.currentId!)), []);
    assert.deepEqual(await after.store.images.usedBy(after.session.currentId!), [shot.sha256]);
  });

  it('turns images the store no longer has, garbage references and a failing read into notes; the message goes out', async () => {
    const keeping = new MemoryKeeping();
    const before = await busyWindow(windows, keeping);
    const kept = await preparedPng(0x33cc33ff, 'green.png');
    const throwing = await preparedPng(0x3333ccff, 'blue.png');
    await queueWithImages(before, 'look at these', [kept, throwing]);
    await reload(before);
    // The kept chat is edited by hand (or damaged): an unknown image, garbage, a huge size.
    const document = JSON.parse(keeping.text!) as { queueImages: unknown[][] };
    document.queueImages[0]!.push(
      { sha256: 'f'.repeat(64), mediaType: 'image/png', width: 800, height: 600, name: 'gone.png' },
      'not a reference',
      { sha256: kept.sha256, mediaType: 'image/png', width: 10 ** 9, height: 1 },
    );
    keeping.text = JSON.stringify(document);

    const after = await windows.open(keeping, (real) => ({
      put: (image, holder) => real.put(image, holder),
      release: (holder, keep) => real.release!(holder, keep),
      get: async (sha256) => {
        if (sha256 === throwing.sha256) throw new Error('SQLITE_CORRUPT: database disk image is malformed');
        return real.get(sha256);
      },
    }));
    await after.keeper.restore();
    const [waiting] = after.session.queue.state.items;
    assert.deepEqual(
      waiting?.images?.map((image) => image.sha256),
      [kept.sha256],
    );
    assert.equal(
      waiting?.text,
      [
        'look at these',
        '',
        '[image blue.png, 24×24: no longer stored]',
        '[image gone.png, 800×600: no longer stored]',
        '[an image attached to this message could not be read back]',
        '[an image attached to this message could not be read back]',
      ].join('\n'),
    );
    const body = await resumeAndSend(after, server);
    assert.deepEqual(sentImages(body), [kept.data]);
    assert.match(JSON.stringify(body), /gone\.png, 800×600: no longer stored/);
  });

  it('a kept chat whose image lists are not lists at all still brings the texts back', async () => {
    const keeping = new MemoryKeeping();
    const before = await busyWindow(windows, keeping);
    await queueWithImages(before, 'first', [await preparedPng(0x123456ff, 'a.png')]);
    await before.session.submit('second, words only');
    await reload(before);
    const document = JSON.parse(keeping.text!) as Record<string, unknown>;
    keeping.text = JSON.stringify({ ...document, queueImages: ['garbage', 42] });
    const after = await windows.open(keeping);
    await after.keeper.restore();
    assert.deepEqual(
      after.session.queue.state.items.map((item) => [item.text, item.images]),
      [
        ['first\n\n[an image attached to this message could not be read back]', undefined],
        ['second, words only\n\n[an image attached to this message could not be read back]', undefined],
      ],
    );
  });

  it('20 images in one queued message all come back and go out', async () => {
    const keeping = new MemoryKeeping();
    const before = await busyWindow(windows, keeping);
    const images: ImagePart[] = [];
    for (let index = 0; index < 20; index++)
      images.push(await preparedPng(0x01020300 + index * 0x000a0a00 + 0xff, `shot-${index}.png`, 16 + index));
    assert.equal(new Set(images.map((image) => image.sha256)).size, 20);
    await queueWithImages(before, 'twenty screenshots', images);
    await reload(before);

    const after = await windows.open(keeping);
    await after.keeper.restore();
    assert.deepEqual(
      after.session.queue.state.items[0]?.images?.map((image) => image.name),
      images.map((image) => image.name),
    );
    assert.deepEqual(
      sentImages(await resumeAndSend(after, server)),
      images.map((image) => image.data),
    );
  });

  it('holds an image while either of two messages carrying it waits; removal and New Chat release it', async () => {
    const keeping = new MemoryKeeping();
    const window = await busyWindow(windows, keeping);
    const holder = queuedImagesHolder(window.session.currentId!);
    const shared = await preparedPng(0x999999ff, 'shared.png');
    const own = await preparedPng(0x555555ff, 'own.png');
    await queueWithImages(window, 'one', [shared]);
    await queueWithImages(window, 'two', [shared, own]);
    await window.keeper.flush();
    assert.deepEqual(await window.store.images.usedBy(holder), [shared.sha256, own.sha256].sort());

    const [first, second] = window.session.queue.state.items;
    assert.equal(window.session.queue.remove(first!.id), true);
    await window.keeper.flush();
    assert.deepEqual(
      await window.store.images.usedBy(holder),
      [shared.sha256, own.sha256].sort(),
      'two still has both',
    );
    assert.equal(window.session.queue.remove(second!.id), true);
    await window.keeper.flush();
    assert.deepEqual(await window.store.images.usedBy(holder), [], 'released with the last message carrying them');
    // Released images are freed with the next deletion (nothing else uses them).
    await window.store.deleteConversation('another');
    assert.equal(await window.store.images.get(own.sha256), undefined);

    await queueWithImages(window, 'three', [own]);
    await window.keeper.flush();
    assert.deepEqual(await window.store.images.usedBy(holder), [own.sha256]);
    window.session.reset();
    await window.keeper.flush();
    assert.deepEqual(await window.store.images.usedBy(holder), [], 'New Chat lets the old queue’s images go');
  });

  it('a rewind while a message with images waits keeps the message and its images', async () => {
    const keeping = new MemoryKeeping();
    const window = await busyWindow(windows, keeping);
    const shot = await preparedPng(0x336699ff, 'rewind.png');
    await queueWithImages(window, 'after the rewind', [shot]);
    window.session.stop();
    await waitUntil(() => !window.session.isBusy, 'stopped');
    assert.equal(window.session.queue.state.held?.kind, 'stopped');
    await window.session.flush();
    const points = await window.session.forks.points();
    const unfinished = points.find((point) => point.role === 'user' && /unfinished/.test(point.text ?? ''));
    assert.ok(unfinished, `the prompt to rewind to: ${JSON.stringify(points)}`);
    const rewound = await window.session.forks.rewind(unfinished.seq, 'a shorter answer please');
    assert.equal(rewound.status, 'rewound');
    await answered(window, 'a shorter answer please');
    const [waiting] = window.session.queue.state.items;
    assert.equal(waiting?.text, 'after the rewind', 'the queued message survived the rewind');
    assert.deepEqual(
      waiting?.images?.map((image) => image.sha256),
      [shot.sha256],
    );
    assert.deepEqual(sentImages(await resumeAndSend(window, server)), [shot.data]);
  });
});
