/**
 * Hostile team recordings: a real team run (the lead and two teammates) with a teammate's steps
 * removed, reordered, or timed so that the agents would wait on each other for ever. Each replay
 * ends with a clear divergence naming the agent — never a hang, never "reproduced".
 */
import assert from 'node:assert/strict';
import { prepareRecording } from '../../src/core/replay/loaded-recording';
import type { ModelStep, RecordedStep, RunRecording, ToolStep } from '../../src/core/replay/recording';
import { replayRun } from '../../src/core/replay/replay-run';
import { recordTeamRun, type RecordedTeamRun } from '../unit/core/replay/team-recording-harness';

describe('adversarial: hostile team recordings', function () {
  this.timeout(240_000);
  let run: RecordedTeamRun;
  let recording: RunRecording;

  before(async () => {
    run = await recordTeamRun('pair');
    recording = run.loaded.recording;
  });

  const replay = async (steps: RecordedStep[]) => {
    const changed = { ...structuredClone(recording), steps };
    const loaded = await prepareRecording(changed, (ref) => run.loaded.content(ref));
    return replayRun(loaded, { currentTools: run.tools(), expectedEvents: run.events });
  };
  const of = (agentId: string) => (step: RecordedStep) =>
    (step.kind === 'prompt' ? step.agentId : step.kind === 'interrupt' ? undefined : step.agentId) === agentId;

  it('the faithful copy reproduces (the cases below fail for their change alone)', async () => {
    const outcome = await replay(structuredClone(recording.steps));
    assert.equal(outcome.reproduced, true, JSON.stringify(outcome.divergence));
  });

  it('a teammate whose steps were removed: a divergence at its first model call', async () => {
    const outcome = await replay(structuredClone(recording.steps).filter((step) => !of('bob')(step)));
    assert.equal(outcome.reproduced, false);
    assert.equal(outcome.ended, 'divergence');
    assert.equal(outcome.divergence?.agentId, 'bob', JSON.stringify(outcome.divergence));
    assert.match(
      outcome.divergence!.what,
      /model call the recording does not have|given work the recording does not have/,
    );
  });

  it('a teammate whose model calls were swapped: a divergence named for that teammate', async () => {
    const steps = structuredClone(recording.steps);
    const [first, second] = steps.filter(
      (step): step is ModelStep => step.kind === 'model' && step.agentId === 'alice',
    );
    [first!.step, second!.step] = [second!.step, first!.step];
    steps.sort((a, b) => a.step - b.step);
    const outcome = await replay(steps);
    assert.equal(outcome.reproduced, false);
    assert.equal(outcome.divergence?.agentId, 'alice', JSON.stringify(outcome.divergence));
    // Its first call now carries the second's request and timing: one of the two shows first.
    assert.match(outcome.divergence!.what, /model request differs|waits for a step of another agent/);
  });

  it('timings that make the lead and a teammate wait on each other: a divergence, not a hang', async () => {
    const steps = structuredClone(recording.steps);
    const lead = steps.filter((step): step is ModelStep => step.kind === 'model' && step.agentId === 'lead')[1]!;
    const alice = steps.filter((step): step is ModelStep | ToolStep => of('alice')(step) && step.kind !== 'prompt');
    const send = alice.find((step) => step.kind === 'tool' && step.toolName === 'send_message')!;
    const last = alice.at(-1)!;
    // Alice's last call "ended before" the lead's second call, and her message "after" it began:
    // the lead waits for her last call, which comes after her message, which waits for the lead.
    last.startedAt = lead.startedAt - 3;
    last.durationMs = 1;
    send.durationMs = lead.startedAt + 5 - send.startedAt;
    const started = Date.now();
    const outcome = await replay(steps);
    assert.equal(outcome.reproduced, false);
    assert.equal(outcome.ended, 'divergence');
    assert.match(
      outcome.divergence!.what,
      /waits for a step of another agent that never came/,
      JSON.stringify(outcome.divergence),
    );
    assert.match(outcome.divergence!.expected, /of (alice|lead)/);
    assert.ok(Date.now() - started < 120_000, 'ended long before any wait in the run would have');
  });
});
