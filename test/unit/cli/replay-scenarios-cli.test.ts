/**
 * Property (issue 34): every scenario the CLI and editor tests script (test/fixtures/scenarios),
 * run through the real `openagent` CLI in either wire format and recorded by the product's own
 * recorder, replays with recorded tools to the same events: `openagent replay ID --json` says
 * reproduced, step for step. Waits the scenarios put between deltas are left out (a replay
 * compares events, not their timing); approvals are given (`--yes`), and runs with denials,
 * sub-agents, retries and interrupts are the generated runs' property (core/replay).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import type { ScenarioInput } from '../../fixtures/fake-model-server/scenario';
import { TEST_TIMEOUT_MS } from '../../harness/patience';
import { openStore } from '../store/store-helpers';
import { runCli, tempFolder } from './cli-helpers';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const SCENARIOS = path.join(ROOT, 'test', 'fixtures', 'scenarios');
const WORKSPACES = path.join(ROOT, 'test', 'fixtures', 'workspaces');

/** The scenario as its tests script it, without the waits between deltas. */
function scenario(file: string): ScenarioInput & { turns: Array<Record<string, unknown>> } {
  const value = JSON.parse(fs.readFileSync(path.join(SCENARIOS, file), 'utf8')) as ScenarioInput & {
    turns: Array<Record<string, unknown>>;
  };
  for (const turn of value.turns) delete turn.delayMs;
  return value;
}

const WIRES = [
  {
    name: 'openai',
    args: (server: FakeModelServer) => ['--provider', 'openai-compatible', '--base-url', server.openAiBaseUrl],
    env: {},
  },
  {
    name: 'anthropic',
    args: (server: FakeModelServer) => ['--provider', 'anthropic', '--base-url', server.anthropicBaseUrl],
    env: { ANTHROPIC_API_KEY: 'sk-ant-Vq3hT9wZ2kLr8Xp4Nm6B' },
  },
] as const;

describe('every scripted scenario, recorded by the CLI, replays to the same events', function () {
  this.timeout(TEST_TIMEOUT_MS * 2);
  const files = fs.readdirSync(SCENARIOS).filter((name) => name.endsWith('.json'));

  it('has scenarios to replay', () => assert.ok(files.length >= 10, files.join(', ')));

  for (const file of files)
    for (const wire of WIRES)
      it(`${file.replace(/\.json$/, '')} (${wire.name})`, async () => {
        const script = scenario(file);
        const server = await FakeModelServer.start({ scenario: script });
        try {
          const workspace = tempFolder('scenario-ws');
          const sample = file === 'fix-failing-test.json' ? 'failing-test' : 'sample';
          fs.cpSync(path.join(WORKSPACES, sample), workspace, { recursive: true });
          const store = tempFolder('scenario-store');
          const home = tempFolder('scenario-home');
          const prompt = typeof script.turns[0]?.match === 'string' ? `${script.turns[0].match}, please` : 'go on';
          const args = ['--store', store, ...wire.args(server), '--model', 'fake-model'];
          const ran = await runCli([...args, '--yes', prompt], { cwd: workspace, home, env: { ...wire.env } });
          assert.equal(ran.code, 0, ran.stderr);
          const opened = await openStore(store);
          const id = (await opened.store.listConversations())[0]?.id;
          const steps = id ? (await opened.store.recordings.getRecording(id))?.steps.length : undefined;
          await opened.store.close();
          assert.ok(id && steps && steps >= 2, `a recorded run (${steps ?? 0} steps)`);
          const calls = server.modelCalls.length;
          const replayed = await runCli(['replay', id, '--store', store, '--json'], {
            cwd: workspace,
            home,
            env: { ...wire.env },
          });
          assert.equal(replayed.code, 0, replayed.stderr + replayed.stdout);
          const outcome = JSON.parse(replayed.stdout) as { reproduced: boolean; stepsReplayed: number };
          assert.equal(outcome.reproduced, true, replayed.stdout);
          assert.equal(outcome.stepsReplayed, steps, 'every recorded step replayed');
          assert.equal(server.modelCalls.length, calls, 'the replay called no model');
        } finally {
          await server.close();
        }
      });
});
