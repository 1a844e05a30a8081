import assert from 'node:assert/strict';
import type { LlmClient, LlmStreamPart } from '../../../../src/core/llm/llm-client';
import { LlmError } from '../../../../src/core/llm/llm-client';
import { retryAfterFromHeaders } from '../../../../src/core/llm/map-sdk-error';
import { DEFAULT_RETRY_OPTIONS, isRetryable, retryDelay, withRetry } from '../../../../src/core/llm/retry';
import { baseRequest } from './collect-parts';

/** A client whose attempts follow a script: each entry is parts to yield, then an error to throw (or none). */
function scriptedClient(script: Array<{ parts: LlmStreamPart[]; error?: Error }>): LlmClient & { attempts: number } {
  const client = {
    provider: 'scripted',
    attempts: 0,
    listModels: async () => [],
    async *stream() {
      const step = script[client.attempts++];
      if (!step) throw new Error('no more attempts scripted');
      yield* step.parts;
      if (step.error) throw step.error;
    },
  };
  return client;
}

async function drain(client: LlmClient): Promise<LlmStreamPart[]> {
  const parts: LlmStreamPart[] = [];
  for await (const part of client.stream(baseRequest)) parts.push(part);
  return parts;
}

const finish: LlmStreamPart = { type: 'finish', stopReason: 'end_turn' };

describe('retry wrapper', () => {
  const waits: number[] = [];
  const fast = { sleep: async (ms: number) => void waits.push(ms), random: () => 0.5 };
  beforeEach(() => {
    waits.length = 0;
  });

  it('retries retryable failures before the first byte, with growing jittered delays', async () => {
    const inner = scriptedClient([
      { parts: [], error: new LlmError('busy', 'server', 503) },
      { parts: [], error: new LlmError('conn', 'connection') },
      { parts: [], error: new LlmError('overloaded', 'server', 529) },
      { parts: [{ type: 'text_delta', text: 'ok' }, finish] },
    ]);
    const parts = await drain(withRetry(inner, { ...fast, baseDelayMs: 100 }));
    assert.equal(inner.attempts, 4);
    assert.deepEqual(parts, [{ type: 'text_delta', text: 'ok' }, finish]);
    assert.deepEqual(waits, [75, 150, 300]);
  });

  it('honours retry-after from the server', async () => {
    const inner = scriptedClient([
      { parts: [], error: new LlmError('slow down', 'rate_limit', 429, 7_000) },
      { parts: [finish] },
    ]);
    await drain(withRetry(inner, fast));
    assert.deepEqual(waits, [7_000]);
  });

  it('never retries once a part has streamed out', async () => {
    const inner = scriptedClient([
      { parts: [{ type: 'text_delta', text: 'half' }], error: new LlmError('boom', 'server', 500) },
      { parts: [finish] },
    ]);
    await assert.rejects(drain(withRetry(inner, fast)), /boom/);
    assert.equal(inner.attempts, 1);
  });

  it('does not retry what cannot succeed: bad requests, bad keys', async () => {
    for (const error of [new LlmError('bad', 'bad_request', 400), new LlmError('key', 'authentication', 401)]) {
      const inner = scriptedClient([{ parts: [], error }, { parts: [finish] }]);
      await assert.rejects(drain(withRetry(inner, fast)));
      assert.equal(inner.attempts, 1);
    }
  });

  it('gives up after maxRetries, and when retry-after is unreasonably long', async () => {
    const always = () => ({ parts: [], error: new LlmError('busy', 'server', 500) });
    const inner = scriptedClient([always(), always(), always()]);
    await assert.rejects(drain(withRetry(inner, { ...fast, maxRetries: 2 })), /busy/);
    assert.equal(inner.attempts, 3);
    const patient = scriptedClient([{ parts: [], error: new LlmError('later', 'rate_limit', 429, 3_600_000) }]);
    await assert.rejects(drain(withRetry(patient, fast)), /later/);
    assert.equal(patient.attempts, 1);
  });

  it('classifies the statuses SPEC 2.3 names as retryable', () => {
    for (const status of [408, 409, 429, 500, 502, 503, 529])
      assert.ok(isRetryable(new LlmError('x', 'server', status)), String(status));
    for (const status of [400, 401, 403, 404, 422])
      assert.ok(!isRetryable(new LlmError('x', 'bad_request', status)), String(status));
    assert.ok(!isRetryable(new Error('plain')));
  });

  it('keeps jittered delays within [half, full] of the capped backoff', () => {
    const error = new LlmError('x', 'server', 500);
    for (const random of [0, 0.999]) {
      const delay = retryDelay(20, error, DEFAULT_RETRY_OPTIONS, () => random);
      assert.ok(delay >= DEFAULT_RETRY_OPTIONS.maxDelayMs / 2 && delay <= DEFAULT_RETRY_OPTIONS.maxDelayMs);
    }
  });

  it('reads retry-after in seconds, milliseconds and as a date', () => {
    assert.equal(retryAfterFromHeaders({ 'retry-after': '2' }), 2_000);
    assert.equal(retryAfterFromHeaders(new Headers({ 'retry-after-ms': '250' })), 250);
    assert.equal(retryAfterFromHeaders({ 'retry-after': new Date(10_000).toUTCString() }, 4_000), 6_000);
    assert.equal(retryAfterFromHeaders({ 'retry-after': 'soon' }), undefined);
  });
});
