/**
 * Hostile input to the developer panel's Compare tab (SPEC: replay and compare): the webview is
 * untrusted, and a recording may come from anywhere. Unknown and foreign conversation ids, ids
 * of 10 KB, a step out of range for a re-run, and a recording of 20,000 steps: each is refused
 * with words, or drawn bounded; nothing is loaded, re-run or made that was not listed.
 */
import assert from 'node:assert/strict';
import { compareRuns } from '../../src/core/replay/compare-runs';
import { prepareRecording, type LoadedRecording } from '../../src/core/replay/loaded-recording';
import { RECORDING_FORMAT, type RecordedStep, type RunRecording } from '../../src/core/replay/recording';
import { compareViewMessage } from '../../src/host/panel/compare-view';
import { PanelCompare, type CompareSource } from '../../src/host/panel/panel-compare';
import {
  hostToPanelSchema,
  MAX_COMPARE_ROWS,
  parsePanelMessage,
  type CompareChoice,
  type HostToPanel,
} from '../../src/protocol/messages';
import { parseHostToPanel } from '../../src/protocol/panel-message-check';
import { MemoryRecordingStore } from '../unit/core/replay/test-recorder';

/** A recording of `count` steps (prompts and reads, alternating); `changed` gives one step other text. */
async function bigRecording(id: string, count: number, changed?: number): Promise<LoadedRecording> {
  const store = new MemoryRecordingStore();
  const steps: RecordedStep[] = [];
  for (let step = 1; step <= count; step++) {
    const text = step === changed ? `changed ${step}` : `step ${step}`;
    if (step % 2 === 1) steps.push({ kind: 'prompt', step, text: store.put(text) });
    else
      steps.push({
        kind: 'tool',
        step,
        agentId: 'lead',
        toolCallId: `t${step}`,
        toolName: 'read_file',
        input: store.put({ path: `${text}.txt` }),
        result: store.put({ output: text, isError: false }),
        startedAt: step,
        durationMs: 1,
      });
  }
  const recording: RunRecording = {
    manifest: {
      format: RECORDING_FORMAT,
      product: 'test',
      conversationId: id,
      startedAt: 0,
      place: { kind: 'workspace', root: '/nowhere' },
      models: [{ work: 'chat', provider: 'anthropic', model: 'fake-model' }],
      system: store.put('You are a test.'),
      tools: [],
      policy: { hash: 'none', sources: [] },
      limits: {},
    },
    steps,
  };
  return prepareRecording(recording, (ref) => store.content.get(ref));
}

interface Calls {
  loads: string[];
  reruns: Array<[string, number]>;
}

function fakeSource(recordings: Map<string, LoadedRecording>, listed: CompareChoice[], calls: Calls): CompareSource {
  return {
    choices: async () => listed,
    load: async (id) => {
      calls.loads.push(id);
      const found = recordings.get(id);
      if (!found) throw new Error(`no recording ${id.slice(0, 20)}`);
      return found;
    },
    rerun: async (loaded, step) => {
      calls.reruns.push([loaded.recording.manifest.conversationId, step]);
      return undefined;
    },
  };
}

function choice(id: string, recorded = true): CompareChoice {
  return { id, title: `Run ${id}`, createdAt: 1, recorded };
}

