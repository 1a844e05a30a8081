import assert from 'node:assert/strict';
import { loadRecording, prepareRecording } from '../../../../src/core/replay/loaded-recording';
import { normalizeEvents } from '../../../../src/core/replay/normalize-events';
import type { RunRecording, ToolStep } from '../../../../src/core/replay/recording';
import { replayRun } from '../../../../src/core/replay/replay-run';
import type { ToolPolicy } from '../../../../src/core/policy/approval';
import { PROTOCOLS, TEST_TOOLS } from '../agent/loop-harness';
import { recordScriptedRun, type ScriptedRecording } from './scripted-run';

function toolStep(recording: RunRecording, name: string, nth = 0): ToolStep {
  const steps = recording.steps.filter((step): step is ToolStep => step.kind === 'tool' && step.toolName === name);
  assert.ok(steps[nth], `a recorded ${name} step #${nth + 1}`);
  return steps[nth]!;
}

for (const protocol of PROTOCOLS) {
  describe(`replay with recorded tools (${protocol} wire format)`, () => {
    let run: ScriptedRecording;
    let recording: RunRecording;
    before(async function () {
      this.timeout(60_000);
      run = await recordScriptedRun(protocol);
      recording = await run.finish();
    });
    after(() => run?.server.close());

    it('records what the scripted run did: a retried call, a denial, a sub-agent, an interrupt', () => {
      const kinds = recording.steps.map((step) => step.kind);
      assert.ok(kinds.filter((kind) => kind === 'prompt').length === 3, kinds.join(','));
      assert.ok(kinds.includes('interrupt'));
      const failed = recording.steps.filter((step) => step.kind === 'model' && step.error?.kind === 'rate_limit');
      assert.equal(failed.length, 1);
      assert.equal(toolStep(recording, 'write_file', 1).decision?.approved, false);
      assert.ok(recording.steps.some((step) => step.kind === 'model' && step.agentId.startsWith('sub-')));
    });

    it('reproduces the same normalized events, and says so', async () => {
      const loaded = await loadRecording(run.store, recording.manifest.conversationId);
      const outcome = await replayRun(loaded, { currentTools: TEST_TOOLS, expectedEvents: run.events });
      assert.equal(outcome.divergence, undefined, JSON.stringify(outcome.divergence));
      assert.equal(outcome.reproduced, true);
      assert.equal(outcome.ended, 'complete');
      assert.equal(outcome.stepsReplayed, recording.steps.length);
      assert.deepEqual(normalizeEvents(outcome.events), normalizeEvents(run.events));
      // The world was not touched: the recorded write ran in the original only.
      const texts = normalizeEvents(outcome.events).filter((event) => event.type === 'text_delta');
      assert.match(String(texts.at(-1)?.text), /Skipped it/);
    });

    it('names the step of a changed tool result (against the original events), and the model call that reads it', async () => {
      const changed = structuredClone(recording);
      const read = toolStep(changed, 'read_file');
      read.result = run.store.put({ output: 'export const answer = 41;\n', isError: false });
      const loaded = await prepareRecording(changed, (ref) => run.store.getContent(ref));
      const withEvents = await replayRun(loaded, { currentTools: TEST_TOOLS, expectedEvents: run.events });
      assert.equal(withEvents.reproduced, false);
      assert.equal(withEvents.divergence?.step, read.step, JSON.stringify(withEvents.divergence));
      assert.match(withEvents.divergence!.what, /tool_result/);
      assert.match(withEvents.divergence!.actual, /41/);

      const alone = await replayRun(loaded, { currentTools: TEST_TOOLS });
      const next = changed.steps.find((step) => step.kind === 'model' && step.step > read.step)!;
      assert.equal(alone.divergence?.step, next.step, JSON.stringify(alone.divergence));
      assert.match(alone.divergence!.what, /request differs.*result of read_file call call_read/);
    });

    it('names the first model call when the system prompt changed', async () => {
      const loaded = await loadRecording(run.store, recording.manifest.conversationId);
      const outcome = await replayRun(loaded, { currentTools: TEST_TOOLS, system: 'You are a different agent.' });
      const first = recording.steps.find((step) => step.kind === 'model')!;
      assert.equal(outcome.divergence?.step, first.step);
      assert.match(outcome.divergence!.what, /system prompt/);
      assert.match(outcome.divergence!.expected, /test agent/);
      assert.match(outcome.divergence!.actual, /different agent/);
    });

    it('says "policy now asks" where a call that ran freely would be asked about now', async () => {
      const asksAll: ToolPolicy = { evaluate: () => ({ action: 'ask' }) };
      const loaded = await loadRecording(run.store, recording.manifest.conversationId);
      const outcome = await replayRun(loaded, { currentTools: TEST_TOOLS, policy: asksAll });
      assert.equal(outcome.divergence?.what, 'policy now asks');
      assert.equal(outcome.divergence?.step, toolStep(recording, 'read_file').step);
    });

    it('says "policy now allows" where a call asked about then runs without asking now', async () => {
      const allowsAll: ToolPolicy = { evaluate: () => ({ action: 'allow', source: 'policy' }) };
      const loaded = await loadRecording(run.store, recording.manifest.conversationId);
      const outcome = await replayRun(loaded, { currentTools: TEST_TOOLS, policy: allowsAll });
      assert.equal(outcome.divergence?.what, 'policy now allows');
      assert.equal(outcome.divergence?.step, toolStep(recording, 'write_file').step);
      assert.match(outcome.divergence!.expected, /asked.*allowed by user/);
    });

    it('stops at --until and counts that as reproduced so far', async () => {
      const loaded = await loadRecording(run.store, recording.manifest.conversationId);
      const denied = toolStep(recording, 'write_file', 1);
      const outcome = await replayRun(loaded, { currentTools: TEST_TOOLS }, { until: denied.step });
      assert.equal(outcome.reproduced, true, JSON.stringify(outcome.divergence));
      assert.equal(outcome.ended, 'until');
      assert.ok(outcome.stepsReplayed <= denied.step && outcome.stepsReplayed >= denied.step - 1);
      const results = outcome.events.filter((event) => event.type === 'tool_result');
      assert.ok(results.every((event) => event.type === 'tool_result' && event.toolCallId !== 'call_task'));
    });
  });
}
