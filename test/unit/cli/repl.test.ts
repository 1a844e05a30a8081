/**
 * The interactive session in a real pseudo-terminal (tmux): prompts streamed and answered, the
 * slash commands, and quitting. The model is the fake server; what it received is checked.
 */
import assert from 'node:assert/strict';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { loadScenario } from '../../fixtures/fake-model-server/scenario';
import { cleanEnv, cliArgs, offeredTools, requestBody, tempFolder, textOf } from './cli-helpers';
import { TmuxCli } from './tmux-cli';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

describe('openagent CLI (interactive session in a terminal)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer;
  let cli: TmuxCli | undefined;

  beforeEach(async () => {
    server = await FakeModelServer.start({ scenario: loadScenario('hello') });
  });
  afterEach(async () => {
    cli?.kill();
    cli = undefined;
    await server.close();
  });

  const start = (extraArgs: string[] = [], env: Record<string, string | undefined> = {}) => {
    cli = TmuxCli.start({
      args: [...cliArgs(server, tempFolder('store')), ...extraArgs],
      env: { ...cleanEnv(), ...env },
    });
    return cli;
  };

  it('streams the answer to a prompt, then prompts again; /cost shows its tokens', async () => {
    const cli = start();
    await cli.waitForPrompt(1);
    cli.type('hello');
    const screen = await cli.waitForPrompt(2);
    assert.match(
      screen,
      /Hello from the \*\*fake model\*\*! I streamed this answer in small deltas\.\n\n- item one\n- item two/,
    );
    assert.equal(textOf(requestBody(server.modelCalls[0]).messages.at(-1)!), 'hello');

    cli.type('/cost');
    // The scenario reports 120 input and 32 output tokens: this conversation's, and today's in this store.
    const cost = await cli.waitForPrompt(3);
    assert.match(cost, /This conversation: 152 tokens \(120 in, 32 out\), \$0\.0000, 1 model call/);
    assert.match(cost, /Today \(\d{4}-\d\d-\d\d UTC, every conversation in .*\): 152 tokens \(120 in, 32 out\)/);
    // Where the 120 input tokens went, of the unknown model's default window.
    const context =
      /Context of the last request: 120 of 32,768 tokens \(0 %\) — System \+ tools ([\d,]+) · Rules & memory ([\d,]+) · Conversation ([\d,]+) · Tool results 0/.exec(
        cost,
      );
    assert.ok(context, cost);
    assert.equal(
      context.slice(1, 4).reduce((sum, part) => sum + Number(part.replace(/,/g, '')), 0),
      120,
    );
  });

  it('/new starts a new conversation: the next prompt goes to the model without the earlier ones', async () => {
    const cli = start();
    await cli.waitForPrompt(1);
    cli.type('hello');
    await cli.waitForPrompt(2);
    cli.type('second in the same conversation');
    await cli.waitForPrompt(3);
    assert.deepEqual(
      requestBody(server.modelCalls[1])
        .messages.filter((message) => message.role === 'user')
        .map(textOf),
      ['hello', 'second in the same conversation'],
    );
    cli.type('/new');
    await cli.waitFor(/New conversation\./);
    await cli.waitForPrompt(4);
    cli.type('fresh start');
    await cli.waitForPrompt(5);
    assert.deepEqual(
      requestBody(server.modelCalls[2])
        .messages.filter((message) => message.role === 'user')
        .map(textOf),
      ['fresh start'],
    );
  });

  it('/compact summarises the conversation with the focus given, and the next prompt continues from the summary', async () => {
    const cli = start();
    await cli.waitForPrompt(1);
    cli.type('/compact');
    await cli.waitFor(/Nothing to compact yet: send a prompt first\./);
    cli.type('hello');
    await cli.waitForPrompt(3);
    cli.type('/compact keep the greeting');
    await cli.waitFor(/\(conversation compacted: ~[\d,]+ → ~[\d,]+ tokens; full history saved to .*\.jsonl\)/);
    const summaryRequest = requestBody(server.modelCalls[1]).messages;
    assert.match(textOf(summaryRequest.at(-1)!), /Focus the summary on: keep the greeting/);
    await cli.waitForPrompt(4);
    cli.type('next');
    await cli.waitForPrompt(5);
    // The greeting's exchange is gone from what the model gets: the summary stands for it.
    const after = requestBody(server.modelCalls[2]).messages;
    assert.deepEqual(
      after.map((message) => message.role),
      ['system', 'user'],
    );
    assert.match(textOf(after[1]!), /The full transcript before compaction is saved at .*\.jsonl\.\]\s*next$/);
  });

  it('/plan switches plan mode on: the model is offered no writing tools until it is off again', async () => {
    const cli = start();
    await cli.waitForPrompt(1);
    cli.type('/plan');
    await cli.waitFor(/Plan mode on: the agent reads and plans/);
    cli.type('hello');
    await cli.waitForPrompt(3);
    const planned = offeredTools(server.modelCalls[0]);
    assert.ok(planned.includes('present_plan') && planned.includes('read_file'), planned.join(', '));
    assert.ok(!planned.includes('write_file') && !planned.includes('bash'), planned.join(', '));

    cli.type('/plan');
    await cli.waitFor(/\(plan mode off\)/);
    cli.type('go on');
    await cli.waitFor(/You said: go on/);
    const after = offeredTools(server.modelCalls[1]);
    assert.ok(
      after.includes('write_file') && after.includes('bash') && !after.includes('present_plan'),
      after.join(', '),
    );
  });

  it('explains an unknown slash command with the list of commands, and /exit quits', async () => {
    const cli = start();
    await cli.waitForPrompt(1);
    cli.type('/frobnicate now');
    const screen = await cli.waitForPrompt(2);
    assert.match(
      screen,
      /Unknown command \/frobnicate\. Commands: \/new \/history \/resume \/model \/preset \/plan \/compact \/cost \/queue \/btw \/messages \/fork \/rewind \/forks \/sessions \/approve-all \/help \/exit/,
    );
    assert.equal(server.modelCalls.length, 0, 'nothing went to the model');
    // Outside a git repository there are no sessions in worktrees, and it says why.
    cli.type('/sessions');
    assert.match(await cli.waitForPrompt(3), /No sessions in worktrees here: .*git repository/i);
    cli.type('/exit');
    assert.equal(await cli.waitForExit(), 0);
  });

  it('/model shows the model, switches it for the next prompt, and refuses an unknown provider or a missing key', async () => {
    const cli = start();
    await cli.waitForPrompt(1);
    cli.type('/model');
    await cli.waitFor(/Model: openai-compatible\/fake-model at http:\/\/127\.0\.0\.1:\d+\/v1/);
    cli.type('/model nosuch/some-model');
    await cli.waitFor(/Unknown provider "nosuch"\. Choose one of: anthropic, openai, ollama/);
    cli.type('/model anthropic/claude-sonnet-4-5');
    await cli.waitFor(/No Anthropic API key: set ANTHROPIC_API_KEY .*The model stays openai-compatible\/fake-model/);
    cli.type('/model fake-model-large');
    await cli.waitFor(/Model: openai-compatible\/fake-model-large at .* \(from the next prompt on\)/);
    cli.type('hello');
    await cli.waitForPrompt(6);
    assert.equal(server.modelCalls.length, 1);
    assert.equal(requestBody(server.modelCalls[0]).model, 'fake-model-large');
  });

  it('/preset lists the presets and a chosen one is the system prompt of the next conversation', async () => {
    const cli = start();
    await cli.waitForPrompt(1);
    cli.type('/preset');
    await cli.waitFor(/\* coding\n\s+work/);
    cli.type('/preset nosuch');
    await cli.waitFor(/Unknown preset "nosuch"\. Presets: coding, work\./);
    cli.type('/preset work');
    await cli.waitFor(/Preset "work" is used from the next prompt on\./);
    cli.type('hello');
    await cli.waitForPrompt(5);
    const system = textOf(requestBody(server.modelCalls[0]).messages[0]!);
    assert.match(system, /name: work/);
    assert.doesNotMatch(system, /name: coding/);
  });

  it('Ctrl+C at the prompt warns once and quits the second time; Ctrl+D quits too', async () => {
    const first = start();
    await first.waitForPrompt(1);
    first.press('C-c');
    await first.waitFor(/\(press Ctrl\+C again or type \/exit to quit\)/);
    await first.waitForPrompt(2);
    first.press('C-c');
    assert.equal(await first.waitForExit(), 0);
    first.kill();

    const second = start();
    await second.waitForPrompt(1);
    second.press('C-d');
    assert.equal(await second.waitForExit(), 0);
  });
});
