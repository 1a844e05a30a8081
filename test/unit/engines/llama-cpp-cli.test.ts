/**
 * The `openagent` CLI against llama.cpp's own `llama-server` (built from source, see
 * test/fixtures/llama-server/), with the llama.cpp preset as a user sets it up. The model is
 * the trigger model: its answers are fixed, everything else — the chat template, the grammar
 * compiled from the tool schemas, tool-call parsing, streaming, usage, the context limit — is
 * the real server's.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { LlamaServer } from '../../fixtures/llama-server/llama-server';
import { AFTER_TOOL, ENDLESS_PREFIX, GREETING, TRIGGERS } from '../../fixtures/llama-server/scenes';
import { eventually, runCli, startCli, tempFolder } from '../cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

function workspace(): string {
  const folder = tempFolder('llama-ws');
  fs.writeFileSync(path.join(folder, 'README.md'), '# Sample\n\nA sample project.\n');
  // ~42 KB of text: about 10k tokens once read, more than the server's 8k window.
  const words = ['alpha', 'beta', 'gamma', 'delta', 'kappa', 'omega', 'sigma', 'theta'];
  const lines = Array.from({ length: 400 }, (_, line) =>
    Array.from(
      { length: 12 },
      (_, word) => `${words[(line * 7 + word * 3) % words.length]}${(line * 31 + word * 17) % 1000}`,
    ).join(' '),
  );
  fs.writeFileSync(path.join(folder, 'big.txt'), `${lines.join('\n')}\n`);
  return folder;
}

function presetArgs(server: LlamaServer, ...extra: string[]): string[] {
  return ['--store', tempFolder('llama-store'), '--provider', 'llamacpp', '--base-url', server.baseUrl, ...extra];
}

describe('openagent CLI with a real llama.cpp server', function () {
  // Building llama.cpp on a fresh machine happens in `npm run test:unit`'s first step; starting
  // the server and each CLI run take seconds, more on a loaded machine.
  this.timeout(TEST_TIMEOUT_MS);
  let server: LlamaServer;

  before(async () => {
    server = await LlamaServer.start({ contextSize: 8192 });
  });
  after(async () => {
    await server?.stop();
  });

  it('says hello with every built-in tool offered, through the shipped llama.cpp preset', async () => {
    const ran = await runCli([...presetArgs(server), 'hello there'], { cwd: workspace() });
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(ran.stdout.trim(), GREETING);
    // The server counted the opening context: system prompt and every tool schema.
    assert.match(ran.stderr, /\(([\d,]+) tokens in/);
    const tokensIn = Number(/\(([\d,]+) tokens in/.exec(ran.stderr)![1]!.replace(/,/g, ''));
    assert.ok(tokensIn > 2_000, `the opening context is the real one (${tokensIn} tokens)`);
  });

  it("makes a tool call in the model's native format, runs it and sends the result back", async () => {
    const ran = await runCli([...presetArgs(server), `please read the ${TRIGGERS.readReadme} file`], {
      cwd: workspace(),
    });
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stderr, /● read_file README\.md\n\s+✓ 4 lines/);
    assert.equal(ran.stdout, `Let me read it.\n${AFTER_TOOL}\n`);
  });

  it('runs a call the server left in the text (a fenced JSON block) and sends the result back', async () => {
    const ran = await runCli([...presetArgs(server), `please read the ${TRIGGERS.fencedCall} file`], {
      cwd: workspace(),
    });
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stderr, /● read_file README\.md\n\s+✓ 4 lines/);
    // The block became the call: it is not printed as the answer.
    assert.equal(ran.stdout, `${AFTER_TOOL}\n`);
  });

  it('tells the model when its call is cut off by the output limit (malformed arguments), and goes on', async () => {
    const ran = await runCli(
      [...presetArgs(server, '--max-output-tokens', '48'), `try the ${TRIGGERS.malformedCall}`],
      { cwd: workspace() },
    );
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stderr, /✗ The arguments for read_file were not valid JSON \(Unterminated string/);
    assert.equal(ran.stdout.trim(), AFTER_TOOL);
  });

  it('answers a 400-line read on an 8k window: the result is cut to what the window has left', async () => {
    const refusals = (server.log.match(/exceeds the available context size/g) ?? []).length;
    const ran = await runCli([...presetArgs(server), `please read the ${TRIGGERS.readBigFile} file`], {
      cwd: workspace(),
    });
    assert.equal(ran.code, 0, ran.stderr);
    assert.doesNotMatch(ran.stderr, /error:/);
    // The user's copy is the whole (capped) read; the model's copy fitted its window, so no
    // compaction summarised the file away: the model read the result and answered it.
    assert.match(ran.stderr, /● read_file big\.txt\n\s+✓ \d+ lines/);
    assert.doesNotMatch(ran.stderr, /conversation compacted/);
    assert.equal(ran.stdout.trim(), AFTER_TOOL);
    // The server took the request with the cut result in it: it refused nothing.
    assert.equal((server.log.match(/exceeds the available context size/g) ?? []).length, refusals);
  });

  it('offers the llama.cpp server it finds when no model is set up, with the flags to use it', async () => {
    const ran = await runCli(['--store', tempFolder('llama-store'), 'hello'], {
      cwd: workspace(),
      env: { OPENAGENT_LOCAL_SERVERS: `llamacpp=${server.baseUrl}` },
    });
    assert.equal(ran.code, 1);
    assert.match(ran.stderr, /openagent: No Anthropic API key/);
    const model = server.build.model;
    assert.ok(
      ran.stderr.includes(
        `Found on this machine:\n  llama.cpp server at ${server.baseUrl}: ${path.basename(model)}  → openagent --provider llamacpp --base-url ${server.baseUrl} --model ${model} "…"`,
      ),
      ran.stderr,
    );
  });

  it('recovers when the server refuses a request as too long: the result is cut to the window it names', async () => {
    const refusals = (server.log.match(/exceeds the available context size/g) ?? []).length;
    // A window set too large by hand: only the server's refusal can tell.
    const ran = await runCli(
      [...presetArgs(server, '--context-window', '65536'), `please read the ${TRIGGERS.readBigFile} file`],
      { cwd: workspace() },
    );
    assert.equal(ran.code, 0, ran.stderr);
    await eventually(
      () => (server.log.match(/exceeds the available context size/g) ?? []).length === refusals + 1,
      'the server to log its refusal',
    );
    // The result the model has not read yet is cut again, not summarised away: it reads it.
    assert.match(ran.stderr, /● read_file big\.txt/);
    assert.doesNotMatch(ran.stderr, /conversation compacted/);
    assert.doesNotMatch(ran.stderr, /error:/);
    assert.equal(ran.stdout.trim(), AFTER_TOOL);
  });
});

describe('openagent CLI when the llama.cpp server stops answering', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: LlamaServer | undefined;

  afterEach(async () => {
    await server?.stop();
    server = undefined;
  });

  it('reports a server frozen mid-answer within the idle timeout, naming the server', async () => {
    server = await LlamaServer.start({ contextSize: 32_768 });
    const cli = startCli(
      [...presetArgs(server, '--idle-timeout', '3', '--max-output-tokens', '30000'), `start the ${TRIGGERS.endless}`],
      {
        cwd: workspace(),
        timeoutMs: 120_000,
      },
    );
    await eventually(() => cli.stdout.includes(ENDLESS_PREFIX), 'the answer to start streaming', 60_000);
    server.freeze();
    const ran = await cli.finished;
    assert.equal(ran.code, 1, ran.stderr);
    assert.match(
      ran.stderr,
      new RegExp(
        `error: llama\\.cpp server at ${server.baseUrl.replace(/\./g, '\\.')} sent nothing for 3 s in the middle of its answer`,
      ),
    );
    assert.match(ran.stderr, /Is the server running\?/);
  });

  it('reports a killed server as a lost connection, not as "terminated"', async () => {
    server = await LlamaServer.start({ contextSize: 32_768 });
    const cli = startCli([...presetArgs(server, '--max-output-tokens', '30000'), `start the ${TRIGGERS.endless}`], {
      cwd: workspace(),
    });
    await eventually(() => cli.stdout.includes(ENDLESS_PREFIX), 'the answer to start streaming', 60_000);
    server.kill();
    const ran = await cli.finished;
    assert.equal(ran.code, 1, ran.stderr);
    assert.match(ran.stderr, /error: The connection was lost with llama\.cpp server at http:\/\/127\.0\.0\.1:\d+\/v1/);
    assert.doesNotMatch(ran.stderr, /terminated/);

    // The next prompt finds nobody listening, and says so.
    const next = await runCli([...presetArgs(server), 'hello'], { cwd: workspace() });
    assert.equal(next.code, 1);
    assert.match(
      next.stderr,
      /error: Could not reach llama\.cpp server at .* \(ECONNREFUSED\)\. Is the server running\?/,
    );
  });
});
