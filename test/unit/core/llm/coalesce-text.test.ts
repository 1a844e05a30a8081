/**
 * Text deltas that arrived together go on as one part; nothing waits for the network to be
 * passed on; other parts keep their place; a failure comes after the text that preceded it.
 */
import assert from 'node:assert/strict';
import { coalesceTextDeltas, MAX_JOINED_CHARS } from '../../../../src/core/llm/coalesce-text';
import type { LlmStreamPart } from '../../../../src/core/llm/llm-client';

const text = (value: string): LlmStreamPart => ({ type: 'text_delta', text: value });

/** A source the test feeds: parts pushed together are there together; next() waits for more. */
class Source implements AsyncIterable<LlmStreamPart> {
  private readonly queued: Array<LlmStreamPart | Error | 'end'> = [];
  private waiter: (() => void) | undefined;
  returned = false;

  push(...items: Array<LlmStreamPart | Error | 'end'>): void {
    this.queued.push(...items);
    this.waiter?.();
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<LlmStreamPart> {
    try {
      for (;;) {
        while (this.queued.length === 0) await new Promise<void>((resolve) => (this.waiter = resolve));
        const item = this.queued.shift()!;
        if (item === 'end') return;
        if (item instanceof Error) throw item;
        yield item;
      }
    } finally {
      this.returned = true;
    }
  }
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('text deltas received together go on together', () => {
  it('joins what is there, and passes it on before waiting for the network', async () => {
    const source = new Source();
    const got: LlmStreamPart[] = [];
    const done = (async () => {
      for await (const part of coalesceTextDeltas(source)) got.push(part);
    })();
    source.push(text('Hel'), text('lo, '), text('wor'));
    for (let i = 0; i < 5 && got.length === 0; i++) await turn();
    assert.deepEqual(got, [text('Hello, wor')], 'what arrived together, as one part, while the source waits');
    source.push(text('ld'), { type: 'tool_call_start', id: 't1', name: 'bash' }, text('!'), 'end');
    await done;
    assert.deepEqual(got, [
      text('Hello, wor'),
      text('ld'),
      { type: 'tool_call_start', id: 't1', name: 'bash' },
      text('!'),
    ]);
  });

  it('a long burst goes on in parts of at most MAX_JOINED_CHARS', async () => {
    const source = new Source();
    const piece = 'x'.repeat(1000);
    source.push(...Array.from({ length: 40 }, () => text(piece)), 'end');
    const got: string[] = [];
    for await (const part of coalesceTextDeltas(source)) if (part.type === 'text_delta') got.push(part.text);
    assert.equal(got.join(''), piece.repeat(40));
    assert.ok(got.length >= 3, `split into ${got.length} parts`);
    assert.ok(got.every((part) => part.length <= MAX_JOINED_CHARS + piece.length));
  });

  it('a failure comes after the text received before it', async () => {
    const source = new Source();
    source.push(text('partial '), text('answer'), new Error('connection reset'));
    const got: LlmStreamPart[] = [];
    await assert.rejects(async () => {
      for await (const part of coalesceTextDeltas(source)) got.push(part);
    }, /connection reset/);
    assert.deepEqual(got, [text('partial answer')]);
  });

  it('a reader that stops closes the source', async () => {
    const source = new Source();
    source.push(text('a'), { type: 'finish', stopReason: 'end_turn' }, text('b'));
    for await (const part of coalesceTextDeltas(source)) if (part.type === 'finish') break;
    assert.ok(source.returned);
  });

  it('a reader that stops while a part is still coming closes the source once it comes', async () => {
    const source = new Source();
    source.push(text('early'));
    const stream = coalesceTextDeltas(source)[Symbol.asyncIterator]();
    assert.deepEqual((await stream.next()).value, text('early'));
    await stream.return(undefined);
    assert.equal(source.returned, false, 'the source is still waiting for its next part');
    source.push(text('late'));
    for (let i = 0; i < 5 && !source.returned; i++) await turn();
    assert.ok(source.returned);
  });
});
