/**
 * Waits on a real llama.cpp server (see test/fixtures/llama-server/) that must end (issue 32):
 * Ctrl+C in the interactive CLI while the server is frozen (SIGSTOP) stops the wait at once and
 * keeps the prompt; a stream that the server started but a proxy in front of it keeps alive with
 * keep-alive comments and empty deltas only is timed out. (The 400-line read on an 8k window is
 * in llama-cpp-cli.test.ts.)
 */
import assert from 'node:assert/strict';
import { keepAliveProxy } from '../../fixtures/llama-server/keep-alive-proxy';
import { LlamaServer } from '../../fixtures/llama-server/llama-server';
import { ENDLESS_PREFIX, GREETING, TRIGGERS } from '../../fixtures/llama-server/scenes';
import { cleanEnv, eventually, startCli, tempFolder } from '../cli/cli-helpers';
import { TmuxCli } from '../cli/tmux-cli';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

describe('openagent CLI: waits on a real llama.cpp server end', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: LlamaServer | undefined;
  let cli: TmuxCli | undefined;

  afterEach(async () => {
    cli?.kill();
    cli = undefined;
    server?.thaw();
    await server?.stop();
    server = undefined;
  });

  it('Ctrl+C while the server is frozen returns to the prompt at once, and the prompt is kept', async () => {
    server = await LlamaServer.start({ contextSize: 8192 });
    const store = tempFolder('llama-store');
    cli = TmuxCli.start({
      // Every wait but the Stop lasts an hour (the window probe, the count, the idle watchdog):
      // only Ctrl+C can end this one within the deadline below.
      args: ['--store', store, '--provider', 'llamacpp', '--base-url', server.baseUrl, '--idle-timeout', '3600'],
      env: { ...cleanEnv(), OPENAGENT_PROBE_TIMEOUT: '3600' },
    });
    await cli.waitForPrompt(1);
    // Frozen before the first prompt: the window probe, the count and the answer all wait on it.
    server.freeze();
    cli.type('a prompt for a frozen server');
    await cli.waitFor(/… (working|waiting for llama\.cpp server)/);
    cli.press('C-c');
    const stopped = await cli.waitFor(/^feedback> /m, 60_000);
    assert.match(stopped, /\(interrupted\)/);
    cli.press('Enter');
    await cli.waitForPrompt(2);

    // Thawed, the conversation goes on, and it has the stopped prompt in it.
    server.thaw();
    cli.type('hello there');
    await cli.waitFor(new RegExp(GREETING.replace(/[.!]/g, '\\$&')));
    await cli.waitForPrompt(3);
    cli.type('/history');
    // The conversation's line in the list: its id, its date, its first prompt.
    await cli.waitFor(/^\* [0-9a-f]{6,} .* a prompt for a frozen server$/m);
    await cli.waitForPrompt(4);

    // A second Ctrl+C at the idle prompt quits, as before.
    cli.press('C-c');
    await cli.waitFor(/press Ctrl\+C again or type \/exit to quit/);
    cli.press('C-c');
    assert.equal(await cli.waitForExit(), 0);
  });

  it('times out a stream kept alive with keep-alive comments and empty deltas only', async () => {
    server = await LlamaServer.start({ contextSize: 32_768 });
    const proxy = await keepAliveProxy(server.baseUrl.replace(/\/v1$/, ''));
    try {
      const run = startCli(
        [
          '--store',
          tempFolder('llama-store'),
          '--provider',
          'llamacpp',
          '--base-url',
          proxy.url,
          '--idle-timeout',
          '3',
          '--max-output-tokens',
          '30000',
          `start the ${TRIGGERS.endless}`,
        ],
        { cwd: tempFolder('llama-ws'), timeoutMs: 120_000 },
      );
      await eventually(() => run.stdout.includes(ENDLESS_PREFIX), 'the answer to start streaming', 60_000);
      const ran = await run.finished;
      assert.equal(ran.code, 1, ran.stderr);
      assert.match(ran.stderr, /sent nothing for 3 s in the middle of its answer/);
      // The proxy kept the socket busy the whole time: bytes came, progress did not.
      assert.ok(proxy.fillers() >= 10, `${proxy.fillers()} keep-alives and empty deltas were sent`);
    } finally {
      await proxy.close();
    }
  });
});
