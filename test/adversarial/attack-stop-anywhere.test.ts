/**
 * Stop at every other wait (issue 32, item 13, attacked): a prompt hook that runs a process, a
 * PreToolUse hook, a tool, an approval and a risk check that never answer and never listen to
 * their signal; the session's setup (a team database that does not answer, MCP servers still
 * connecting, a store that does not open). Each wait here never ends on its own, so only the
 * Stop can end it within the generous deadline: a broken Stop fails the test, a slow machine
 * does not.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as net from 'node:net';
import { z } from 'zod';
import { Hooks } from '../../src/core/agent/hooks';
import { defineTool } from '../../src/core/tools/tool';
import type { CallAssessor } from '../../src/core/policy/call-risk';
import type { AgentEvent } from '../../src/core/events/events';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { sessionOn } from '../unit/core/session/session-harness';
import { readCall, startHarness, TEST_TOOLS, type Harness } from '../unit/core/agent/loop-harness';
import { eventually, interruptCli, startCli, tempFolder } from '../unit/cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const DEADLINE_MS = 60_000;
const never = <T>() => new Promise<T>(() => {});

/** `work`'s outcome, or a failure naming `what` after the deadline. */
async function within<T>(work: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`${what}: still waiting ${DEADLINE_MS / 1000} s after Stop`)),
      DEADLINE_MS,
    );
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

const lastLead = (events: AgentEvent[]) => events.filter((event) => event.agentId === 'lead').at(-1);

/** A tool that never answers and never looks at its signal (an extension's, a stuck MCP client). */
const deafTool = defineTool({
  name: 'deaf_tool',
  description: 'Never answers.',
  inputSchema: z.object({}),
  readOnly: true,
  needsApproval: false,
  execute: () => never<string>(),
});
const deafCall = { id: 'call_deaf', name: 'deaf_tool', arguments: {} };
const writeCall = { id: 'call_write', name: 'write_file', arguments: { path: 'a.txt', content: 'x' } };

describe('attack: Stop during the run ends every wait, whatever is waited on', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  /** Submits, waits until `reached` says the wait began, stops, and waits (with the deadline) for the run's end. */
  async function stopWhen(h: Harness, reached: () => boolean, what: string): Promise<void> {
    const run = h.conversation.submit('a marker prompt for the stop test');
    await eventually(reached, what);
    h.conversation.stop();
    await within(run, what);
    assert.equal(lastLead(h.events)?.type, 'interrupted', JSON.stringify(lastLead(h.events)));
  }

  it('a UserPromptSubmit hook running a process: Stop ends the wait, and the hook can kill its process', async () => {
    const hooks = new Hooks();
    let child: ReturnType<typeof spawn> | undefined;
    const exited = new Promise<NodeJS.Signals | null>((resolve) => {
      hooks.add('UserPromptSubmit', ({ signal }) => {
        child = spawn('sleep', ['3600'], { stdio: 'ignore' });
        child.on('exit', (_code, killedBy) => resolve(killedBy));
        signal?.addEventListener('abort', () => child?.kill('SIGKILL'), { once: true });
        return new Promise(() => {});
      });
    });
    harness = await startHarness('openai', { name: 'p', turns: [{ text: 'never asked' }] }, { hooks });
    await stopWhen(harness, () => child !== undefined, 'the hook to start its process');
    assert.equal(await within(exited, 'the hook process to end'), 'SIGKILL');
    // No hook passed the prompt: nothing reached the model, nothing was recorded as said.
    assert.equal(harness.bodies().length, 0);
    assert.ok(!harness.events.some((event) => event.type === 'user_message'));
    assert.equal(harness.conversation.messages.length, 0);
    assert.equal(harness.conversation.isRunning, false);
  });

  it('a UserPromptSubmit hook that ignores its signal: Stop ends the wait all the same', async () => {
    const hooks = new Hooks();
    let called = false;
    hooks.add('UserPromptSubmit', () => {
      called = true;
      return never();
    });
    harness = await startHarness('anthropic', { name: 'p', turns: [{ text: 'never asked' }] }, { hooks });
    await stopWhen(harness, () => called, 'the hook to be called');
    assert.equal(harness.bodies().length, 0);
  });

  it('a redirect while the hook decides: the user’s new words go through the hook and are answered', async () => {
    const hooks = new Hooks();
    const seen: string[] = [];
    hooks.add('UserPromptSubmit', ({ prompt }) => {
      seen.push(prompt);
      return prompt.startsWith('first') ? never() : undefined;
    });
    harness = await startHarness('openai', { name: 'p', turns: [{ text: 'Answered.' }] }, { hooks });
    const run = harness.conversation.submit('first words, held by the hook');
    await eventually(() => seen.length === 1, 'the hook to be called');
    harness.conversation.interrupt('second words instead');
    await within(run, 'the redirected run');
    assert.deepEqual(seen, ['first words, held by the hook', 'second words instead']);
    assert.equal(lastLead(harness.events)?.type, 'done');
    const said = harness.events.filter((event) => event.type === 'user_message').map((event) => event.text);
    assert.deepEqual(said, ['second words instead']);
  });

  it('a PreToolUse hook that never answers', async () => {
    const hooks = new Hooks();
    let called = false;
    hooks.add('PreToolUse', () => {
      called = true;
      return never();
    });
    harness = await startHarness('openai', { name: 'p', turns: [{ toolCalls: [readCall] }, { text: 'x' }] }, { hooks });
    await stopWhen(harness, () => called, 'the PreToolUse hook to be called');
    // The call that did not run is dropped, never left without a result.
    assert.equal(harness.bodies().length, 1);
  });

  it('a PostToolUse hook that never answers', async () => {
    const hooks = new Hooks();
    let called = false;
    hooks.add('PostToolUse', () => {
      called = true;
      return never();
    });
    harness = await startHarness(
      'anthropic',
      { name: 'p', turns: [{ toolCalls: [readCall] }, { text: 'x' }] },
      { hooks },
    );
    await stopWhen(harness, () => called, 'the PostToolUse hook to be called');
  });

  it('a tool that never answers and never listens to its signal', async () => {
    harness = await startHarness(
      'openai',
      { name: 'p', turns: [{ toolCalls: [deafCall] }, { text: 'x' }] },
      {
        tools: [...TEST_TOOLS, deafTool],
      },
    );
    const h = harness;
    await stopWhen(h, () => h.events.some((event) => event.type === 'tool_call'), 'the tool to be called');
    assert.equal(h.bodies().length, 1);
  });

  it('an approval prompt that never answers and never listens to its signal', async () => {
    let asked = false;
    harness = await startHarness(
      'anthropic',
      { name: 'p', turns: [{ toolCalls: [writeCall] }, { text: 'x' }] },
      {
        approvals: {
          request: () => {
            asked = true;
            return never();
          },
        },
      },
    );
    await stopWhen(harness, () => asked, 'the approval to be asked');
  });

  it('a risk check that never answers (a hung mount under the path)', async () => {
    let assessing = false;
    harness = await startHarness(
      'openai',
      { name: 'p', turns: [{ toolCalls: [readCall] }, { text: 'x' }] },
      {
        // Only its assess is used by the loop; the rest of an assessor is the sandbox's business.
        assessor: {
          assess: () => {
            assessing = true;
            return never();
          },
        } as unknown as CallAssessor,
      },
    );
    await stopWhen(harness, () => assessing, 'the risk check to begin');
  });
});

