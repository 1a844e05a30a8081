/**
 * Approvals asked on the terminal (tmux): y writes the file, n keeps it unwritten and tells the
 * model why, a approves the rest of the session, and /approve-all does so before anything is asked.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { loadScenario } from '../../fixtures/fake-model-server/scenario';
import { cleanEnv, cliArgs, requestBody, tempFolder, textOf } from './cli-helpers';
import { TmuxCli } from './tmux-cli';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

const QUESTION = /Approve\? \[y\]es \/ \[n\]o \/ \[a\]lways this session: /;

describe('openagent CLI (approvals on the terminal)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer | undefined;
  let cli: TmuxCli | undefined;

  afterEach(async () => {
    cli?.kill();
    cli = undefined;
    await server?.close();
  });

  const start = async (scenario: string) => {
    server = await FakeModelServer.start({ scenario: loadScenario(scenario) });
    cli = TmuxCli.start({ args: cliArgs(server, tempFolder('store')), env: cleanEnv() });
    await cli.waitForPrompt(1);
    return { cli, server };
  };

  it('y approves the call: the file is written', async () => {
    const { cli } = await start('cli-write-file');
    cli.type('create the notes');
    // The question shows the tool, the path and what the new file holds.
    const asked = await cli.waitFor(QUESTION);
    assert.match(asked, /● write_file notes\.txt/);
    assert.match(
      asked,
      /\? write_file wants to write notes\.txt\n\s+notes\.txt \(new file, 1 line, 21 bytes\)\n\s+\+ hello from the agent/,
    );
    assert.ok(!fs.existsSync(path.join(cli.cwd, 'notes.txt')), 'nothing is written before the answer');
    cli.type('y');
    const screen = await cli.waitForPrompt(2);
    assert.match(screen, /✓ Created notes\.txt/);
    assert.match(screen, /Finished with notes\.txt\./);
    assert.equal(fs.readFileSync(path.join(cli.cwd, 'notes.txt'), 'utf8'), 'hello from the agent\n');
  });

  it('n denies the call: nothing is written and the model reads the denial with the reason', async () => {
    const { cli, server } = await start('cli-write-file');
    cli.type('create the notes');
    await cli.waitFor(QUESTION);
    cli.type('n');
    await cli.waitFor(/Reason for the agent \(optional, Enter to skip\): /);
    cli.type('not in this folder');
    const screen = await cli.waitForPrompt(2);
    assert.match(screen, /✗ denied: not in this folder/);
    assert.ok(!fs.existsSync(path.join(cli.cwd, 'notes.txt')));
    const toolResult = requestBody(server.modelCalls[1]).messages.find((message) => message.role === 'tool');
    assert.equal(textOf(toolResult!), 'User denied this tool call. Reason: not in this folder');
  });

  it('a approves this call and the rest of the session: the next call is not asked about', async () => {
    const { cli } = await start('cli-two-writes');
    cli.type('write two files');
    await cli.waitFor(QUESTION);
    cli.type('a');
    const screen = await cli.waitForPrompt(2);
    assert.match(screen, /Both files are written\./);
    assert.equal((screen.match(new RegExp(QUESTION.source, 'g')) ?? []).length, 1, screen);
    assert.match(screen, /● write_file b\.txt\n\s+\(auto-approved\)/);
    assert.equal(fs.readFileSync(path.join(cli.cwd, 'a.txt'), 'utf8'), 'a\n');
    assert.equal(fs.readFileSync(path.join(cli.cwd, 'b.txt'), 'utf8'), 'b\n');
  });

  it('/approve-all approves every call without asking', async () => {
    const { cli } = await start('cli-two-writes');
    cli.type('/approve-all');
    await cli.waitFor(/Every tool call is approved for the rest of this session/);
    cli.type('write two files');
    const screen = await cli.waitForPrompt(3);
    assert.match(screen, /Both files are written\./);
    assert.doesNotMatch(screen, QUESTION);
    assert.ok(fs.existsSync(path.join(cli.cwd, 'a.txt')) && fs.existsSync(path.join(cli.cwd, 'b.txt')));
  });
});
