/**
 * A prompt's images (issue 36) wait with it in the queue and go out with it: the queue shows
 * their references (never bytes), an edit keeps them, and the run started from the queue gets
 * them; "Send now" of a queued message with images stops the run and sends it with them.
 */
import assert from 'node:assert/strict';
import { SessionQueue, type PromptRequest } from '../../../../src/core/session/session-queue';
import type { ImagePart } from '../../../../src/core/llm/llm-client';

const image: ImagePart = {
  type: 'image',
  mediaType: 'image/png',
  data: 'iVBORw0KGgo=',
  width: 10,
  height: 20,
  sha256: 'a'.repeat(64),
  name: 'shot.png',
};

function busyQueue() {
  const started: PromptRequest[] = [];
  let running = false;
  let stops = 0;
  let finish: () => void = () => undefined;
  const queue: SessionQueue = new SessionQueue({
    start: async (request) => {
      started.push(request);
      running = true;
      queue.runStarted(new Promise<void>((resolve) => (finish = resolve)));
      return undefined;
    },
    isRunning: () => running,
    redirect: () => undefined,
    stopRun: () => {
      stops++;
    },
  });
  const end = (outcome: 'done' | 'stopped') => {
    running = false;
    if (outcome === 'done')
      queue.observe({
        type: 'done',
        stopReason: 'end_turn',
        turns: 1,
        agentId: 'lead',
        conversationId: 'c',
        seq: 0,
        time: 0,
      });
    finish();
  };
  return { queue, started, end, stops: () => stops };
}

describe('queued prompts keep their images', () => {
  it('shows references while waiting, keeps them through an edit, and starts the run with them', async () => {
    const { queue, started, end } = busyQueue();
    // The first run: started (the queue's run began), then busy.
    await queue.send({ text: 'first', work: 'chat' });
    assert.equal(await queue.send({ text: 'look at this', work: 'chat', images: [image] }), undefined);
    const waiting = queue.state.items[0]!;
    assert.deepEqual(waiting.images, [
      { sha256: image.sha256, mediaType: 'image/png', width: 10, height: 20, name: 'shot.png' },
    ]);
    assert.ok(!JSON.stringify(queue.state).includes(image.data), 'no bytes in what surfaces show');
    assert.equal(queue.edit(waiting.id, 'look at this, please'), 'edited');
    end('done');
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(started.length, 2);
    assert.equal(started[1]!.text, 'look at this, please');
    assert.deepEqual(started[1]!.images, [image]);
  });

  it('"Send now" of a queued message with images stops the run and sends it with them', async () => {
    const { queue, started, end, stops } = busyQueue();
    await queue.send({ text: 'first', work: 'chat' });
    await queue.send({ text: 'this instead', work: 'chat', images: [image] });
    const id = queue.state.items[0]!.id;
    const sending = queue.sendQueuedNow(id);
    await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal(stops(), 1, 'the run was stopped: a redirect carries no images');
    end('stopped');
    assert.equal(await sending, undefined);
    assert.deepEqual(started.at(-1)?.images, [image]);
    assert.equal(started.at(-1)?.text, 'this instead');
  });
});
