/**
 * One-shot mode without a terminal (stdin a pipe, as in scripts and CI): tool calls that need
 * approval are denied with a clear message unless --yes; bad flags and unreachable servers are
 * explained with an exit code; a piped-in text is the prompt.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { loadScenario } from '../../fixtures/fake-model-server/scenario';
import { cliArgs, offeredTools, requestBody, runCli, tempFolder, textOf } from './cli-helpers';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

describe('openagent CLI (one-shot, no terminal)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer;

  beforeEach(async () => {
    server = await FakeModelServer.start({ scenario: loadScenario('cli-write-file') });
  });
  afterEach(() => server.close());

  it('denies a writing tool call when nobody can be asked, says how to allow it, and tells the model', async () => {
    const workspace = tempFolder('ws');
    const ran = await runCli([...cliArgs(server, tempFolder('store')), 'create the notes'], { cwd: workspace });
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(
      ran.stderr,
      /openagent: denied write_file \(Write notes\.txt\): stdin is not a terminal.*Run with --yes/,
    );
    assert.ok(!fs.existsSync(path.join(workspace, 'notes.txt')));
    const toolResult = requestBody(server.modelCalls[1]).messages.find((message) => message.role === 'tool');
    assert.match(textOf(toolResult!), /^User denied this tool call\. Reason: Nobody is at a terminal to approve it/);
    // stdout has the answer alone; tool lines went to stderr.
    assert.equal(ran.stdout, 'I will create notes.txt.\nFinished with notes.txt.\n');
    assert.match(ran.stderr, /● write_file notes\.txt/);
  });

  it('--yes approves tool calls without asking', async () => {
    const workspace = tempFolder('ws');
    const ran = await runCli([...cliArgs(server, tempFolder('store')), '--yes', 'create the notes'], {
      cwd: workspace,
    });
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8'), 'hello from the agent\n');
    assert.doesNotMatch(ran.stderr, /denied/);
  });

  it("applies the tool rules of the folder's .openagent/agent.yaml", async () => {
    const workspace = tempFolder('ws');
    fs.mkdirSync(path.join(workspace, '.openagent'));
    fs.writeFileSync(
      path.join(workspace, '.openagent', 'agent.yaml'),
      'approvals:\n  auto_approve: [write_file]\ntools:\n  deny: [bash]\n',
    );
    const ran = await runCli([...cliArgs(server, tempFolder('store')), 'create the notes'], { cwd: workspace });
    assert.equal(ran.code, 0, ran.stderr);
    // No terminal and no --yes, yet the policy allows the write; and bash is not even offered.
    assert.equal(fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8'), 'hello from the agent\n');
    assert.doesNotMatch(ran.stderr, /denied/);
    const tools = offeredTools(server.modelCalls[0]);
    assert.ok(tools.includes('write_file') && !tools.includes('bash'), tools.join(', '));
  });

  it('follows the model routes and budgets of the user policy (~/.openagent/agent.yaml) and stops at the limit', async () => {
    const home = tempFolder('home');
    fs.mkdirSync(path.join(home, '.openagent'));
    fs.writeFileSync(
      path.join(home, '.openagent', 'agent.yaml'),
      'model_policy:\n  default: openai-compatible/routed-model\nbudget:\n  per_conversation_tokens: 250000\n',
    );
    const think = (id: string) => ({
      toolCalls: [{ id, name: 'think', arguments: { thought: `step ${id}` } }],
      usage: { input: 100_000, output: 1_000 },
    });
    server.setScenario({ name: 'long', turns: ['1', '2', '3', '4', '5'].map(think) });
    const store = tempFolder('store');
    const ran = await runCli([...cliArgs(server, store), 'think for a long time'], { cwd: tempFolder('ws'), home });
    // 101,000 + 101,000 (80 % passed) + 101,000 (fitted before it was made): the fourth is not made.
    assert.equal(server.modelCalls.length, 3);
    assert.ok(server.modelCalls.every((call) => requestBody(call).model === 'routed-model'));
    assert.equal(ran.code, 1);
    assert.match(
      ran.stderr,
      /\(OpenAgent has used 80 % of this conversation's token budget: 202,000 tokens of 250,000 tokens\.\)/,
    );
    assert.match(
      ran.stderr,
      /error: Stopped: this conversation's token budget of 250,000 tokens is used up \(303,000 tokens spent\)\. Raise the limit \(budget\.per_conversation_tokens\)/,
    );

    // The next conversation starts afresh: the per-conversation limit is its own. A daily one is
    // shared by every conversation in the store, and survives the restart.
    fs.appendFileSync(path.join(home, '.openagent', 'agent.yaml'), '  daily_tokens: 300000\n');
    server.setScenario({ name: 'again', turns: [think('6')] });
    const before = server.modelCalls.length;
    const again = await runCli([...cliArgs(server, store), 'one more'], { cwd: tempFolder('ws'), home });
    assert.equal(server.modelCalls.length, before);
    assert.match(
      again.stderr,
      /error: Stopped: today's token budget of 300,000 tokens is used up \(303,000 tokens spent\)/,
    );
  });

  it('takes the prompt from stdin when none is given', async () => {
    server.setScenario(loadScenario('hello'));
    const ran = await runCli(cliArgs(server, tempFolder('store')), { cwd: tempFolder('ws'), input: 'hello\n' });
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /Hello from the \*\*fake model\*\*!/);
    assert.equal(textOf(requestBody(server.modelCalls[0]).messages.at(-1)!), 'hello');
  });

  it('refuses an unknown flag with exit code 2 and the usage, before talking to any model', async () => {
    const ran = await runCli([...cliArgs(server, tempFolder('store')), '--frobnicate', 'hello'], {
      cwd: tempFolder('ws'),
    });
    assert.equal(ran.code, 2);
    assert.match(ran.stderr, /Unknown option '--frobnicate'/);
    assert.match(ran.stderr, /Usage: openagent \[options\]/);
    assert.equal(server.modelCalls.length, 0);
  });

  it('explains an unreachable server and exits 1', async () => {
    // A port nothing listens on: the server just closed.
    const gone = await FakeModelServer.start();
    const address = gone.openAiBaseUrl;
    await gone.close();
    const ran = await runCli(
      ['--store', tempFolder('store'), '--provider', 'openai-compatible', '--base-url', address, 'hello'],
      { cwd: tempFolder('ws') },
    );
    assert.equal(ran.code, 1);
    assert.match(
      ran.stderr,
      /error: Could not reach OpenAI-compatible server at http:\/\/127\.0\.0\.1:\d+\/v1 \(ECONNREFUSED\)\. Is the server running\? Check --base-url/,
    );
  });
});
