import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { ConversationSession } from '../../../src/core/session/conversation-session';
import type { AgentEvent } from '../../../src/core/events/events';
import type { ApprovalGate } from '../../../src/core/policy/approval';
import { ChatController } from '../../../src/host/chat/chat-controller';
import { PanelController } from '../../../src/host/panel/panel-controller';
import type { HostToPanel, HostToWebview, McpServerStatusMessage } from '../../../src/protocol/messages';
import { noActions } from '../../fixtures/fake-chat-host';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import type { ScenarioInput } from '../../fixtures/fake-model-server/scenario';
import { readFileTool, writeFileTool } from '../core/agent/loop-harness';

/** A key with no recognisable shape: only knowing it lets tracing redact it. */
const API_KEY = 'plain-panel-key-0123456789';

/** A webview that records what the host posts and lets the test speak for its script. */
class RecordingWebview<Message> {
  readonly posts: Message[] = [];
  private readonly listeners = new Set<(message: unknown) => void>();

  onDidReceiveMessage(listener: (message: unknown) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  postMessage(message: Message): Promise<boolean> {
    // Copied as a real webview message is: nothing the host does later can change it.
    this.posts.push(structuredClone(message));
    return Promise.resolve(true);
  }

  send(message: unknown): void {
    for (const listener of this.listeners) listener(message);
  }

  events(): AgentEvent[] {
    return this.posts.flatMap((post) => {
      const message = post as { type: string; events?: AgentEvent[] };
      return message.type === 'agent_events' ? (message.events ?? []) : [];
    });
  }
}

const asWebview = (webview: RecordingWebview<unknown>) => webview as unknown as vscode.Webview;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const WRITE_THEN_ANSWER: ScenarioInput = {
  name: 'write-then-answer',
  turns: [
    {
      text: 'Writing it.',
      toolCalls: [{ id: 'toolu_w', name: 'write_file', arguments: { path: 'notes/a.md', content: '# A' } }],
      usage: { input: 300, output: 40, cacheRead: 100, cacheWrite: 50 },
    },
    { text: 'Done.', usage: { input: 420, output: 9 } },
  ],
};

describe('developer panel controller (real session, fake model server)', () => {
  let server: FakeModelServer;
  let session: ConversationSession;
  let asked: string[];

  beforeEach(async () => {
    server = await FakeModelServer.start({ scenario: WRITE_THEN_ANSWER });
    asked = [];
    // The user's gate: records the question and approves.
    const approvals: ApprovalGate = {
      request: async (request) => {
        asked.push(request.toolName);
        return { approved: true, source: 'user' };
      },
    };
    let ids = 0;
    session = new ConversationSession({
      readSettings: () => ({ provider: 'anthropic', model: 'claude-haiku-4-5', baseUrl: server.anthropicBaseUrl }),
      secrets: { getApiKey: async () => API_KEY },
      clock: { now: () => Date.now() },
      // A preset that (wrongly) quotes the key: the trace of the request must not.
      systemPrompt: () => `You are a test agent. Deploy key: ${API_KEY}.`,
      newId: () => `conv-${++ids}`,
      tools: () => [readFileTool, writeFileTool],
      approvals,
    });
  });
  afterEach(async () => {
    await session.dispose();
    await server.close();
  });

  async function runToDone(prompt: string): Promise<void> {
    const finished = new Promise<void>((resolve) => {
      const stop = session.onEvent((event) => {
        if (event.type === 'done' || event.type === 'error') {
          stop();
          resolve();
        }
      });
    });
    assert.equal(await session.submit(prompt), undefined);
    await finished;
    await sleep(40); // the last per-frame batch
  }

  it('posts nothing before the ready handshake, then the switches and the live events', async () => {
    const webview = new RecordingWebview<HostToPanel>();
    const panel = new PanelController(asWebview(webview), session);
    session.switches.setTracing(true);
    assert.deepEqual(webview.posts, [], 'nothing before the webview says it is ready');
    assert.equal(panel.isReady, false);

    webview.send({ type: 'panel_ready' });
    assert.equal(panel.isReady, true);
    assert.deepEqual(webview.posts, [
      { type: 'panel_reset' },
      { type: 'toggles_change', toggles: { autoApprove: false, planMode: false, tracing: true, teams: false } },
    ]);
    await runToDone('write a note');
    assert.deepEqual(
      webview.events().map((event) => event.seq),
      session.history.map((event) => event.seq),
      'the panel gets every event, text deltas included, in order',
    );
    panel.dispose();
  });

  it('watches the same conversation as the chat, and a panel opened late catches up', async () => {
    const chatWebview = new RecordingWebview<HostToWebview>();
    const chat = new ChatController(asWebview(chatWebview), session, noActions);
    chatWebview.send({ type: 'webview_ready' });
    const webview = new RecordingWebview<HostToPanel>();
    const panel = new PanelController(asWebview(webview), session);
    webview.send({ type: 'panel_ready' });
    await runToDone('write a note');

    const withoutText = (events: AgentEvent[]) =>
      events.filter((event) => event.type !== 'text_delta').map((event) => `${event.seq}:${event.type}`);
    const textOf = (events: AgentEvent[]) =>
      events.map((event) => (event.type === 'text_delta' ? event.text : '')).join('');
    assert.deepEqual(withoutText(webview.events()), withoutText(chatWebview.events()));
    assert.equal(textOf(webview.events()), textOf(chatWebview.events()));
    assert.equal(textOf(webview.events()), 'Writing it.Done.');

    // Opened after the run: the whole conversation arrives in one post after the handshake.
    const late = new RecordingWebview<HostToPanel>();
    const latePanel = new PanelController(asWebview(late), session);
    late.send({ type: 'panel_ready' });
    assert.equal(late.posts[0]?.type, 'panel_reset');
    assert.deepEqual(late.posts[1], { type: 'agent_events', events: session.history });
    chat.dispose();
    panel.dispose();
    latePanel.dispose();
  });

  it('shows the MCP servers’ status: not started, then each server as it changes', async () => {
    const webview = new RecordingWebview<HostToPanel>();
    const servers: { now?: McpServerStatusMessage[] } = {};
    const listeners = new Set<() => void>();
    const mcp = {
      statuses: () => servers.now,
      onDidChange: (listener: () => void) => (listeners.add(listener), () => listeners.delete(listener)),
    };
    const panel = new PanelController(asWebview(webview), session, mcp);
    webview.send({ type: 'panel_ready' });
    assert.deepEqual(webview.posts.at(-1), { type: 'mcp_status', started: false, servers: [] });
    servers.now = [
      { name: 'everything', transport: 'stdio', state: 'connected', toolCount: 13 },
      { name: 'broken', transport: 'http', state: 'error', toolCount: 0, error: 'fetch failed' },
    ];
    for (const listener of listeners) listener();
    assert.deepEqual(webview.posts.at(-1), { type: 'mcp_status', started: true, servers: servers.now });
    panel.dispose();
    assert.equal(listeners.size, 0, 'the panel stops listening when it closes');
  });

  it('drops malformed messages from the panel and changes nothing', async () => {
    const webview = new RecordingWebview<HostToPanel>();
    const panel = new PanelController(asWebview(webview), session);
    for (const message of [
      null,
      'panel_ready',
      { type: 'toggle_set', toggle: 'tracing', on: 'true' },
      { type: 'toggle_set', toggle: 'teams', on: true },
      JSON.parse('{"type":"toggle_set","toggle":"auto_approve","on":true,"__proto__":{"x":1}}'),
      { type: 'panel_ready', extra: true },
    ]) {
      webview.send(message);
    }
    assert.deepEqual(webview.posts, []);
    assert.equal(panel.isReady, false);
    assert.equal(session.switches.autoApprove, false);
    assert.equal(session.switches.tracing, false);
    panel.dispose();
  });

  it('auto-approve from the panel approves this conversation’s calls as a session rule', async () => {
    const webview = new RecordingWebview<HostToPanel>();
    const panel = new PanelController(asWebview(webview), session);
    webview.send({ type: 'panel_ready' });
    webview.send({ type: 'toggle_set', toggle: 'auto_approve', on: true });
    assert.deepEqual(webview.posts.at(-1), {
      type: 'toggles_change',
      toggles: { autoApprove: true, planMode: false, tracing: false, teams: false },
    });
    await runToDone('write a note');
    assert.deepEqual(asked, [], 'the user was not asked');
    const decision = session.history.find((event) => event.type === 'tool_approval_result');
    assert.equal(decision?.type === 'tool_approval_result' && decision.source, 'session_rule');
    assert.equal(decision?.type === 'tool_approval_result' && decision.approved, true);

    // A new conversation starts with the switch off again, and the panel is told.
    session.reset();
    assert.equal(session.switches.autoApprove, false);
    const afterReset = webview.posts.slice(-2);
    assert.ok(afterReset.some((post) => post.type === 'panel_reset'));
    assert.ok(
      afterReset.some((post) => post.type === 'toggles_change' && !post.toggles.autoApprove && !post.toggles.tracing),
    );
    panel.dispose();
  });

  it('plan mode from the panel reaches the conversation (and the chat) as a plan_mode event', async () => {
    const webview = new RecordingWebview<HostToPanel>();
    const panel = new PanelController(asWebview(webview), session);
    webview.send({ type: 'panel_ready' });
    await runToDone('write a note');
    webview.send({ type: 'toggle_set', toggle: 'plan_mode', on: true });
    assert.equal(session.planModeActive, true);
    await sleep(40);
    assert.equal(session.history.at(-1)?.type, 'plan_mode');
    const toggles = webview.posts.filter((post) => post.type === 'toggles_change');
    assert.equal(toggles.at(-1)?.type === 'toggles_change' && toggles.at(-1)?.toggles.planMode, true);
    const events = webview.events();
    assert.deepEqual(events.at(-1), session.history.at(-1));
    panel.dispose();
  });

  it('tracing switches live per model call, pairs requests with responses, and never lets the key reach the panel', async () => {
    server.setScenario({
      name: 'three calls',
      turns: [
        { toolCalls: [{ id: 'toolu_r', name: 'read_file', arguments: { path: 'src/app.ts' } }] },
        { text: 'It exports answer.' },
        { text: 'Still 42.' },
      ],
    });
    const webview = new RecordingWebview<HostToPanel>();
    const panel = new PanelController(asWebview(webview), session);
    webview.send({ type: 'panel_ready' });
    // Off: the first call is not traced; switched on from inside the run, the second is.
    const stop = session.onEvent((event) => {
      if (event.type === 'tool_call') webview.send({ type: 'toggle_set', toggle: 'tracing', on: true });
    });
    await runToDone('what does app.ts export?');
    stop();
    const traced = () =>
      webview.events().filter((event) => event.type === 'llm_request' || event.type === 'llm_response');
    assert.deepEqual(
      traced().map((event) => event.type),
      ['llm_request', 'llm_response'],
    );
    const [request, response] = traced();
    assert.equal(
      request?.type === 'llm_request' && request.requestId,
      response?.type === 'llm_response' && response.requestId,
    );
    assert.match(JSON.stringify(request), /Deploy key: \[REDACTED\]/);
    assert.match(JSON.stringify(response), /It exports answer\./);

    webview.send({ type: 'toggle_set', toggle: 'tracing', on: false });
    await runToDone('and now?');
    assert.equal(traced().length, 2, 'no traces once switched off');

    // The key was in use (the model server received it) and never reached the panel.
    assert.equal(server.modelCalls[0]?.headers.authorization, `Bearer ${API_KEY}`);
    assert.ok(!JSON.stringify(webview.posts).includes(API_KEY));
    panel.dispose();
  });
});
