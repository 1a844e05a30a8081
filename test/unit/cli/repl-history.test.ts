/**
 * Conversations kept across sessions (tmux): one session answers a prompt; the next lists it
 * with /history, reopens it with /resume, and its next prompt continues it — the model gets the
 * earlier messages. The line history (↑) is kept too. Bad input (an unknown id, a missing API
 * key) is explained and loses nothing.
 */
import assert from 'node:assert/strict';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { loadScenario } from '../../fixtures/fake-model-server/scenario';
import { openStore } from '../store/store-helpers';
import { cleanEnv, cliArgs, requestBody, tempFolder, textOf } from './cli-helpers';
import { TmuxCli } from './tmux-cli';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

describe('openagent CLI (history and resuming)', function () {
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

  it('/history lists a conversation of an earlier session and /resume continues it', async () => {
    const store = tempFolder('store');
    const env = cleanEnv();
    const first = TmuxCli.start({ args: cliArgs(server, store), env });
    cli = first;
    await first.waitForPrompt(1);
    first.type('hello');
    await first.waitFor(/`npm test` passed\./);
    first.type('/exit');
    assert.equal(await first.waitForExit(), 0);
    first.kill();

    const second = TmuxCli.start({ args: cliArgs(server, store), env });
    cli = second;
    await second.waitForPrompt(1);
    second.type('/resume 00000000');
    await second.waitFor(/No saved conversation "00000000" in .*: \/history lists them\./);
    second.type('/history');
    const listed = await second.waitFor(/\/resume ID continues one/);
    const id = /^\s+([0-9a-f]{8})\s+\d{4}-\d\d-\d\d \d\d:\d\d\s+hello$/m.exec(listed)?.[1];
    assert.ok(id, `no conversation titled "hello" in:\n${listed}`);

    second.type(`/resume ${id}`);
    await second.waitFor(/Resumed "hello" \(.*1 prompt\)\. Your next prompt continues it\./);
    second.type('what did you say?');
    await second.waitFor(/You said: what did you say\?/);
    const messages = requestBody(server.modelCalls[1]).messages;
    assert.deepEqual(
      messages.map((message) => message.role),
      ['system', 'user', 'assistant', 'user'],
    );
    assert.equal(textOf(messages[1]!), 'hello');
    assert.match(textOf(messages[2]!), /^Hello from the \*\*fake model\*\*!/);

    // The same conversation in the store, now with both prompts.
    await second.waitForPrompt(5);
    const { store: opened } = await openStore(store);
    const conversations = await opened.listConversations();
    assert.equal(conversations.length, 1);
    assert.ok(conversations[0]!.id.startsWith(id));
    assert.match(JSON.stringify(await opened.listMessages(conversations[0]!.id)), /what did you say\?/);
    await opened.close();

    // ↑ brings back lines of this session and of the earlier one (the history file).
    second.press('Up', 'Up', 'Up', 'Up', 'Up', 'Up');
    await second.waitFor(/openagent> hello$/m);
  });

  it('without an API key it says which variable to set, and keeps the session and the typed prompt', async () => {
    cli = TmuxCli.start({ args: ['--store', tempFolder('store'), '--provider', 'anthropic'], env: cleanEnv() });
    await cli.waitFor(/No Anthropic API key: set ANTHROPIC_API_KEY \(or OPENAGENT_API_KEY\) in the environment/);
    await cli.waitForPrompt(1);
    cli.type('explain this folder');
    await cli.waitForCount(/ANTHROPIC_API_KEY/, 2);
    await cli.waitForPrompt(2);
    cli.press('Up');
    await cli.waitFor(/^openagent> explain this folder$/m);
    cli.press('C-u');
    cli.type('/exit');
    assert.equal(await cli.waitForExit(), 0);
  });
});
