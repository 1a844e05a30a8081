import assert from 'node:assert/strict';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { withIdleWatchdog } from '../../../../src/core/llm/idle-watchdog';
import { LlmError } from '../../../../src/core/llm/llm-client';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function* chunks(count: number, gapMs: number): AsyncIterable<number> {
  for (let index = 0; index < count; index++) {
    if (gapMs > 0) await sleep(gapMs);
    yield index;
  }
}

describe('the stream idle watchdog', () => {
  it('lets a steady stream through, however long it lasts in all', async () => {
    const seen: number[] = [];
    // 2 s in all, a chunk every 100 ms, 1.5 s allowed between chunks.
    for await (const chunk of withIdleWatchdog(chunks(20, 100), 1_500, new AbortController(), 'S')) seen.push(chunk);
    assert.equal(seen.length, 20);
  });

  it('does not count the time the consumer spends with a chunk as the server being silent', async () => {
    const seen: number[] = [];
    for await (const chunk of withIdleWatchdog(chunks(3, 0), 100, new AbortController(), 'S')) {
      seen.push(chunk);
      await sleep(250);
    }
    assert.deepEqual(seen, [0, 1, 2]);
  });

  it('ends a stream that goes quiet, aborts the request and names the server', async () => {
    const controller = new AbortController();
    const seen: number[] = [];
    await assert.rejects(
      (async () => {
        for await (const chunk of withIdleWatchdog(
          (async function* () {
            yield 1;
            await sleep(10_000);
            yield 2;
          })(),
          200,
          controller,
          'llama.cpp server at http://127.0.0.1:8080/v1',
        ))
          seen.push(chunk);
      })(),
      (error: unknown) =>
        error instanceof LlmError &&
        error.kind === 'connection' &&
        /^llama\.cpp server at http:\/\/127\.0\.0\.1:8080\/v1 sent nothing for 0\.2 s/.test(error.message),
    );
    assert.deepEqual(seen, [1]);
    assert.ok(controller.signal.aborted);
  });
});

describe('the stream idle watchdog over a long answer', () => {
  it('keeps none of the parts it passed on (memory does not grow with the answer)', async () => {
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    // 60,000 parts of 1 KB each, fresh strings: 60 MB if the watchdog kept them.
    async function* parts() {
      for (let index = 0; index < 60_000; index++) yield `${index}:${'x'.repeat(1024)}`;
    }
    let baseline = 0;
    let midway = 0;
    let seen = 0;
    for await (const part of withIdleWatchdog(parts(), 60_000, new AbortController(), 'S')) {
      seen += part.length > 0 ? 1 : 0;
      if (seen === 1_000) {
        gc();
        baseline = process.memoryUsage().heapUsed;
      }
      if (seen === 59_000) {
        gc();
        midway = process.memoryUsage().heapUsed;
      }
    }
    assert.equal(seen, 60_000);
    const grownMb = (midway - baseline) / 1024 / 1024;
    assert.ok(grownMb < 20, `the heap grew by ${grownMb.toFixed(1)} MB over 58,000 parts`);
  });
});
