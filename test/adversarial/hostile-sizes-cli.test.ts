/**
 * Class 6 (hostile sizes) end to end through the CLI and its store (issues 15 and 16): a server
 * streaming a 12 MB tool argument. Refused with a clear error, kept nowhere, the turn goes on.
 */
import assert from 'node:assert/strict';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { filesUnder } from '../fixtures/files-under';
import { cliArgs, runCli, tempFolder } from '../unit/cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../harness/patience';
describe('adversarial: a 12 MB tool argument through the CLI', function () {
  this.timeout(TEST_TIMEOUT_MS);

  it('is refused with a clear error, the turn goes on, and the store stays small', async () => {
    const server = await FakeModelServer.start({
      scenario: {
        name: 'huge-argument',
        turns: [
          {
            toolCalls: [
              { id: 'call_huge', name: 'write_file', arguments: { path: 'big.txt', content: 'x'.repeat(12_000_000) } },
            ],
            chunkSize: 1_000_000,
          },
          { text: 'Recovered.' },
        ],
      },
    });
    try {
      const store = tempFolder('huge-store');
      const workspace = tempFolder('huge-ws');
      const ran = await runCli([...cliArgs(server, store), '--yes', 'write it'], { cwd: workspace, env: {} });
      assert.equal(ran.code, 0, ran.stderr);
      assert.match(ran.stdout + ran.stderr, /Recovered\./);
      const size = filesUnder(store).length;
      assert.ok(size < 2_000_000, `the store holds ${size} bytes`);
      const second = server.modelCalls[1];
      assert.ok(JSON.stringify(second?.body).length < 200_000, 'the next request does not carry the argument');
    } finally {
      await server.close();
    }
  });
});
