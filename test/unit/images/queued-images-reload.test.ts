/**
 * A queued message's images survive a window reload like its text (issue 36's leftover): kept
 * by reference with a use in the store (so nothing frees them while they wait), restored with
 * the message, sent with it once the user resumes the queue. Real sessions on a real store, the
 * fake model server speaking the Anthropic wire.
 */
import assert from 'node:assert/strict';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { MemoryKeeping } from '../core/session/memory-keeping';
import { busyWindow, preparedPng, queueWithImages, sentImages, windowsOn } from './queued-images-harness';

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
