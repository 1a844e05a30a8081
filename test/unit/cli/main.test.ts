import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import * as path from 'node:path';
import { promisify } from 'node:util';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { openStore, tempDir } from '../store/store-helpers';
import { loadScenario } from '../../fixtures/fake-model-server/scenario';
import { cliArgs } from './cli-helpers';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

const run = promisify(execFile);
const cli = path.resolve(__dirname, '..', '..', '..', 'src', 'cli', 'main.ts');
const tsx = path.resolve(__dirname, '..', '..', '..', 'node_modules', '.bin', 'tsx');

describe('openagent CLI (one-shot)', function () {
  // Each test starts the CLI from source through tsx: many seconds on a loaded machine.
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer;
  beforeEach(async () => {
    server = await FakeModelServer.start({ scenario: loadScenario('hello') });
  });
  afterEach(() => server.close());

  it('streams the answer to stdout and keeps the conversation in its store', async () => {
    const storeDirectory = tempDir();
    const { stdout } = await run(tsx, [cli, ...cliArgs(server, storeDirectory), 'hello'], {
      env: { ...process.env, OPENAI_API_KEY: '' },
    });
    assert.match(stdout, /Hello from the \*\*fake model\*\*!/);
    // The same store format the extension uses.
    const { store } = await openStore(storeDirectory);
    const [conversation] = await store.listConversations();
    assert.equal(conversation?.title, 'hello');
    assert.match(JSON.stringify(await store.listMessages(conversation!.id)), /Hello from the/);
    await store.close();
  });

  it('exits 1 with an explanation when no key is configured', async () => {
    await assert.rejects(
      run(tsx, [cli, '--provider', 'anthropic', '--store', tempDir(), 'hello'], {
        env: { ...process.env, ANTHROPIC_API_KEY: '', OPENAGENT_API_KEY: '' },
      }),
      (error: { code: number; stderr: string }) => {
        assert.equal(error.code, 1);
        assert.match(error.stderr, /ANTHROPIC_API_KEY/);
        return true;
      },
    );
  });
});
