import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConversationSession } from '../../../../src/core/session/conversation-session';
import type { AgentEvent } from '../../../../src/core/events/events';
import type { ModelSettings } from '../../../../src/core/llm/create-llm-client';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { loadScenario } from '../../../fixtures/fake-model-server/scenario';
import { waitUntil } from '../../../harness/patience';
import { readFileTool, writeFileTool } from '../agent/loop-harness';
import { sessionOn } from './session-harness';
import { ChildProcessRunner } from '../../../../src/node/child-process-runner';

function waitForEvent(session: ConversationSession, type: AgentEvent['type']): Promise<AgentEvent> {
  return new Promise((resolve) => {
    const stop = session.onEvent((event) => {
      if (event.type === type) {
        stop();
        resolve(event);
      }
    });
  });
}

describe('ConversationSession', () => {
  let server: FakeModelServer;
  let settings: ModelSettings;
  let keys: Record<string, string>;
  let session: ConversationSession;
  let ids: number;

  beforeEach(async () => {
    server = await FakeModelServer.start({ scenario: loadScenario('hello') });
    settings = { provider: 'anthropic', model: 'fake-model', baseUrl: server.anthropicBaseUrl };
    keys = {};
    ids = 0;
    session = new ConversationSession({
      readSettings: () => settings,
      secrets: { getApiKey: async (provider) => keys[provider] },
      clock: { now: () => 0 },
      systemPrompt: () => 'sys',
      newId: () => `c${++ids}`,
    });
  });
  afterEach(() => server.close());

  it('returns a setup problem instead of starting when there is no key', async () => {
    const problem = await session.submit('hello');
    assert.equal(problem?.reason, 'missing_api_key');
    assert.equal(session.history.length, 0);
    assert.equal(server.modelCalls.length, 0);
  });

  it('sends the remembered prompt once the key is set and retry is asked for', async () => {
    await session.submit('hello');
    keys.anthropic = 'sk-now-set';
    const done = waitForEvent(session, 'done');
    assert.equal(await session.retry(), undefined);
    await done;
    assert.equal(server.modelCalls.length, 1);
  });

  it('keeps the events of the current conversation for surfaces that open late', async () => {
    keys.anthropic = 'k';
    const done = waitForEvent(session, 'done');
    await session.submit('hello');
    await done;
    assert.equal(session.history[0]?.type, 'user_message');
    assert.equal(session.history.at(-1)?.type, 'done');
  });

  it('applies a provider change to the next prompt of the same conversation', async () => {
    keys.anthropic = 'k';
    let done = waitForEvent(session, 'done');
    await session.submit('hello');
    await done;
    settings = { provider: 'openai-compatible', model: 'fake-model', baseUrl: server.openAiBaseUrl };
    done = waitForEvent(session, 'done');
    await session.submit('again');
    await done;
    assert.deepEqual(
      server.modelCalls.map((call) => call.protocol),
      ['anthropic', 'openai'],
    );
    assert.ok(session.history.every((event) => event.conversationId === 'c1'));
  });

  it('starts a new conversation after reset and tells its listeners', async () => {
    keys.anthropic = 'k';
    let resets = 0;
    session.onReset(() => resets++);
    const done = waitForEvent(session, 'done');
    await session.submit('hello');
    await done;
    session.reset();
    assert.equal(resets, 1);
    assert.equal(session.history.length, 0);
    const next = waitForEvent(session, 'user_message');
    await session.submit('hello');
    assert.equal((await next).conversationId, 'c2');
  });

  it('redirects the run when a prompt is sent now while it works', async () => {
    keys.anthropic = 'k';
    server.setScenario({
      name: 'slow',
      turns: [
        { text: 'abcdefghijklmnop', chunkSize: 1, delayMs: 40 },
        { match: 'two', text: 'Redirected.' },
      ],
    });
    const done = waitForEvent(session, 'done');
    await session.submit('one');
    await waitForEvent(session, 'text_delta');
    assert.equal(await session.sendNow('two'), undefined);
    await done;
    assert.ok(session.history.some((event) => event.type === 'interrupted' && event.feedback === 'two'));
    assert.equal(server.modelCalls.length, 2);
  });
});

describe('ConversationSession in an untrusted workspace', () => {
  it('offers only read-only tools, and refuses a writing call the model makes anyway', async () => {
    const server = await FakeModelServer.start({
      scenario: {
        name: 'untrusted',
        turns: [
          { toolCalls: [{ id: 'w', name: 'write_file', arguments: { path: 'x', content: 'y' } }] },
          { text: 'ok' },
        ],
      },
    });
    let trusted = false;
    const { session } = sessionOn(server, {
      tools: () => [readFileTool, writeFileTool],
      approvals: { request: async () => ({ approved: true, source: 'user' }) },
      isTrusted: () => trusted,
    });
    try {
      const done = waitForEvent(session, 'done');
      await session.submit('write x');
      await done;
      const offered = (server.modelCalls[0]?.body as { tools: Array<{ name: string }> }).tools.map((tool) => tool.name);
      assert.ok(offered.includes('read_file'));
      assert.ok(!offered.includes('write_file'));
      assert.match(JSON.stringify(server.modelCalls[1]?.body), /no tool named \\"write_file\\" available now/);
      trusted = true;
      server.setScenario({ name: 'trusted', turns: [{ text: 'now trusted' }] });
      const again = waitForEvent(session, 'done');
      await session.submit('and now?');
      await again;
      assert.ok(
        (server.modelCalls[2]?.body as { tools: Array<{ name: string }> }).tools.some(
          (tool) => tool.name === 'write_file',
        ),
        'trust granted later applies to the next prompt',
      );
    } finally {
      await server.close();
    }
  });
});

describe('ConversationSession background jobs', () => {
  it('reports a finished job as an event, and kills what still runs when the user starts over', async () => {
    const server = await FakeModelServer.start({
      scenario: {
        name: 'jobs',
        turns: [
          {
            toolCalls: [
              { id: 'b1', name: 'background_run', arguments: { command: 'echo built' } },
              { id: 'b2', name: 'background_run', arguments: { command: 'sleep 30; touch never' } },
            ],
          },
          { text: 'started' },
        ],
      },
    });
    const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-jobs-'));
    const { session } = sessionOn(server, {
      clock: { now: () => Date.now() },
      approvals: { request: async () => ({ approved: true, source: 'user' }) },
      processRunner: new ChildProcessRunner(),
      workspaceRoot: () => folder,
    });
    try {
      const finished = waitForEvent(session, 'background_result');
      await session.submit('build in the background');
      const event = await finished;
      assert.equal(event.type === 'background_result' && event.output.trim(), 'built');
      assert.equal(event.type === 'background_result' && event.exitCode, 0);
      session.reset();
      await session.dispose();
      // Killed, the process is gone a moment later (however loaded the machine).
      await waitUntil(
        () => !execFileSync('ps', ['-eo', 'args']).toString().includes('sleep 30; touch never'),
        'the second job to be killed with its conversation',
      );
      assert.equal(fs.existsSync(path.join(folder, 'never')), false);
    } finally {
      await server.close();
    }
  });
});
