import assert from 'node:assert/strict';
import { LlmError, type LlmRequest, type LlmStreamPart } from '../../../../src/core/llm/llm-client';
import { compareRuns } from '../../../../src/core/replay/compare-runs';
import { prepareRecording } from '../../../../src/core/replay/loaded-recording';
import { RECORDING_FORMAT, type RecordedStep, type RunRecording } from '../../../../src/core/replay/recording';
import { renderComparison } from '../../../../src/core/replay/replay-report';
import { replayModelClient } from '../../../../src/core/replay/replay-model-client';
import { ReplayState } from '../../../../src/core/replay/replay-state';
import { MemoryRecordingStore } from './test-recorder';

const store = new MemoryRecordingStore();
const request = (text: string): Omit<LlmRequest, 'signal'> => ({
  model: 'm',
  system: 'sys',
  messages: [{ role: 'user', content: [{ type: 'text', text }] }],
  tools: [],
  maxOutputTokens: 100,
});
const answer = (...parts: LlmStreamPart[]) => store.put({ parts });

function recordingOf(steps: RecordedStep[], id = 'c'): RunRecording {
  return {
    manifest: {
      format: RECORDING_FORMAT,
      product: 'test',
      conversationId: id,
      startedAt: 0,
      place: { kind: 'workspace', root: '/w' },
      models: [{ work: 'chat', provider: 'anthropic', model: 'm' }],
      system: store.put('sys'),
      tools: [],
      policy: { hash: 'h', sources: [] },
      limits: {},
    },
    steps,
  };
}

const model = (step: number, extra: Partial<Extract<RecordedStep, { kind: 'model' }>> = {}): RecordedStep => ({
  kind: 'model',
  step,
  agentId: 'lead',
  work: 'chat',
  provider: 'anthropic',
  model: 'm',
  request: store.put(request('hi')),
  answer: answer(
    { type: 'text_delta', text: 'Hel' },
    { type: 'text_delta', text: 'lo' },
    { type: 'finish', stopReason: 'end_turn' },
  ),
  startedAt: step,
  durationMs: 1,
  ...extra,
});

async function drain(stream: AsyncIterable<LlmStreamPart>): Promise<LlmStreamPart[]> {
  const parts: LlmStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('replay model client', () => {
  const setup = async (steps: RecordedStep[]) => {
    const loaded = await prepareRecording(recordingOf(steps), (ref) => store.getContent(ref));
    const controller = new AbortController();
    const state = new ReplayState(loaded, { stop: () => controller.abort(), interrupt: () => controller.abort() });
    return { state, signal: controller.signal };
  };

  it('streams the recorded parts as they came, then throws a recorded failure with its kind and status', async () => {
    const { state, signal } = await setup([
      model(1, { error: { message: 'overloaded', kind: 'rate_limit', status: 429 }, answer: answer() }),
      model(2),
    ]);
    const client = replayModelClient(state, { work: 'chat', provider: 'anthropic' });
    await assert.rejects(drain(client.stream({ ...request('hi'), signal })), (error: unknown) => {
      assert.ok(error instanceof LlmError);
      assert.equal(error.kind, 'rate_limit');
      assert.equal(error.status, 429);
      return true;
    });
    const parts = await drain(client.stream({ ...request('hi'), signal }));
    assert.deepEqual(
      parts.filter((part) => part.type === 'text_delta').map((part) => (part as { text: string }).text),
      ['Hel', 'lo'],
    );
  });

  it('ends the replay with a divergence for a call the recording does not have, inventing nothing', async () => {
    const { state, signal } = await setup([model(1)]);
    const client = replayModelClient(state, { work: 'chat', provider: 'anthropic' });
    await drain(client.stream({ ...request('hi'), signal }));
    await assert.rejects(drain(client.stream({ ...request('hi'), signal })), { name: 'AbortError' });
    assert.match(state.divergence!.what, /model call the recording does not have/);
    assert.match(state.divergence!.expected, /no more model calls from lead \(it made 1\)/);
  });

  it('ends the replay with a divergence for another kind of work, and for a different request', async () => {
    const work = await setup([model(1)]);
    await assert.rejects(
      drain(
        replayModelClient(work.state, { work: 'compaction', provider: 'anthropic' }).stream({
          ...request('hi'),
          signal: work.signal,
        }),
      ),
      { name: 'AbortError' },
    );
    assert.deepEqual(
      { what: work.state.divergence?.what, expected: work.state.divergence?.expected },
      { what: 'the run asked for another kind of model call', expected: 'a chat call' },
    );
    const asked = await setup([model(1)]);
    await assert.rejects(
      drain(
        replayModelClient(asked.state, { work: 'chat', provider: 'anthropic' }).stream({
          ...request('bye'),
          signal: asked.signal,
        }),
      ),
      { name: 'AbortError' },
    );
    assert.match(asked.state.divergence!.what, /request differs: message 1 of 1 \(user\)/);
    assert.match(asked.state.divergence!.actual, /bye/);
  });
});

describe('compareRuns', () => {
  it('aligns the steps both runs have and names the first where they part', async () => {
    const prompt = { kind: 'prompt' as const, step: 1, text: store.put('go') };
    const a = await prepareRecording(recordingOf([prompt, model(2), model(3)], 'a'), (ref) => store.getContent(ref));
    const other = model(3, { answer: answer({ type: 'text_delta', text: 'Goodbye' }) });
    const b = await prepareRecording(
      recordingOf([prompt, model(2), { ...other, step: 3 }, { ...model(4), step: 4 }], 'b'),
      (ref) => store.getContent(ref),
    );
    const comparison = compareRuns(a, b);
    assert.deepEqual(
      comparison.rows.map((row) => [row.a?.step, row.b?.step, row.same]),
      [
        [1, 1, true],
        [2, 2, true],
        [3, 3, false],
        [undefined, 4, false],
      ],
    );
    assert.equal(comparison.firstDivergence?.step, 3);
    assert.match(comparison.firstDivergence!.actual, /Goodbye/);
    assert.equal(comparison.a.modelCalls, 2);
    assert.equal(comparison.b.modelCalls, 3);
    const table = renderComparison(comparison);
    assert.match(table, /First divergence at step 3: the model answered differently/);
    assert.match(table, /model calls\s+2\s+3/);
  });
});
