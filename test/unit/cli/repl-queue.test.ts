/**
 * Typing while the agent works, in a real pseudo-terminal (tmux): the line is queued (the
 * agent's output waits while it is typed, so the line stays whole) and sent as a new user turn
 * after the answer ends. After Ctrl+C the queue waits: /queue lists it, edits it and sends it.
 * A line left half-typed when the answer ends starts the next prompt.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Jimp } from 'jimp';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { parseScenario } from '../../fixtures/fake-model-server/scenario';
import { cleanEnv, cliArgs, requestBody, tempFolder, textOf } from './cli-helpers';
import { TmuxCli } from './tmux-cli';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

const STORY =
  'Once upon a time there was a very long story that went on and on, sentence after sentence, so that anyone ' +
  'listening would have plenty of time to type something else. It kept going through forests and over ' +
  'mountains, past rivers and villages. And that was the end.';
/** About 9 s of streaming, however fast the machine: time to type while it runs. */
const SLOW = { chunkSize: 4, delayMs: 150 };

describe('openagent CLI (messages typed while the agent works)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer;
  let cli: TmuxCli | undefined;

  beforeEach(async () => {
    server = await FakeModelServer.start({
      scenario: parseScenario({
        name: 'cli-queue',
        turns: [
          { match: 'long story', text: STORY, ...SLOW },
          { match: 'another story', text: STORY, ...SLOW },
          { match: 'third story', text: STORY, ...SLOW },
        ],
        whenExhausted: 'echo',
      }),
    });
    cli = TmuxCli.start({ args: cliArgs(server, tempFolder('store')), env: cleanEnv() });
  });
  afterEach(async () => {
    cli?.kill();
    cli = undefined;
    await server.close();
  });

  /** The conversation a request carried (the system prompt left out). */
  const messagesOf = (call: number) =>
    requestBody(server.modelCalls[call]).messages.filter((message) => message.role !== 'system');

  /** The terminal, once the answer to `prompt` has started streaming. */
  async function answering(prompt: string): Promise<TmuxCli> {
    const terminal = cli!;
    await terminal.waitForPrompt(1);
    terminal.type(prompt);
    await terminal.waitFor(/Once upon a time/);
    return terminal;
  }

  it('queues a line typed mid-answer and sends it as the next user turn once the answer has ended', async () => {
    const terminal = await answering('tell me a long story');
    terminal.type('and what happened next?');
    const queued = await terminal.waitFor(/Queued \(1 waiting\): sent when the agent finishes/);
    assert.equal(server.modelCalls.length, 1, 'the answer was not interrupted');
    // The typed line stayed whole: the streamed story waited while it was typed.
    assert.ok(
      queued.split('\n').some((line) => line === 'queue› and what happened next?'),
      `the typed line on a line of its own:\n${queued}`,
    );

    const done = await terminal.waitForPrompt(2);
    assert.equal(server.modelCalls.length, 2);
    const messages = messagesOf(1);
    assert.deepEqual(
      messages.map((message) => message.role),
      ['user', 'assistant', 'user'],
    );
    assert.equal(textOf(messages[1]!), STORY, 'the whole answer came before the queued question');
    assert.equal(textOf(messages[2]!), 'and what happened next?');
    assert.match(done, /› and what happened next\? \(queued\)/);
    assert.match(done, /You said: and what happened next\?/);
    // Every word of the story reached the screen, held back or not.
    assert.match(done.replace(/\n/g, ' '), /And that was the end\./);
  });

  it('holds the queue after Ctrl+C; /queue lists it, edits it and sends it', async () => {
    const terminal = await answering('tell me another story');
    terminal.type('a follow-up, typed before stopping');
    await terminal.waitFor(/Queued \(1 waiting\)/);
    terminal.press('C-c');
    await terminal.waitFor(/^feedback> /m);
    terminal.press('Enter');
    const back = await terminal.waitForPrompt(2);
    assert.match(back, /1 queued message waiting because you stopped the agent: \/queue lists them/);
    assert.equal(server.modelCalls.length, 1, 'nothing was sent after the stop');

    terminal.type('/queue');
    const listed = await terminal.waitForPrompt(3);
    assert.match(
      listed,
      /1 message waiting because you stopped the agent:\n {2}1\. a follow-up, typed before stopping/,
    );
    terminal.type('/queue edit 1 the follow-up, edited');
    await terminal.waitFor(/Message 1 is now: the follow-up, edited/);
    terminal.type('/queue send');
    const sent = await terminal.waitFor(/You said: the follow-up, edited/);
    assert.match(sent, /› the follow-up, edited \(queued\)/);
    await terminal.waitForPrompt(5);
    assert.equal(server.modelCalls.length, 2);
    assert.equal(textOf(messagesOf(1).at(-1)!), 'the follow-up, edited');
    terminal.type('/queue');
    await terminal.waitFor(/Nothing is queued\./);
  });

  it('sends a queued line’s @image with it, read when it goes out (not dropped as words)', async () => {
    // A CLI of its own, with a picture in its folder and a model told to take images.
    cli?.kill();
    const workspace = tempFolder('ws');
    const picture = new Jimp({ width: 40, height: 30, color: 0x3366ccff });
    fs.writeFileSync(path.join(workspace, 'shot.png'), await picture.getBuffer('image/png'));
    cli = TmuxCli.start({
      args: [...cliArgs(server, tempFolder('store')), '--images', 'yes'],
      env: cleanEnv(),
      cwd: workspace,
    });
    const terminal = await answering('tell me a long story');
    terminal.type('what is in @image:shot.png ?');
    await terminal.waitFor(/Queued \(1 waiting\)/);
    await terminal.waitForPrompt(2);
    assert.equal(server.modelCalls.length, 2);
    const body = JSON.stringify(server.modelCalls[1]?.body);
    assert.match(body, /data:image\/png;base64,/, 'the picture went out with the queued line');
    assert.match(body, /attached as an image, 40×30/);
  });

  it('starts the next prompt with a line left half-typed when the answer ends', async () => {
    const terminal = await answering('a third story please');
    terminal.press('-l', 'half a thought');
    await terminal.waitFor(/^queue› half a thought/m);
    // The answer ends while the line is unfinished: it moves to the prompt, nothing is lost or sent.
    const prompt = await terminal.waitFor(/^openagent> half a thought/m);
    assert.match(prompt.replace(/\n/g, ' '), /And that was the end\./);
    assert.equal(server.modelCalls.length, 1);
    terminal.press('-l', ', finished');
    terminal.press('Enter');
    await terminal.waitFor(/You said: half a thought, finished/);
    assert.equal(textOf(messagesOf(1).at(-1)!), 'half a thought, finished');
  });
});
