/**
 * The CLI records every run for replay: the recording is in the store when the process has
 * exited, with the place's git commit, the product's version and the policy's hash.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { loadScenario } from '../../fixtures/fake-model-server/scenario';
import { openStore } from '../store/store-helpers';
import { cliArgs, runCli, tempFolder } from './cli-helpers';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

describe('openagent CLI: recording runs for replay', function () {
  this.timeout(TEST_TIMEOUT_MS);

  it('leaves a recording of the run in the store, with the commit it started from', async () => {
    const server = await FakeModelServer.start({ scenario: loadScenario('cli-write-file') });
    try {
      const workspace = tempFolder('ws');
      const git = (...args: string[]) =>
        execFileSync('git', args, {
          cwd: workspace,
          encoding: 'utf8',
          env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' },
        }).trim();
      git('init', '-q', '-b', 'main');
      fs.writeFileSync(path.join(workspace, 'README.md'), 'hello\n');
      git('add', '.');
      git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'start');
      const commit = git('rev-parse', 'HEAD');
      const storeFolder = tempFolder('store');
      const ran = await runCli([...cliArgs(server, storeFolder), '--yes', 'create the notes'], { cwd: workspace });
      assert.equal(ran.code, 0, ran.stderr);

      const { store } = await openStore(storeFolder);
      const [conversation] = await store.listConversations();
      const recording = await store.recordings.getRecording(conversation!.id);
      assert.ok(recording, 'recorded');
      assert.equal(recording.unfinished, undefined);
      assert.equal(recording.manifest.place.commit, commit);
      assert.equal(recording.manifest.place.branch, 'main');
      assert.equal(fs.realpathSync(recording.manifest.place.root), fs.realpathSync(workspace));
      assert.match(recording.manifest.product, /^\d+\.\d+\.\d+/);
      assert.match(recording.manifest.policy.hash, /^sha256:[0-9a-f]{64}$/);
      assert.deepEqual(
        recording.steps.map((step) => step.kind),
        ['prompt', 'model', 'tool', 'model'],
      );
      await store.close();
    } finally {
      await server.close();
    }
  });
});
