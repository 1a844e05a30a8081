/**
 * Replay with recorded tools (issue 34): a 200-step run — 100 model calls each reading a file,
 * then an answer — recorded for real against the fake model server, then replayed from its
 * recording (models and tools answered from it; policy, hooks and the loop for real).
 */
import { performance } from 'node:perf_hooks';
import { loadRecording } from '../../src/core/replay/loaded-recording';
import { replayRun } from '../../src/core/replay/replay-run';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { clientFor, readCall, TEST_TOOLS } from '../unit/core/agent/loop-harness';
import { recordedConversation } from '../unit/core/replay/test-recorder';

export interface ReplayMeasurement {
  steps: number;
  recordMs: number;
  /** Median of the rounds, loading included. */
  replayMs: number;
  rounds: number[];
  reproduced: boolean;
}

export async function measureReplay(toolCalls = 100, rounds = 3): Promise<ReplayMeasurement> {
  const turns = [
    ...Array.from({ length: toolCalls }, (_unused, index) => ({
      text: `Reading it again (${index}).`,
      toolCalls: [{ ...readCall, id: `call_${index}` }],
      usage: { input: 100 + index, output: 10 },
    })),
    { text: 'Done.', usage: { input: 400, output: 2 } },
  ];
  const server = await FakeModelServer.start({ scenario: { name: 'replay-bench', turns } });
  try {
    let now = 1_000;
    const run = recordedConversation({
      id: 'replay-bench',
      model: { llm: clientFor('openai', server), model: 'fake-model' },
      system: 'You are a benchmark agent.',
      clock: { now: () => now++ },
      tools: TEST_TOOLS,
      limits: { maxTurns: toolCalls + 10 },
    });
    const started = performance.now();
    await run.conversation.submit('Read src/app.ts again and again.');
    const recordMs = performance.now() - started;
    const recording = await run.finish();
    const times: number[] = [];
    let reproduced = true;
    for (let round = 0; round < rounds; round++) {
      const begin = performance.now();
      const loaded = await loadRecording(run.store, recording.manifest.conversationId);
      const outcome = await replayRun(loaded, { currentTools: TEST_TOOLS, expectedEvents: run.events });
      times.push(performance.now() - begin);
      reproduced &&= outcome.reproduced;
    }
    const sorted = [...times].sort((a, b) => a - b);
    return {
      steps: recording.steps.length,
      recordMs,
      replayMs: sorted[Math.floor(sorted.length / 2)]!,
      rounds: times,
      reproduced,
    };
  } finally {
    await server.close();
  }
}
