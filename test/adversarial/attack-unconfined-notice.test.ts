/**
 * Issue 32, class 8, second pass (an attacker's inputs): the CLI says exactly once that commands
 * are not confined in the modes the first tests did not drive — the prompt piped on stdin, the
 * interactive session with --yes and a prompt, several commands and a sub-turn, a broken
 * workspace policy beside it — and never in the answer on stdout.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { cliArgs, runCli, tempFolder } from '../unit/cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const NOTICE = /Commands are (not confined|refused)/g;

describe('adversarial: "not confined" is said exactly once in every mode (issue 32, class 8, attacker)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer;
  beforeEach(async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'three commands',
        turns: [
          { toolCalls: [{ id: 'b1', name: 'bash', arguments: { command: 'echo one' } }] },
          {
            toolCalls: [
              { id: 'b2', name: 'bash', arguments: { command: 'echo two' } },
              { id: 'b3', name: 'bash', arguments: { command: 'echo three' } },
            ],
          },
          { text: 'Ran them.' },
        ],
      },
    });
  });
  afterEach(() => server.close());

  it('the prompt piped on stdin with --yes: once on stderr, not in the answer', async () => {
    const ran = await runCli([...cliArgs(server, tempFolder('pipe-store')), '--sandbox', 'off', '--yes'], {
      cwd: tempFolder('pipe-ws'),
      input: 'run three commands\n',
    });
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(server.modelCalls.length, 3, 'the commands ran');
    assert.equal(ran.stderr.match(NOTICE)?.length, 1, ran.stderr);
    assert.doesNotMatch(ran.stdout, NOTICE);
  });

  it('the interactive session with --yes and a first prompt: once in all its output', async () => {
    const ran = await runCli(
      [...cliArgs(server, tempFolder('repl-store')), '--sandbox', 'off', '--yes', '-i', 'run three commands'],
      { cwd: tempFolder('repl-ws'), input: '' },
    );
    assert.equal(server.modelCalls.length, 3, ran.stdout + ran.stderr);
    assert.equal((ran.stdout + ran.stderr).match(NOTICE)?.length, 1, ran.stdout + ran.stderr);
  });

  it('a broken workspace policy beside it: the notice once, the policy problem once', async () => {
    const workspace = tempFolder('broken-ws');
    fs.mkdirSync(path.join(workspace, '.openagent'));
    fs.writeFileSync(path.join(workspace, '.openagent', 'agent.yaml'), 'a: &a [*a]\nsandbox: [\n');
    const ran = await runCli([...cliArgs(server, tempFolder('broken-store')), '--sandbox', 'off', '--yes', 'go'], {
      cwd: workspace,
    });
    assert.equal(ran.stderr.match(NOTICE)?.length, 1, ran.stderr);
    assert.equal(ran.stderr.match(/agent\.yaml/g)?.length, 1, ran.stderr);
    assert.doesNotMatch(ran.stdout, NOTICE);
  });
});
