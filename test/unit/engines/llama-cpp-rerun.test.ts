/**
 * Re-run from a step against llama.cpp's own `llama-server` (issue 34's proof): a run recorded
 * with the fake model server is re-run from its last model call with the local server swapped
 * in. The steps before come from the recording (the server never sees them as calls of their
 * own); from step 4 the real server answers — its chat template, its parsing, its stream — and
 * the comparison names step 4 as where the two runs part.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { LlamaServer } from '../../fixtures/llama-server/llama-server';
import { AFTER_TOOL, TRIGGERS } from '../../fixtures/llama-server/scenes';
import { openStore } from '../store/store-helpers';
import { cliArgs, runCli, tempFolder } from '../cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

describe('re-run from a step with a real llama.cpp server', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let llama: LlamaServer;
  let fake: FakeModelServer;

  before(async () => {
    [llama, fake] = await Promise.all([
      LlamaServer.start({ contextSize: 8192 }),
      FakeModelServer.start({
        scenario: {
          name: 'recorded',
          turns: [
            { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'README.md' } }] },
            { text: 'The recorded answer, from the fake model.' },
          ],
        },
      }),
    ]);
  });
  after(async () => {
    await Promise.all([llama?.stop(), fake?.close()]);
  });

  it('replays the steps before N, then the local server answers live; compare names step 4', async () => {
    const workspace = tempFolder('llama-rerun-ws');
    fs.writeFileSync(path.join(workspace, 'README.md'), '# Sample\n\nA sample project.\n');
    const store = tempFolder('llama-rerun-store');
    const home = tempFolder('llama-rerun-home');
    const recorded = await runCli([...cliArgs(fake, store), `please read the ${TRIGGERS.readReadme} file`], {
      cwd: workspace,
      home,
    });
    assert.equal(recorded.code, 0, recorded.stderr);
    const opened = await openStore(store);
    const id = (await opened.store.listConversations())[0]!.id;
    const steps = (await opened.store.recordings.getRecording(id))?.steps.map((step) => step.kind);
    await opened.store.close();
    assert.deepEqual(steps, ['prompt', 'model', 'tool', 'model']);

    const fakeCalls = fake.modelCalls.length;
    const ran = await runCli(
      ['replay', id, '--store', store, '--from', '4', '--provider', 'llamacpp', '--base-url', llama.baseUrl],
      { cwd: workspace, home },
    );
    assert.equal(ran.code, 0, ran.stderr + ran.stdout);
    assert.equal(fake.modelCalls.length, fakeCalls, 'the replayed steps called no model');
    // The real server saw the recorded tool result in its context and answered it.
    assert.ok(ran.stdout.includes(AFTER_TOOL), ran.stdout);
    assert.match(ran.stdout, /First divergence at step 4: the model answered differently/);
    const newId = /New conversation: (\S+)/.exec(ran.stdout)?.[1];
    assert.ok(newId);
    const compared = await runCli(['compare', id, newId, '--store', store, '--json'], { cwd: workspace, home });
    assert.equal(compared.code, 0, compared.stderr);
    const comparison = JSON.parse(compared.stdout) as { firstDivergence?: { step: number } };
    assert.equal(comparison.firstDivergence?.step, 4);
  });
});
