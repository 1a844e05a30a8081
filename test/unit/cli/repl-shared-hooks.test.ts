/**
 * A repository's hook (`.claude/settings.json`) asked about on the terminal (tmux): "y" lets it
 * run — its exit 2 blocks the write and the model reads why; "n" keeps it from running, and the
 * write goes on to the usual approval.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { loadScenario } from '../../fixtures/fake-model-server/scenario';
import { cleanEnv, cliArgs, requestBody, tempFolder, textOf } from './cli-helpers';
import { TmuxCli } from './tmux-cli';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

const HOOK_QUESTION =
  /Allow hook .* to run\? It is code from the repository; it runs only in the sandbox\. \[y\]es \/ \[n\]o: /;
const APPROVAL_QUESTION = /Approve\? \[y\]es \/ \[n\]o \/ \[a\]lways this session: /;

describe('openagent CLI (a repository’s hooks asked about on the terminal)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer | undefined;
  let cli: TmuxCli | undefined;

  afterEach(async () => {
    cli?.kill();
    cli = undefined;
    await server?.close();
  });

  const start = async () => {
    server = await FakeModelServer.start({ scenario: loadScenario('cli-write-file') });
    const workspace = tempFolder('hooked-workspace');
    fs.mkdirSync(path.join(workspace, '.claude'));
    fs.writeFileSync(
      path.join(workspace, '.claude', 'settings.json'),
      JSON.stringify({
        hooks: {
          PreToolUse: [
            {
              matcher: 'Write',
              hooks: [{ type: 'command', command: "cat >/dev/null; echo 'HOOK_SAYS_NOT_HERE' >&2; exit 2" }],
            },
          ],
        },
      }),
    );
    cli = TmuxCli.start({ args: cliArgs(server, tempFolder('store')), env: cleanEnv(), cwd: workspace });
    await cli.waitForPrompt(1);
    return { cli, server };
  };

  it('y lets the hook run: its exit 2 blocks the write, and the model reads its message', async () => {
    const { cli, server } = await start();
    cli.type('create the notes');
    await cli.waitFor(HOOK_QUESTION);
    cli.type('y');
    await cli.waitForPrompt(2);
    assert.ok(!fs.existsSync(path.join(cli.cwd, 'notes.txt')), 'the hook blocked the write');
    const toolResult = requestBody(server.modelCalls[1]).messages.find((message) => message.role === 'tool');
    assert.match(textOf(toolResult!), /HOOK_SAYS_NOT_HERE/);
  });

  it('n keeps the hook from running: the write is asked about as usual, and happens once approved', async () => {
    const { cli, server } = await start();
    cli.type('create the notes');
    await cli.waitFor(HOOK_QUESTION);
    cli.type('n');
    await cli.waitFor(APPROVAL_QUESTION);
    cli.type('y');
    await cli.waitForPrompt(2);
    assert.equal(fs.readFileSync(path.join(cli.cwd, 'notes.txt'), 'utf8'), 'hello from the agent\n');
    const toolResult = requestBody(server.modelCalls[1]).messages.find((message) => message.role === 'tool');
    assert.doesNotMatch(textOf(toolResult!), /HOOK_SAYS_NOT_HERE/);
  });
});
