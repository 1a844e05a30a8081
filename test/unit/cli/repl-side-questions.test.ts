/**
 * `/btw` in the interactive CLI, in a real pseudo-terminal (tmux): typed while the agent
 * streams, the side answer is printed as a labelled block between two whole lines of the
 * agent's answer; the running answer goes on to its end, and the next prompt's request carries
 * neither the side question nor its answer. At the prompt it is answered in place; `/btw` with
 * nothing says what to type.
 */
import assert from 'node:assert/strict';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { parseScenario } from '../../fixtures/fake-model-server/scenario';
import { cleanEnv, cliArgs, requestBody, tempFolder } from './cli-helpers';
import { TmuxCli } from './tmux-cli';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

const STORY_LINES = [
  'Once upon a time there was a story told line by line.',
  'It went through forests and over mountains, slowly.',
  'It went past rivers and villages, slower still.',
  'It waited for anyone typing a question beside it.',
  'And that was the end.',
];
/** Several seconds of streaming, however fast the machine: time to type while it runs. */
const SLOW = { chunkSize: 4, delayMs: 60 };
const SIDE_ANSWER = 'The config is in config.ts, beside the story.';

describe('openagent CLI (/btw side questions)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer;
  let cli: TmuxCli | undefined;

  beforeEach(async () => {
    server = await FakeModelServer.start({
      scenario: parseScenario({
        name: 'cli-btw',
        turns: [
          { match: 'where is the config', text: SIDE_ANSWER, usage: { input: 321, output: 12 } },
          { match: 'tell me a story', text: STORY_LINES.join('\n'), ...SLOW },
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

  const isSide = (index: number) => JSON.stringify(server.modelCalls[index]?.body).includes('A side question');

  it('answers /btw typed while the agent streams, apart, and keeps it out of the conversation', async () => {
    const terminal = cli!;
    await terminal.waitForPrompt(1);
    terminal.type('tell me a story');
    await terminal.waitFor(/Once upon a time/);
    terminal.type('/btw where is the config?');
    const answered = await terminal.waitFor(/side answer, not kept in the conversation · 321 in, 12 out/);
    assert.match(answered, /╭ btw: where is the config\?/);
    assert.match(answered, new RegExp(`│ ${SIDE_ANSWER.replace(/[.]/g, '\\.')}`));
    assert.doesNotMatch(answered, /Queued/, 'not queued as a prompt');

    const done = await terminal.waitForPrompt(2);
    // Every line of the story after the one the typing broke reached the screen whole: the side
    // block went in between two lines, never inside one.
    const lines = done.split('\n');
    for (const line of STORY_LINES.slice(1)) assert.ok(lines.includes(line), `"${line}" whole on the screen:\n${done}`);
    assert.equal(server.modelCalls.length, 2);
    assert.ok(isSide(1) || isSide(0));
    const side = requestBody(server.modelCalls.find((_, index) => isSide(index)));
    assert.equal(side.tools, undefined, 'no tools offered');

    terminal.type('and now?');
    await terminal.waitFor(/You said: and now\?/);
    await terminal.waitForPrompt(3);
    const next = JSON.stringify(server.modelCalls.at(-1)?.body);
    assert.ok(next.includes('And that was the end.'));
    assert.ok(!next.includes('where is the config') && !next.includes(SIDE_ANSWER), next);
  });

  it('answers /btw at the prompt, and says what to type after a bare /btw', async () => {
    const terminal = cli!;
    await terminal.waitForPrompt(1);
    terminal.type('/btw where is the config?');
    await terminal.waitFor(/no conversation yet to ask about/);
    terminal.type('hello');
    await terminal.waitFor(/You said: hello/);
    await terminal.waitForPrompt(3);
    terminal.type('/btw where is the config?');
    const screen = await terminal.waitFor(new RegExp(`│ ${SIDE_ANSWER.replace(/[.]/g, '\\.')}`));
    assert.match(screen, /╰ side answer, not kept in the conversation/);
    terminal.type('/btw');
    await terminal.waitFor(/Nothing to ask: type the question after \/btw/);
  });
});
