import assert from 'node:assert/strict';
import {
  MAX_QUEUED_PROMPTS,
  MAX_QUEUED_PROMPT_CHARS,
  MAX_QUEUED_TOTAL_CHARS,
  PromptQueue,
  type QueuedPrompt,
  type QueueState,
} from '../../../../src/core/session/prompt-queue';

function added(queue: PromptQueue, text: string): QueuedPrompt {
  const result = queue.add(text);
  assert.ok(!('reason' in result), `"${text.slice(0, 20)}" was refused: ${'message' in result ? result.message : ''}`);
  return result;
}

const texts = (queue: PromptQueue) => queue.state.items.map((item) => item.text);

describe('PromptQueue', () => {
  it('keeps messages in the order they were sent and hands them out first to last', () => {
    const queue = new PromptQueue();
    added(queue, 'one');
    added(queue, '  two  ');
    added(queue, 'three');
    assert.deepEqual(texts(queue), ['one', 'two', 'three']);
    assert.equal(queue.takeNext()?.text, 'one');
    assert.equal(queue.takeNext()?.text, 'two');
    assert.deepEqual(texts(queue), ['three']);
  });

  it('edits and removes a waiting message; an edit or removal after it was sent changes nothing', () => {
    const queue = new PromptQueue();
    const first = added(queue, 'first');
    const second = added(queue, 'second');
    assert.equal(queue.edit(second.id, 'second, reworded'), 'edited');
    assert.deepEqual(texts(queue), ['first', 'second, reworded']);
    assert.equal(queue.takeNext()?.id, first.id);
    // The message went out before the edit arrived: the caller is told, nothing else moves.
    assert.equal(queue.edit(first.id, 'too late'), 'gone');
    assert.equal(queue.remove(first.id), false);
    assert.deepEqual(texts(queue), ['second, reworded']);
    assert.equal(queue.remove(second.id), true);
    assert.equal(queue.length, 0);
  });

  it('refuses a message that is too long, an empty one, or one more than fits, and keeps the rest as it was', () => {
    const queue = new PromptQueue();
    const huge = queue.add('x'.repeat(MAX_QUEUED_PROMPT_CHARS + 1));
    assert.ok('reason' in huge && huge.reason === 'too_long');
    assert.match(huge.message, /200,001 characters; at most 200,000/);
    const blank = queue.add(' \n\t ');
    assert.ok('reason' in blank && blank.reason === 'empty');
    for (let index = 0; index < MAX_QUEUED_PROMPTS; index++) added(queue, `message ${index}`);
    const full = queue.add('one too many');
    assert.ok('reason' in full && full.reason === 'queue_full');
    assert.equal(queue.length, MAX_QUEUED_PROMPTS);
    // An edit that would make a message too long is refused and leaves it as it was.
    const id = queue.state.items[0]!.id;
    const refused = queue.edit(id, 'y'.repeat(MAX_QUEUED_PROMPT_CHARS + 1));
    assert.ok(typeof refused === 'object' && refused.reason === 'too_long');
    assert.equal(queue.state.items[0]!.text, 'message 0');
  });

  it('caps what all waiting messages hold together', () => {
    const queue = new PromptQueue();
    const big = 'z'.repeat(MAX_QUEUED_PROMPT_CHARS);
    for (let index = 0; index < MAX_QUEUED_TOTAL_CHARS / MAX_QUEUED_PROMPT_CHARS; index++) added(queue, big);
    const over = queue.add('one more character');
    assert.ok('reason' in over && over.reason === 'too_long');
    assert.match(over.message, /send or remove some first/);
  });

  it('does not hand out a message while it is being edited, nor anything behind it', () => {
    const queue = new PromptQueue();
    const first = added(queue, 'being edited');
    added(queue, 'behind it');
    queue.setEditing(first.id);
    assert.equal(queue.takeNext(), undefined, 'order is kept: the second waits too');
    assert.equal(queue.state.editing, first.id);
    assert.equal(queue.edit(first.id, 'edited'), 'edited');
    assert.equal(queue.state.editing, undefined, 'saving the edit ends it');
    assert.equal(queue.takeNext()?.text, 'edited');
    // Marking a message that is gone is ignored.
    queue.setEditing('q-none');
    assert.equal(queue.state.editing, undefined);
  });

  it('holds: nothing goes out until resumed, though the user may still take one out themselves', () => {
    const queue = new PromptQueue();
    added(queue, 'a');
    const b = added(queue, 'b');
    queue.hold('failed', 'The server said 400.');
    assert.deepEqual(queue.state.held, { kind: 'failed', reason: 'The server said 400.' });
    assert.equal(queue.takeNext(), undefined);
    assert.equal(queue.take(b.id)?.text, 'b');
    queue.resume();
    assert.equal(queue.state.held, undefined);
    assert.equal(queue.takeNext()?.text, 'a');
    // An empty queue has nothing to hold.
    queue.hold('stopped');
    assert.equal(queue.state.held, undefined);
  });

  it('restores kept messages held, dropping ones that do not fit', () => {
    const queue = new PromptQueue();
    queue.restore(['first', '', 'x'.repeat(MAX_QUEUED_PROMPT_CHARS + 1), 'second']);
    assert.deepEqual(texts(queue), ['first', 'second']);
    assert.deepEqual(queue.state.held, { kind: 'reloaded' });
    assert.equal(queue.takeNext(), undefined);
    queue.restore([]);
    assert.equal(queue.state.held, undefined);
  });

  it('tells its listeners about every change; a listener that throws does not stop the others', () => {
    const queue = new PromptQueue();
    const seen: QueueState[] = [];
    queue.onChange(() => {
      throw new Error('faulty surface');
    });
    queue.onChange((state) => seen.push(state));
    const one = added(queue, 'one');
    queue.edit(one.id, 'uno');
    queue.remove(one.id);
    assert.deepEqual(
      seen.map((state) => state.items.map((item) => item.text)),
      [['one'], ['uno'], []],
    );
  });
});
