/**
 * Hostile recordings: a step out of range, content missing, a run that never finished, a format
 * from the future, values huge or nested deeper than the stack, tool names that shadow built-ins
 * or are hostile strings, junk. Each gets a clear refusal or a divergence — never a crash, a hang,
 * or a control character reaching the terminal.
 */
import assert from 'node:assert/strict';
import { compareRuns } from '../../src/core/replay/compare-runs';
import { prepareRecording, RecordingProblem, type LoadedRecording } from '../../src/core/replay/loaded-recording';
import type { ModelStep, RunRecording, ToolStep } from '../../src/core/replay/recording';
import { renderComparison, renderReplay } from '../../src/core/replay/replay-report';
import { replayRun } from '../../src/core/replay/replay-run';
import { TEST_TOOLS } from '../unit/core/agent/loop-harness';
import { recordScriptedRun, type ScriptedRecording } from '../unit/core/replay/scripted-run';
import { refOf } from '../unit/core/replay/test-recorder';

describe('adversarial: hostile recordings', function () {
  this.timeout(120_000);
  let run: ScriptedRecording;
  let recording: RunRecording;
  const prepare = (changed: unknown) => prepareRecording(changed, (ref) => run.store.content.get(ref));
  const refusal = async (changed: unknown, pattern: RegExp) => {
    await assert.rejects(prepare(changed), (error: unknown) => {
      assert.ok(error instanceof RecordingProblem, String(error));
      assert.match(error.message, pattern);
      return true;
    });
  };
  /** Keeps a value in the store without a JSON round trip (which could not write it). */
  const keep = (value: unknown) => {
    const ref = refOf(value);
    run.store.content.set(ref, value);
    return ref;
  };

  before(async () => {
    run = await recordScriptedRun('openai');
    recording = await run.finish();
  });
  after(() => run?.server.close());

  it('refuses a step out of range by naming the range', async () => {
    const loaded = await prepare(recording);
    const last = recording.steps.at(-1)!.step;
    for (const until of [0, -1, last + 1, 1e12, Number.NaN, 2.5, Number.POSITIVE_INFINITY])
      await assert.rejects(replayRun(loaded, { currentTools: TEST_TOOLS }, { until }), (error: unknown) => {
        assert.ok(error instanceof RecordingProblem);
        assert.match(error.message, new RegExp(`out of range: this recording has steps 1 to ${last}\\.`));
        return true;
      });
    const empty = await prepare({ ...recording, steps: [] });
    await assert.rejects(replayRun(empty, {}, { until: 1 }), /no steps to replay/);
  });

  it('refuses a recording that lacks content, naming the step and what is missing', async () => {
    const changed = structuredClone(recording);
    const model = changed.steps.find((step): step is ModelStep => step.kind === 'model')!;
    model.answer = `sha256:${'0'.repeat(64)}`;
    const tool = changed.steps.find((step): step is ToolStep => step.kind === 'tool')!;
    tool.result = `sha256:${'1'.repeat(64)}`;
    await refusal(
      changed,
      new RegExp(`lacks 2 pieces of content: step ${model.step}'s answer .*step ${tool.step}'s tool result`),
    );
    // A store that throws is as good as a missing piece, not a crash.
    await assert.rejects(
      prepareRecording(recording, () => {
        throw new Error('disk gone');
      }),
      /lacks \d+ pieces of content/,
    );
  });

  it('replays a run that never finished up to where it was recorded', async () => {
    const changed = structuredClone(recording);
    const cut = changed.steps.findIndex((step) => step.kind === 'tool' && step.toolName === 'write_file');
    const truncated = { ...changed, steps: changed.steps.slice(0, cut), unfinished: true };
    const outcome = await replayRun(await prepare(truncated), { currentTools: TEST_TOOLS });
    assert.equal(outcome.reproduced, true, JSON.stringify(outcome.divergence));
    assert.equal(outcome.ended, 'truncated');
    assert.match(renderReplay('conv', outcome), /as far as it was recorded .*never finished/);
    // The same steps without the mark: the run asked for more than the recording has.
    const cutShort = await replayRun(await prepare({ ...truncated, unfinished: undefined }), {
      currentTools: TEST_TOOLS,
    });
    assert.equal(cutShort.reproduced, false);
  });

  it('refuses a recording from a future format by naming the version', async () => {
    await refusal(
      { ...recording, manifest: { ...recording.manifest, format: 7 } },
      /format 7, made by a newer OpenAgent; this one reads format 1 only/,
    );
    await refusal(
      { ...recording, manifest: { ...recording.manifest, format: '1' } },
      /not a recording OpenAgent can read: its format is "1"/,
    );
    await refusal({ ...recording, manifest: undefined }, /format is missing/);
  });

  it('refuses junk and damaged steps with the place of the damage', async () => {
    for (const junk of [null, 42, 'recording', [], { manifest: {} }]) await refusal(junk, /not a recording|damaged/);
    const swapped = structuredClone(recording);
    [swapped.steps[1], swapped.steps[2]] = [swapped.steps[2]!, swapped.steps[1]!];
    await refusal(swapped, /comes after step/);
    await refusal(
      { ...recording, steps: [...recording.steps, { kind: 'teleport', step: 999 }] },
      /damaged at its step #\d+/,
    );
    const badAnswer = structuredClone(recording);
    (badAnswer.steps.find((step) => step.kind === 'model') as ModelStep).answer = keep({ parts: [{ type: 'x' }] });
    await refusal(badAnswer, /step \d+'s answer parts/);
  });

  it('survives values nested deeper than the stack and results of many megabytes', async () => {
    let deep: unknown = 'bottom';
    for (let level = 0; level < 200_000; level++) deep = { next: deep };
    const changed = structuredClone(recording);
    const first = changed.steps.find((step): step is ModelStep => step.kind === 'model' && !step.error)!;
    const parts = structuredClone((run.store.content.get(first.answer) as { parts: unknown[] }).parts);
    const call = parts.find((part) => (part as { type: string }).type === 'tool_call') as { input: unknown };
    call.input = deep;
    first.answer = keep({ parts });
    const read = changed.steps.find((step): step is ToolStep => step.kind === 'tool' && step.toolName === 'read_file')!;
    read.input = keep(deep);
    const write = changed.steps.find(
      (step): step is ToolStep => step.kind === 'tool' && step.toolName === 'write_file',
    )!;
    write.result = keep({ output: 'x'.repeat(20_000_000), isError: false });
    const loaded = await prepare(changed);
    const outcome = await replayRun(loaded, { currentTools: TEST_TOOLS });
    // The deep call is refused by the loop (as it was not then): a divergence, said in a short line.
    assert.equal(outcome.reproduced, false);
    assert.ok(outcome.divergence!.expected.length < 1_000 && outcome.divergence!.actual.length < 1_000);
    const comparison = compareRuns(await prepare(recording), loaded);
    assert.ok(comparison.firstDivergence);
    const table = renderComparison(comparison);
    assert.ok(table.length < 100_000, `a table of ${table.length} characters`);
  });

  it('keeps built-ins its own and leaves out hostile tool names, showing them harmlessly', async () => {
    const hostile = ['../../etc/passwd', '__proto__', 'a'.repeat(500), '\u001b[31mred\u001b[0m', 'read_file', ''];
    const changed = structuredClone(recording);
    const schema = keep({ type: 'object', properties: { evil: { type: 'string' } } });
    changed.manifest.tools = [
      ...changed.manifest.tools,
      { name: 'think', schema },
      ...hostile.map((name) => ({ name, schema })),
    ];
    const loaded: LoadedRecording = await prepare(changed);
    const outcome = await replayRun(loaded, { currentTools: TEST_TOOLS });
    assert.equal(outcome.reproduced, true, JSON.stringify(outcome.divergence));
    const warnings = outcome.warnings.join('\n');
    assert.equal(outcome.warnings.length, 7, warnings);
    assert.match(warnings, /read_file: listed twice/);
    assert.match(warnings, /think: listed twice/);
    assert.match(warnings, /"__proto__": no recorded request offered it/);
    assert.match(warnings, /"\.\.\/\.\.\/etc\/passwd": no recorded request offered it/);
    const printed = renderReplay('conv\u001b]0;pwned\u0007', outcome);
    // eslint-disable-next-line no-control-regex
    assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f]/.test(printed), JSON.stringify(printed));
    // A recorded call of a tool the replay cannot offer is a divergence, not a crash.
    const calling = structuredClone(changed);
    const read = calling.steps.find((step): step is ToolStep => step.kind === 'tool' && step.toolName === 'read_file')!;
    read.toolName = '__proto__';
    const first = calling.steps.find((step): step is ModelStep => step.kind === 'model' && !step.error)!;
    const parts = structuredClone(
      (run.store.content.get(first.answer) as { parts: Array<{ type: string; name?: string }> }).parts,
    );
    for (const part of parts) if (part.name === 'read_file') part.name = '__proto__';
    first.answer = keep({ parts });
    const diverged = await replayRun(await prepare(calling), { currentTools: TEST_TOOLS });
    assert.equal(diverged.reproduced, false);
    assert.equal(diverged.divergence?.step, read.step, JSON.stringify(diverged.divergence));
    assert.match(diverged.divergence!.actual, /There is no tool named/);
  });
});
