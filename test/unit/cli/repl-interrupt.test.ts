/**
 * Ctrl+C while the agent works, in a real pseudo-terminal (tmux): the slow answer stops, the
 * `feedback>` prompt appears, and typed feedback redirects the agent — the model's next request
 * has the partial answer and the feedback. An empty line returns to the prompt without asking
 * the model anything.
 */
import assert from 'node:assert/strict';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { loadScenario } from '../../fixtures/fake-model-server/scenario';
import { cleanEnv, cliArgs, requestBody, tempFolder, textOf } from './cli-helpers';
import { TmuxCli } from './tmux-cli';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

describe('openagent CLI (Ctrl+C while the agent works)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer;
  let cli: TmuxCli | undefined;

  beforeEach(async () => {
    server = await FakeModelServer.start({ scenario: loadScenario('cli-slow-answer') });
  });
  afterEach(async () => {
    cli?.kill();
    cli = undefined;
    await server.close();
  });

  it('stops the answer and sends typed feedback to the model; an empty line returns to the prompt', async () => {
    cli = TmuxCli.start({ args: cliArgs(server, tempFolder('store')), env: cleanEnv() });
    await cli.waitForPrompt(1);
    cli.type('tell me a long story');
    await cli.waitFor(/Once upon a time there was/);
    cli.press('C-c');
    const stopped = await cli.waitFor(/^feedback> /m);
    assert.match(stopped, /\(interrupted\)/);
    assert.doesNotMatch(stopped, /And still it went on\./, 'the answer stopped before its end');

    cli.type('make it shorter');
    const redirected = await cli.waitForPrompt(2);
    assert.match(redirected, /The short version: it ended well\./);
    assert.equal(server.modelCalls.length, 2);
    const messages = requestBody(server.modelCalls[1]).messages;
    assert.equal(textOf(messages.at(-1)!), 'make it shorter');
    assert.equal(messages.at(-1)!.role, 'user');
    // The part of the answer the user saw stays in the conversation, before the feedback.
    assert.equal(messages.at(-2)!.role, 'assistant');
    assert.match(textOf(messages.at(-2)!), /^Once upon a time there was/);

    cli.type('and another long story');
    await cli.waitForCount(/Once upon a time there was/, 2);
    cli.press('C-c');
    await cli.waitForCount(/^feedback> /m, 2);
    cli.press('Enter');
    await cli.waitForPrompt(3);
    // Back at the prompt, the conversation goes on where it was.
    await new Promise((resolve) => setTimeout(resolve, 500));
    assert.equal(server.modelCalls.length, 3, 'an empty feedback sends nothing');
    cli.type('one more thing');
    await cli.waitFor(/You said: one more thing/);
    const last = requestBody(server.modelCalls[3]).messages;
    assert.ok(last.some((message) => textOf(message) === 'make it shorter'));
  });
});
