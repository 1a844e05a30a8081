import assert from 'node:assert/strict';
import { replayRun } from '../../../../src/core/replay/replay-run';
import { recordTeamRun } from './team-recording-harness';

/**
 * A run that used a team, recorded by the product itself, replays with recorded tools: the
 * team runs for real (teammates' loops, inboxes), each teammate's model calls and file reads
 * are answered from its recorded steps, and every agent's events come out as they were.
 */
describe('replay of a run that used a team', function () {
  this.timeout(240_000);

  for (const shape of ['inbox', 'pair'] as const) {
    it(`reproduces every step: ${shape === 'inbox' ? 'the lead waits on read_inbox for its teammate' : 'two teammates report to the next prompt'}`, async () => {
      const run = await recordTeamRun(shape);
      const teammates = shape === 'inbox' ? ['alice'] : ['alice', 'bob'];
      const steps = run.loaded.recording.steps;
      for (const name of teammates) {
        const own = steps.filter((step) => (step.kind === 'model' || step.kind === 'tool') && step.agentId === name);
        assert.deepEqual(
          own.map((step) => (step.kind === 'tool' ? step.toolName : 'model')),
          ['model', 'read_file', 'model', 'send_message', 'model'],
          `${name}'s recorded steps`,
        );
      }
      assert.equal(run.teammateCalls, 3 * teammates.length);

      const outcome = await replayRun(run.loaded, { currentTools: run.tools(), expectedEvents: run.events });
      assert.equal(outcome.reproduced, true, JSON.stringify(outcome.divergence));
      assert.equal(outcome.ended, 'complete');
      assert.equal(outcome.stepsReplayed, steps.length, 'every recorded step was replayed');
      for (const name of teammates)
        assert.ok(
          outcome.events.some(
            (event) =>
              event.type === 'tool_result' &&
              event.agentId === name &&
              event.toolName === 'read_file' &&
              /hello from/.test(event.output),
          ),
          `${name}'s recorded read came back`,
        );
      const answer = outcome.events
        .filter((event) => event.type === 'text_delta' && event.agentId === 'lead')
        .map((event) => (event.type === 'text_delta' ? event.text : ''))
        .join('');
      assert.match(answer, shape === 'inbox' ? /Alice reported/ : /Both files say hello/);
    });
  }

  it('stops at --until in the middle of the teammates’ work, without a finding', async () => {
    const run = await recordTeamRun('pair');
    const send = run.loaded.recording.steps.find((step) => step.kind === 'tool' && step.toolName === 'send_message')!;
    const outcome = await replayRun(
      run.loaded,
      { currentTools: run.tools(), expectedEvents: run.events },
      { until: send.step },
    );
    assert.equal(outcome.reproduced, true, JSON.stringify(outcome.divergence));
    assert.equal(outcome.ended, 'until');
    assert.ok(outcome.stepsReplayed <= send.step, `${outcome.stepsReplayed} steps up to step ${send.step}`);
  });
});
