import assert from 'node:assert/strict';
import { loadRecording } from '../../../../src/core/replay/loaded-recording';
import { replayRun } from '../../../../src/core/replay/replay-run';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { openStore, tempDir } from '../../store/store-helpers';
import { slowTool } from '../agent/loop-harness';
import { tempWorkspace } from '../session/fork-harness';
import { recordedSession, recordedRunScenario } from './recording-harness';
import { waitUntil } from '../../../harness/patience';

/**
 * The recorder and the replay together: a run recorded for real in a sql.js store (a retried
 * 500, an approved and a denied write, a sub-agent, a long file read, a Stop during a slow tool)
 * replays with recorded tools to the same events, step for step.
 */
describe('replay of a run recorded by the product itself', function () {
  this.timeout(120_000);
  it('reproduces every step of a real recording', async () => {
    const server = await FakeModelServer.start({ scenario: recordedRunScenario('a.txt') });
    const directory = tempDir();
    const root = tempWorkspace({ 'a.txt': 'hello\n'.repeat(3000) });
    const workspace = new NodeWorkspace(root);
    const opened = await openStore(directory);
    const tools = (tracked?: unknown) => [...createFileTools((tracked as NodeWorkspace) ?? workspace), slowTool];
    const recorded = recordedSession(server, opened.store, {
      workspace: () => workspace,
      workspaceRoot: () => root,
      tools,
      approvals: {
        request: async (request) =>
          JSON.stringify(request).includes('no.txt')
            ? { approved: false, source: 'user', reason: 'not that file' }
            : { approved: true, source: 'user' },
      },
    });
    await recorded.run('Read a.txt');
    const started = recorded.events.length;
    await recorded.session.submit('Now the slow part.');
    await waitUntil(
      () => recorded.events.slice(started).some((event) => event.type === 'tool_call'),
      'the slow tool to start',
    );
    recorded.session.stop();
    await waitUntil(() => recorded.events.slice(started).some((event) => event.type === 'interrupted'), 'the Stop');
    await recorded.session.flush();
    const loaded = await loadRecording(opened.store.recordings, 'c1');
    const outcome = await replayRun(loaded, { currentTools: tools(), expectedEvents: recorded.events });
    assert.equal(outcome.reproduced, true, JSON.stringify(outcome.divergence));
    assert.equal(outcome.ended, 'complete');
    assert.equal(outcome.stepsReplayed, outcome.lastStep, 'every recorded step was replayed');
    assert.ok(outcome.lastStep >= 14, `a dozen and more steps: ${outcome.lastStep}`);
    await server.close();
  });

  it('reproduces a run whose history was compacted on the way (the summary call included)', async () => {
    const server = await FakeModelServer.start({
      scenario: {
        name: 'compacted',
        turns: [
          { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'big.txt' } }] },
          { match: 'Summarise the conversation above', text: 'SUMMARY: the user had big.txt read.' },
          { text: 'Continuing from the summary.' },
        ],
      },
    });
    const directory = tempDir();
    const root = tempWorkspace({ 'big.txt': `${'x'.repeat(80)}\n`.repeat(60) });
    const workspace = new NodeWorkspace(root);
    const opened = await openStore(directory);
    const tools = () => createFileTools(workspace);
    const recorded = recordedSession(server, opened.store, {
      workspace: () => workspace,
      workspaceRoot: () => root,
      tools,
      readLimits: () => ({ maxToolOutputChars: 3_000, contextWindow: 1_000, compactThreshold: 0.7 }),
    });
    await recorded.run('Read big.txt');
    assert.ok(
      recorded.events.some((event) => event.type === 'compact' && event.kind === 'auto'),
      'the recorded run compacted',
    );
    const loaded = await loadRecording(opened.store.recordings, 'c1');
    const works = loaded.recording.steps.flatMap((step) => (step.kind === 'model' ? [step.work] : []));
    assert.ok(works.includes('compaction'), `a compaction call was recorded: ${works.join(', ')}`);
    const outcome = await replayRun(loaded, { currentTools: tools(), expectedEvents: recorded.events });
    assert.equal(outcome.reproduced, true, JSON.stringify(outcome.divergence));
    assert.equal(outcome.stepsReplayed, outcome.lastStep);
    assert.ok(
      outcome.events.some((event) => event.type === 'compact' && event.kind === 'auto'),
      'compacted again',
    );
    await server.close();
  });
});
