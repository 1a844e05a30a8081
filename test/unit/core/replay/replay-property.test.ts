/**
 * Property: whatever a run did — any mix of text, reads, writes approved or denied, failed calls
 * retried, sub-agents, in either wire format — replaying its recording with recorded tools
 * reproduces its normalized events, and the replay compares equal to the recording.
 */
import assert from 'node:assert/strict';
import { compareRuns } from '../../../../src/core/replay/compare-runs';
import { loadRecording } from '../../../../src/core/replay/loaded-recording';
import { normalizeEvents } from '../../../../src/core/replay/normalize-events';
import { replayRun } from '../../../../src/core/replay/replay-run';
import type { ScenarioTurnInput } from '../../../fixtures/fake-model-server/scenario';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { clientFor, PROTOCOLS, TEST_TOOLS } from '../agent/loop-harness';
import { recordedConversation } from './test-recorder';

/** A small seeded generator (mulberry32): the same seed, the same run. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'é', '日本', '🙂', 'a\nb', '"quoted"'];

function generate(seed: number): { turns: ScenarioTurnInput[]; approvals: boolean[]; prompts: string[] } {
  const next = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(next() * items.length)]!;
  const text = () => Array.from({ length: 1 + Math.floor(next() * 12) }, () => pick(WORDS)).join(' ');
  const turns: ScenarioTurnInput[] = [];
  const approvals: boolean[] = [];
  const prompts = Array.from({ length: 1 + Math.floor(next() * 2) }, text);
  let id = 0;
  for (const _prompt of prompts) {
    const working = Math.floor(next() * 4);
    for (let turn = 0; turn < working; turn++) {
      const calls = Array.from({ length: 1 + Math.floor(next() * 2) }, () => {
        id++;
        if (next() < 0.5)
          return { id: `r${id}`, name: 'read_file', arguments: { path: pick(['src/app.ts', 'missing.ts']) } };
        approvals.push(next() < 0.6);
        return { id: `w${id}`, name: 'write_file', arguments: { path: `f${id}.ts`, content: text() } };
      });
      const subagent = next() < 0.15;
      turns.push({
        ...(next() < 0.5 ? { text: text() } : {}),
        ...(next() < 0.2 ? { fault: { type: 'http_error' as const, status: pick([429, 503, 529]), times: 1 } } : {}),
        toolCalls: subagent
          ? [{ id: `t${++id}`, name: 'task', arguments: { kind: 'explore', description: 'look', prompt: text() } }]
          : calls,
        chunkSize: 1 + Math.floor(next() * 9),
        usage: { input: Math.floor(next() * 500), output: Math.floor(next() * 100) },
      });
      if (subagent) turns.push({ text: text(), usage: { input: 10, output: 5 } });
    }
    turns.push({ text: text(), chunkSize: 1 + Math.floor(next() * 9), usage: { input: 40, output: 9 } });
  }
  return { turns, approvals, prompts };
}

describe('replay with recorded tools, over generated runs', function () {
  this.timeout(180_000);
  for (let seed = 1; seed <= 24; seed++) {
    const protocol = PROTOCOLS[seed % 2]!;
    it(`reproduces generated run #${seed} (${protocol})`, async () => {
      const { turns, approvals, prompts } = generate(seed);
      const server = await FakeModelServer.start({ scenario: { name: `generated-${seed}`, turns } });
      try {
        let now = 1_000;
        let asked = 0;
        const run = recordedConversation({
          id: `generated-${seed}`,
          model: { llm: clientFor(protocol, server), model: 'fake-model' },
          system: `Generated system prompt ${seed}.`,
          clock: { now: () => now++ },
          tools: TEST_TOOLS,
          approvals: {
            request: async () =>
              approvals[asked++]
                ? { approved: true, source: 'user' }
                : { approved: false, source: 'user', reason: 'generated no' },
          },
          retry: { maxRetries: 2, sleep: () => Promise.resolve() },
        });
        for (const prompt of prompts) await run.conversation.submit(prompt);
        const recording = await run.finish();
        const loaded = await loadRecording(run.store, recording.manifest.conversationId);
        const outcome = await replayRun(loaded, { currentTools: TEST_TOOLS, expectedEvents: run.events });
        assert.equal(outcome.reproduced, true, JSON.stringify(outcome.divergence));
        assert.deepEqual(normalizeEvents(outcome.events), normalizeEvents(run.events));
        assert.equal(outcome.stepsReplayed, recording.steps.length);
        const itself = compareRuns(loaded, loaded);
        assert.equal(itself.firstDivergence, undefined);
      } finally {
        await server.close();
      }
    });
  }
});
