/**
 * Class 4 of the adversarial suite (part): a server that echoes the key it was sent in an
 * error body. The CLI prints the error, the store keeps it: the key must be in neither.
 */
import assert from 'node:assert/strict';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { filesUnder } from '../fixtures/files-under';
import { cliArgs, runCli, tempFolder } from '../unit/cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../harness/patience';

/** A key no key-shape pattern would catch: only knowing it is in use can hide it. */
const KEY = 'house-key-3f9c2a7b61d04e58';

describe('adversarial: a server echoing the key in its error', function () {
  this.timeout(TEST_TIMEOUT_MS);

  for (const status of [400, 401, 422, 500]) {
    it(`${status}: the CLI shows the error without the key, and the store does not keep it`, async () => {
      const server = await FakeModelServer.start({
        scenario: {
          name: 'echo-key',
          turns: [
            {
              text: 'never',
              fault: {
                type: 'http_error',
                status,
                message: `invalid request; you sent Authorization: ${KEY}`,
                times: 10,
              },
            },
          ],
        },
      });
      try {
        const store = tempFolder('secret-store');
        const ran = await runCli([...cliArgs(server, store), 'hi'], {
          cwd: tempFolder('secret-ws'),
          env: { OPENAI_API_KEY: KEY },
        });
        assert.equal(ran.code, 1);
        assert.match(ran.stderr, /error: /);
        assert.ok(!ran.stderr.includes(KEY) && !ran.stdout.includes(KEY), ran.stderr);
        if (status !== 401) assert.match(ran.stderr, /\[REDACTED\]/);
        assert.ok(!filesUnder(store).includes(KEY), 'the store keeps no copy of the key');
      } finally {
        await server.close();
      }
    });
  }
});