describe('adversarial: the Compare tab', function () {
  this.timeout(120_000);
  let small: LoadedRecording;

  before(async () => {
    small = await bigRecording('listed', 6);
  });

  function compareWith(listed: CompareChoice[], recordings = new Map([['listed', small]])) {
    const calls: Calls = { loads: [], reruns: [] };
    const messages: HostToPanel[] = [];
    const compare = new PanelCompare(fakeSource(recordings, listed, calls), (message) => messages.push(message));
    const notices = () => messages.flatMap((message) => (message.type === 'compare_notice' ? [message.text] : []));
    return { compare, calls, messages, notices };
  }

  it('an unknown id, or a foreign one the host did not list, is refused and never loaded', async () => {
    const foreign = await bigRecording('foreign', 4);
    const { compare, calls, messages, notices } = compareWith(
      [choice('listed'), choice('bare', false)],
      new Map([
        ['listed', small],
        ['foreign', foreign],
      ]),
    );
    await compare.request('listed', 'never-heard-of');
    await compare.request('foreign', 'listed');
    await compare.request('listed', 'bare');
    assert.deepEqual(calls.loads, [], 'nothing loaded');
    assert.equal(messages.filter((message) => message.type === 'compare_view').length, 0);
    assert.match(notices()[0]!, /not among the recorded ones/);
    assert.match(notices()[1]!, /not among the recorded ones/);
    assert.match(notices()[2]!, /“Run bare” has no recording/);
  });

  it('ids of 10 KB: the protocol drops the message; given directly, a short notice and nothing loaded', async () => {
    const long = 'x'.repeat(10_240);
    assert.equal(parsePanelMessage({ type: 'compare_request', a: long, b: 'listed' }), undefined);
    assert.equal(parsePanelMessage({ type: 'compare_rerun', conversationId: long, step: 2 }), undefined);
    assert.equal(
      parsePanelMessage({ type: 'compare_request', a: 'listed', b: 'listed', extra: 1 }),
      undefined,
      'no keys beyond the protocol',
    );
    const { compare, calls, notices } = compareWith([choice('listed')]);
    await compare.request(long, long);
    await compare.rerun(long, 2);
    assert.deepEqual(calls.loads, []);
    assert.deepEqual(calls.reruns, []);
    for (const text of notices()) assert.ok(text.length <= 2_000);
  });

  it('a re-run only from a run on screen, and only from a step it has', async () => {
    for (const step of [0, -1, 1.5, Number.NaN, 2 ** 60])
      assert.equal(parsePanelMessage({ type: 'compare_rerun', conversationId: 'listed', step }), undefined, `${step}`);
    const { compare, calls, notices } = compareWith([choice('listed')]);
    await compare.rerun('listed', 2);
    assert.match(notices().at(-1)!, /not the one compared here/);
    await compare.request('listed', 'listed');
    await compare.rerun('listed', 7);
    assert.match(notices().at(-1)!, /Step 7 is out of range: this recording has steps 1 to 6/);
    await compare.rerun('listed', 999_999_999);
    assert.match(notices().at(-1)!, /out of range/);
    assert.deepEqual(calls.reruns, []);
    await compare.rerun('listed', 6);
    assert.deepEqual(calls.reruns, [['listed', 6]], 'a step in range reaches the re-run');
  });

  it('20,000 steps: compared, then sent as a bounded window holding the first divergence', async () => {
    const a = await bigRecording('a', 20_000);
    const b = await bigRecording('b', 20_000, 15_001);
    const { compare, messages } = compareWith(
      [choice('a'), choice('b')],
      new Map([
        ['a', a],
        ['b', b],
      ]),
    );
    await compare.request('a', 'b');
    const view = messages.find((message) => message.type === 'compare_view');
    assert.ok(view && view.type === 'compare_view');
    assert.equal(view.total, 20_000);
    assert.equal(view.rows.length, MAX_COMPARE_ROWS);
    assert.equal(view.firstDivergence?.step, 15_001);
    assert.equal(view.firstIndex, 15_000);
    assert.ok(
      view.rows.some((row) => row.index === 15_000 && !row.same),
      'the divergence is in the window',
    );
    assert.ok(JSON.stringify(view).length < 400_000, `${JSON.stringify(view).length} characters`);
    // What the host posts is what the protocol lets through, both ways of checking it.
    assert.ok(hostToPanelSchema.safeParse(view).success);
    assert.ok(parseHostToPanel(view));
  });

  it('hostile labels stay one bounded line: no control characters, no bidirectional overrides', async () => {
    const a = await bigRecording('a', 4);
    const store = new MemoryRecordingStore();
    const evil = `\u202e\u0007${'<img src=x onerror=alert(1)>'.repeat(500)}\n\r`;
    const b = await prepareRecording(
      {
        ...a.recording,
        manifest: { ...a.recording.manifest, conversationId: 'b', system: store.put('s') },
        steps: [{ kind: 'prompt', step: 1, text: store.put(evil) }],
      },
      (ref) => store.content.get(ref),
    );
    const view = compareViewMessage(compareRuns(a, b));
    const label = view.rows[0]!.b!.label;
    assert.ok(label.length <= 300);
    // eslint-disable-next-line no-control-regex
    assert.doesNotMatch(label, /[\u0000-\u001f\u202e]/);
    assert.ok(hostToPanelSchema.safeParse(view).success);
  });
});
