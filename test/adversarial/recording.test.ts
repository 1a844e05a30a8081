/**
 * Hostile inputs to run recording (replay): a 10 MB tool result, a tool input nested 10,000
 * levels deep, control characters and broken surrogates, a value that refers to itself, and a
 * store that fails in the middle of a run. The run always finishes; what can be kept is kept.
 */
import assert from 'node:assert/strict';
import { z } from 'zod';
import type { AgentEvent } from '../../src/core/events/events';
import { canonicalJson, CanonicalJsonError, contentOf } from '../../src/core/replay/content-hash';
import { joinToolResult } from '../../src/core/replay/recorded-request';
import type { ContentRef, RecordingStore, ToolStep } from '../../src/core/replay/recording';
import { RunRecorder } from '../../src/core/replay/run-recorder';
import { defineTool } from '../../src/core/tools/tool';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { recordedSession } from '../unit/core/replay/recording-harness';
import { openStore, tempDir } from '../unit/store/store-helpers';

const TEN_MB = 10 * 1024 * 1024;
const HUGE = `${'0123456789abcdef\n'.repeat(Math.ceil(TEN_MB / 17))}end`;

const hugeTool = defineTool({
  name: 'huge',
  description: 'Returns ten megabytes.',
  inputSchema: z.object({}),
  readOnly: true,
  needsApproval: false,
  execute: async () => HUGE,
});

const echoTool = defineTool({
  name: 'echo',
  description: 'Says what it got.',
  inputSchema: z.object({ value: z.unknown() }),
  readOnly: true,
  needsApproval: false,
  execute: async (input: { value: unknown }) => (typeof input.value === 'string' ? input.value : 'a value'),
});