describe('attack: Stop while the session sets a run up', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  const setups = {
    'MCP servers still connecting': 'connectedTools',
    'the policy and the team database (prepare) not answering': 'prepare',
    'the store not opening': 'store',
    'the system prompt (rules, memory) not read': 'systemPrompt',
  } as const;
  for (const [name, dep] of Object.entries(setups)) {
    it(`${name}: the prompt is not sent, and the next one runs`, async () => {
      server = await FakeModelServer.start({ scenario: { name: 's', turns: [{ text: 'Second answered.' }] } });
      let hang = true;
      let waiting = 0;
      const held = <T>(value: T) => {
        if (!hang) return Promise.resolve(value);
        waiting++;
        return never<T>();
      };
      const { session, events, waitDone } = sessionOn(server, {
        [dep]: () => held(dep === 'systemPrompt' ? 'sys' : dep === 'connectedTools' ? [] : undefined),
      });
      const first = session.submit('first, stopped in the setup');
      await eventually(() => waiting > 0, `the setup to wait on ${dep}`);
      // Typed while the setup waits: queued, then held by the Stop.
      await session.submit('queued meanwhile');
      session.stop();
      const problem = await within(first, `the setup waiting on ${dep}`);
      assert.equal(problem?.reason, 'stopped');
      assert.equal(events.length, 0, 'nothing ran');
      assert.equal(server.modelCalls.length, 0);
      assert.equal(session.isBusy, false);
      assert.equal(session.queue.state.held?.kind, 'stopped');
      assert.equal(session.queue.state.items[0]?.text, 'queued meanwhile');

      hang = false;
      assert.equal(await session.submit('second, answered'), undefined);
      await within(waitDone(1), 'the second prompt');
      const said = events.filter((event) => event.type === 'user_message').map((event) => event.text);
      assert.deepEqual(said, ['second, answered']);
    });
  }
});

describe('attack: Ctrl+C in the CLI while the team database does not answer', function () {
  this.timeout(TEST_TIMEOUT_MS);

  it('a PostgreSQL address that accepts connections and never says a word', async () => {
    const sockets: net.Socket[] = [];
    let connections = 0;
    const silent = net.createServer((socket) => {
      connections++;
      sockets.push(socket);
      socket.on('error', () => undefined);
    });
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as net.AddressInfo).port;
    const model = await FakeModelServer.start({ scenario: { name: 's', turns: [{ text: 'never asked' }] } });
    try {
      const cli = startCli(
        [
          '--store',
          tempFolder('team-store'),
          '--provider',
          'openai-compatible',
          '--base-url',
          model.openAiBaseUrl,
          'hi',
        ],
        {
          cwd: tempFolder('team-ws'),
          env: {
            OPENAGENT_TEAM_DATABASE_URL: `postgresql://oa@127.0.0.1:${port}/team`,
            OPENAGENT_TEAM_MEMBER: 'attacker@example.com',
          },
        },
      );
      await eventually(() => connections > 0, 'the CLI to connect to the team database');
      interruptCli(cli);
      const ran = await within(cli.finished, 'the CLI');
      assert.equal(ran.code, 130, ran.stderr);
      assert.match(ran.stderr, /\(interrupted\)/);
      assert.equal(model.modelCalls.length, 0);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
      await model.close();
    }
  });
});