/** How deep a value nests, walked without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const stack: Array<[unknown, number]> = [[value, 1]];
  while (stack.length) {
    const [node, depth] = stack.pop()!;
    deepest = Math.max(deepest, depth);
    if (node && typeof node === 'object') for (const child of Object.values(node)) stack.push([child, depth + 1]);
  }
  return deepest;
}

const BASIS = {
  product: 't',
  place: { kind: 'workspace' as const, root: '/' },
  models: [],
  policy: { hash: '', sources: [] },
  limits: {},
};

function ended(events: readonly AgentEvent[]): boolean {
  return events.some((event) => event.type === 'done' || event.type === 'error');
}

describe('recording under hostile input', () => {
  it('keeps a 10 MB tool result once and finishes the run', async () => {
    const server = await FakeModelServer.start({
      scenario: {
        name: 'huge',
        turns: [{ toolCalls: [{ id: 'h1', name: 'huge', arguments: {} }] }, { text: 'That was a lot.' }],
      },
    });
    const opened = await openStore(tempDir());
    try {
      const recorded = recordedSession(server, opened.store, {
        tools: () => [hugeTool],
        readLimits: () => ({ maxToolOutputChars: TEN_MB * 2, contextWindow: 100_000_000 }),
      });
      await recorded.run('Make it big.');
      const recording = await opened.store.recordings.getRecording('c1');
      const tool = recording!.steps.find((step): step is ToolStep => step.kind === 'tool')!;
      const result = await joinToolResult(tool.result!, (ref) => opened.store.recordings.getContent(ref));
      assert.ok(result!.output === HUGE, 'the result as the model got it');
      // Sent in the result and again in the next request: kept once (its pieces), not twice.
      const kept = await opened.store.recordings.contentBytes();
      assert.ok(kept.bytes < result!.output.length * 1.2, `kept ${kept.bytes} bytes`);
    } finally {
      await opened.store.close();
      await server.close();
    }
  });

  it('records a tool input nested 10,000 levels deep without overflowing, whatever the run does next', async () => {
    const deep = `{"value":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    const server = await FakeModelServer.start({
      scenario: {
        name: 'deep',
        turns: [{ toolCalls: [{ id: 'd1', name: 'echo', rawArguments: deep }] }, { text: 'Deep.' }],
        whenExhausted: 'echo',
      },
    });
    const opened = await openStore(tempDir());
    try {
      const recorded = recordedSession(server, opened.store, { tools: () => [echoTool], onStoreError: () => {} });
      await recorded.session.submit('Go deep.');
      for (let waited = 0; !ended(recorded.events) && waited < 30_000; waited += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      assert.ok(ended(recorded.events), 'the run ends');
      await recorded.session.flush();
      const recording = await opened.store.recordings.getRecording('c1');
      const tool = recording!.steps.find((step): step is ToolStep => step.kind === 'tool')!;
      assert.equal(tool.note, undefined);
      // The input as the loop had it (the adapters keep such arguments as their text).
      const call = recorded.events.find((event) => event.type === 'tool_call');
      const input = await opened.store.recordings.getContent(tool.input);
      const had = call?.type === 'tool_call' ? call.input : undefined;
      if (typeof had === 'string') assert.equal(input, had);
      else assert.equal(depthOf(input), 10_001);

      // And a value nested that deep, handed to the recorder as a tool input, is stored and read back.
      const nested = JSON.parse(deep) as unknown;
      const base = { conversationId: 'deep', agentId: 'lead', time: 1 };
      const recorder = new RunRecorder({
        store: async () => opened.store.recordings,
        basis: () => BASIS,
        now: () => 1,
        onError: (error) => assert.fail(String(error)),
      });
      recorder.observe({ ...base, seq: 0, type: 'user_message', text: 'deep' } as AgentEvent);
      recorder.observe({
        ...base,
        seq: 1,
        type: 'tool_call',
        toolCallId: 'd',
        toolName: 'echo',
        input: nested,
      } as AgentEvent);
      recorder.observe({ ...base, seq: 2, type: 'done', stopReason: 'end_turn', turns: 1 } as AgentEvent);
      await recorder.flush();
      const deepStep = (await opened.store.recordings.getRecording('deep'))!.steps[1] as ToolStep;
      assert.equal(deepStep.note, undefined);
      assert.equal(depthOf(await opened.store.recordings.getContent(deepStep.input)), 10_001);
    } finally {
      await opened.store.close();
      await server.close();
    }
  });

  it('keeps control characters, line separators and broken surrogates exactly', async () => {
    const strange = 'nul\u0000 bell\u0007 esc\u001b[31m ls\u2028 ps\u2029 lone\ud800 end\udfff \r\n\t';
    const server = await FakeModelServer.start({
      scenario: {
        name: 'strange',
        turns: [{ toolCalls: [{ id: 'e1', name: 'echo', arguments: { value: strange } }] }, { text: strange }],
      },
    });
    const directory = tempDir();
    const opened = await openStore(directory);
    try {
      const recorded = recordedSession(server, opened.store, { tools: () => [echoTool] });
      await recorded.run(strange);
      await opened.store.close();
      const reopened = await openStore(directory);
      const recording = await reopened.store.recordings.getRecording('c1');
      const prompt = recording!.steps[0]!;
      assert.equal(prompt.kind, 'prompt');
      assert.equal(await reopened.store.recordings.getContent((prompt as { text: ContentRef }).text), strange);
      const tool = recording!.steps.find((step): step is ToolStep => step.kind === 'tool')!;
      assert.deepEqual(await reopened.store.recordings.getContent(tool.input), { value: strange });
      const result = await joinToolResult(tool.result!, (ref) => reopened.store.recordings.getContent(ref));
      assert.equal(result!.output, strange);
      await reopened.store.close();
    } finally {
      await server.close();
    }
  });

  it('writes canonical JSON of a value JSON.stringify cannot, and refuses a cycle by name', () => {
    let deep: unknown = 'bottom';
    for (let level = 0; level < 100_000; level++) deep = { next: deep };
    assert.equal(canonicalJson(deep).length, 100_000 * 9 + 8);
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle.self = cycle;
    assert.throws(() => canonicalJson(cycle), CanonicalJsonError);
    assert.equal(canonicalJson({ b: 1, a: { d: [1, undefined], c: 'x' } }), '{"a":{"c":"x","d":[1,null]},"b":1}');
    assert.equal(contentOf({ a: 1, b: 2 }).ref, contentOf({ b: 2, a: 1 }).ref);
  });

  it('keeps a step with a note when a tool input cannot be recorded', async () => {
    const puts: Array<{ step?: unknown }> = [];
    const store: RecordingStore = {
      putContent: async () => undefined,
      getContent: async () => undefined,
      hasContent: async () => false,
      saveManifest: async () => undefined,
      putStep: async (_id, step) => void puts.push({ step }),
      getRecording: async () => undefined,
    };
    const recorder = new RunRecorder({
      store: async () => store,
      basis: () => ({
        product: 't',
        place: { kind: 'workspace', root: '/' },
        models: [],
        policy: { hash: '', sources: [] },
        limits: {},
      }),
      now: () => 1,
      onError: () => assert.fail('no store error'),
    });
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const base = { conversationId: 'c', agentId: 'lead', time: 1 };
    recorder.observe({ ...base, seq: 0, type: 'user_message', text: 'hi' } as AgentEvent);
    recorder.observe({
      ...base,
      seq: 1,
      type: 'tool_call',
      toolCallId: 't',
      toolName: 'x',
      input: cycle,
    } as AgentEvent);
    recorder.observe({
      ...base,
      seq: 2,
      type: 'tool_result',
      toolCallId: 't',
      toolName: 'x',
      output: 'ok',
      isError: false,
      durationMs: 0,
    } as AgentEvent);
    await recorder.flush();
    const tool = puts.map((put) => put.step as ToolStep).find((step) => step.kind === 'tool')!;
    assert.match(tool.note ?? '', /refers to itself/);
    assert.equal(tool.step, 2);
  });

  it('finishes the run and reports once when the store fails in the middle of it', async () => {
    const server = await FakeModelServer.start({
      scenario: {
        name: 'failing-store',
        turns: [
          { toolCalls: [{ id: 'e1', name: 'echo', arguments: { value: 'one' } }] },
          { toolCalls: [{ id: 'e2', name: 'echo', arguments: { value: 'two' } }] },
          { text: 'Finished.' },
        ],
      },
    });
    const opened = await openStore(tempDir());
    let writes = 0;
    const real = opened.store.recordings;
    const failing: RecordingStore = {
      putContent: (ref, value) => (++writes > 3 ? Promise.reject(new Error('disk full')) : real.putContent(ref, value)),
      getContent: (ref) => real.getContent(ref),
      hasContent: (ref) => real.hasContent(ref),
      saveManifest: (manifest) => real.saveManifest(manifest),
      putStep: (id, step) => (writes > 3 ? Promise.reject(new Error('disk full')) : real.putStep(id, step)),
      getRecording: (id) => real.getRecording(id),
    };
    const errors: unknown[] = [];
    try {
      const store = new Proxy(opened.store, {
        get: (target, property) =>
          property === 'recordings' ? failing : (Reflect.get(target, property, target) as unknown),
      });
      const recorded = recordedSession(server, opened.store, {
        store: async () => store,
        tools: () => [echoTool],
        onStoreError: (error) => errors.push(error),
      });
      await recorded.run('Do it twice.');
      const done = recorded.events.find((event) => event.type === 'done');
      assert.ok(done, 'the run finished');
      assert.equal(errors.length, 1, 'told once');
      assert.match(String(errors[0]), /disk full/);
      // The conversation itself is kept as ever.
      assert.ok((await opened.store.listMessages('c1')).length > 3);
    } finally {
      await opened.store.close();
      await server.close();
    }
  });
});
