/**
 * Issue 32, class 17: "Always This Session" (and every other standing answer: auto-approve, the
 * panel's switch, --yes, the CLI's "a", a policy's auto_approve) never answers for a call that
 * must be put to a person each time — a plan, a protected write, a secret read. Hostile
 * sequences through a real session on the fake model server, with the editor's real
 * notification gate (its `vscode` stood in for by a recorder of the questions) and the CLI's
 * real terminal gate.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import { Writable } from 'node:stream';
import type * as vscode from 'vscode';
import { Output } from '../../src/cli/output';
import { createStyle } from '../../src/cli/style';
import { ONCE_QUESTION, TerminalApprovalGate } from '../../src/cli/terminal-approval-gate';
import type { ApprovalGate } from '../../src/core/policy/approval';
import { parseAgentPolicy } from '../../src/core/policy/agent-policy';
import { AutoApprovalGate } from '../../src/core/policy/auto-approval';
import { policyOffers, toolPolicyFrom } from '../../src/core/policy/policy-rules';
import { createFileTools } from '../../src/core/tools/builtin/file-tools';
import type { ConversationSessionDeps } from '../../src/core/session/conversation-session';
import type { NotificationApprovalGate as Gate } from '../../src/host/approvals/notification-approval-gate';
import { PanelController } from '../../src/host/panel/panel-controller';
import { NodeWorkspace } from '../../src/node/node-workspace';
import { SecretFiles } from '../../src/node/secret-files';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { parseScenario, type ScenarioInput } from '../fixtures/fake-model-server/scenario';
import { sessionOn } from '../unit/core/session/session-harness';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const ALWAYS = 'Always This Session';
const APPROVE = 'Approve';
const DENY = 'Deny';

interface Shown {
  text: string;
  buttons: string[];
  modal: boolean;
}

/** The editor's notification API, standing in: records each question, answers with `choose`. */
const editor = {
  shown: [] as Shown[],
  choose: (_question: Shown): string | undefined => undefined,
};
function question(text: string, ...rest: unknown[]): Promise<string | undefined> {
  const options = typeof rest[0] === 'object' ? (rest.shift() as { modal?: boolean }) : {};
  const shown = { text, buttons: rest as string[], modal: options.modal === true };
  editor.shown.push(shown);
  return Promise.resolve(editor.choose(shown));
}
const standIn = { window: { showInformationMessage: question, showWarningMessage: question } };

/** The real NotificationApprovalGate, loaded with the stand-in in place of `vscode`. */
function notificationGate(): Gate {
  const internals = Module as unknown as { _load: (request: string, ...rest: unknown[]) => unknown };
  const load = internals._load;
  internals._load = function (request: string, ...rest: unknown[]) {
    return request === 'vscode' ? standIn : load.call(this, request, ...rest);
  };
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const loaded = require('../../src/host/approvals/notification-approval-gate') as {
      NotificationApprovalGate: new () => Gate;
    };
    return new loaded.NotificationApprovalGate();
  } finally {
    internals._load = load;
  }
}

const plan = (id: string, text: string) => ({ id, name: 'present_plan', arguments: { plan: text } });
const write = (id: string, file: string) => ({ id, name: 'write_file', arguments: { path: file, content: 'x\n' } });
const read = (id: string, file: string) => ({ id, name: 'read_file', arguments: { path: file } });

async function sessionWith(
  scenario: ScenarioInput,
  approvals: ApprovalGate,
  more: Partial<ConversationSessionDeps> = {},
) {
  const server = await FakeModelServer.start({ scenario: parseScenario(scenario) });
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-always-')));
  fs.writeFileSync(path.join(root, '.env'), 'TOKEN=marker-secret\n');
  const workspace = new NodeWorkspace(root);
  const harness = sessionOn(server, {
    workspace: () => workspace,
    tools: () => createFileTools(workspace),
    secretFiles: new SecretFiles().find,
    approvals,
    ...more,
  });
  return { server, root, ...harness };
}

/** What the model was told about a tool call, from the request after it. */
function toolResult(server: FakeModelServer, call: number, id: string): string {
  const messages = (server.modelCalls[call]?.body as { messages: Array<{ content: unknown }> }).messages;
  for (const message of messages) {
    if (!Array.isArray(message.content)) continue;
    for (const part of message.content as Array<{ type: string; tool_use_id?: string; content?: unknown }>)
      if (part.type === 'tool_result' && part.tool_use_id === id) return JSON.stringify(part.content);
  }
  return '';
}

describe('adversarial: standing answers never cover what must be asked each time (issue 32, class 17)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let gate: Gate;
  beforeEach(() => {
    gate = notificationGate();
    editor.shown = [];
  });

  it('"Always" on a plan, then a second plan: the second is shown and can be denied', async () => {
    // The user wants "Always" wherever it is offered; approves the first plan, denies the second.
    editor.choose = (shown) => (shown.buttons.includes(ALWAYS) ? ALWAYS : editor.shown.length === 1 ? APPROVE : DENY);
    const { server, session, run } = await sessionWith(
      {
        name: 'two plans',
        turns: [
          { toolCalls: [plan('p1', '1. first plan p1')] },
          { text: 'Carried out.' },
          { toolCalls: [plan('p2', '1. second plan p2')] },
          { text: 'I will revise it.' },
        ],
      },
      gate,
      { planModeDefault: () => true },
    );
    try {
      await run('plan one');
      assert.equal(session.planModeActive, false, 'the first plan was approved');
      session.setPlanMode(true);
      await run('plan two');
      const plans = editor.shown.filter((shown) => /carry out its plan/.test(shown.text));
      assert.equal(plans.length, 2, 'both plans were put to the user');
      for (const shown of plans) assert.ok(!shown.buttons.includes(ALWAYS), `offered: ${shown.buttons.join(', ')}`);
      assert.equal(session.planModeActive, true, 'the second plan was denied: plan mode stays on');
      assert.match(toolResult(server, 3, 'p2'), /User denied/);
    } finally {
      await session.dispose();
      await server.close();
    }
  });

  it('a spoofed "Always" answer for a plan (not offered) approves that plan once, never the next', async () => {
    let answers = 0;
    editor.choose = () => (++answers === 1 ? ALWAYS : DENY);
    const { server, session, run } = await sessionWith(
      {
        name: 'spoofed always',
        turns: [
          { toolCalls: [plan('p1', '1. first')] },
          { text: 'Done.' },
          { toolCalls: [plan('p2', '1. second')] },
          { text: 'Revising.' },
        ],
      },
      gate,
      { planModeDefault: () => true },
    );
    try {
      await run('plan one');
      session.setPlanMode(true);
      await run('plan two');
      assert.equal(editor.shown.length, 2);
      assert.equal(session.planModeActive, true);
      assert.match(toolResult(server, 3, 'p2'), /User denied/);
    } finally {
      await session.dispose();
      await server.close();
    }
  });

  it('"Always" on a plain write, then a protected write and a secret read: both asked, no "Always"', async () => {
    editor.choose = (shown) => (shown.buttons.includes(ALWAYS) ? ALWAYS : DENY);
    const { server, root, session, run } = await sessionWith(
      {
        name: 'write then protected',
        turns: [
          { toolCalls: [write('w1', 'notes.md')] },
          { toolCalls: [write('w2', 'package.json')] },
          { toolCalls: [write('w3', '.openagent/agent.yaml')] },
          { toolCalls: [read('r1', '.env')] },
          { toolCalls: [read('r2', '.env')] },
          { toolCalls: [write('w4', 'more.md')] },
          { text: 'Done.' },
        ],
      },
      gate,
    );
    try {
      await run('write things');
      // notes.md (Always), package.json, agent.yaml, .env twice; more.md is covered by the Always.
      assert.equal(editor.shown.length, 5, editor.shown.map((shown) => shown.text).join('\n'));
      assert.ok(editor.shown[0]!.buttons.includes(ALWAYS));
      for (const shown of editor.shown.slice(1)) assert.ok(!shown.buttons.includes(ALWAYS), shown.text);
      assert.ok(editor.shown[1]!.modal && editor.shown[2]!.modal, 'protected paths ask in a modal');
      assert.ok(!fs.existsSync(path.join(root, 'package.json')));
      assert.ok(!fs.existsSync(path.join(root, '.openagent', 'agent.yaml')));
      assert.doesNotMatch(JSON.stringify(server.modelCalls.map((call) => call.body)), /marker-secret/);
      assert.ok(fs.existsSync(path.join(root, 'more.md')), 'the Always still covers plain writes');
    } finally {
      await session.dispose();
      await server.close();
    }
  });

  it('the panel webview turning auto-approve on, and a policy auto-approving "*", still show the plan', async () => {
    editor.choose = () => DENY;
    const policy = parseAgentPolicy('approvals:\n  auto_approve: ["*", present_plan, read_only]\n').policy;
    const { server, session, run } = await sessionWith(
      {
        name: 'auto-approved plan',
        turns: [{ toolCalls: [plan('p1', '1. sneak')] }, { text: 'Revising.' }],
      },
      gate,
      {
        planModeDefault: () => true,
        toolPolicy: { ...toolPolicyFrom(() => policy), offers: (name) => policyOffers(policy, name) },
      },
    );
    const listeners: Array<(message: unknown) => void> = [];
    const webview = {
      postMessage: () => Promise.resolve(true),
      onDidReceiveMessage: (listener: (message: unknown) => void) => (listeners.push(listener), { dispose() {} }),
    };
    const panel = new PanelController(webview as unknown as vscode.Webview, session);
    try {
      for (const listener of listeners) listener({ type: 'panel_ready' });
      for (const listener of listeners) listener({ type: 'toggle_set', toggle: 'auto_approve', on: true });
      assert.equal(session.switches.autoApprove, true);
      await run('plan it');
      assert.equal(editor.shown.length, 1, 'the plan was put to the user');
      assert.equal(session.planModeActive, true);
      assert.match(toolResult(server, 1, 'p1'), /User denied/);
    } finally {
      panel.dispose();
      await session.dispose();
      await server.close();
    }
  });

  it('the CLI: "a" on a write approves the rest, but a later plan is asked [y]es / [n]o and "a" is refused', async () => {
    let text = '';
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        text += chunk.toString();
        done();
      },
    });
    const questions: string[] = [];
    const answers = ['a', 'a', 'always', 'n', ''];
    const approveAll = { on: false };
    const cliGate = new AutoApprovalGate(
      new TerminalApprovalGate({
        output: new Output(sink, sink, sink, createStyle(false)),
        ask: async (asked) => {
          questions.push(asked);
          const answer = answers.shift();
          return answer === undefined ? { kind: 'eof' } : { kind: 'line', text: answer };
        },
        workspace: () => undefined,
        approveRest: () => (approveAll.on = true),
      }),
      () => approveAll.on,
    );
    const { server, session, run } = await sessionWith(
      {
        name: 'cli always then plan',
        turns: [
          { toolCalls: [write('w1', 'notes.md')] },
          { toolCalls: [write('w2', 'other.md')] },
          { text: 'Done.' },
          { toolCalls: [plan('p1', '1. sneak')] },
          { text: 'Revising.' },
        ],
      },
      cliGate,
    );
    try {
      await run('write');
      session.setPlanMode(true);
      await run('plan');
      assert.equal(questions[0], 'Approve? [y]es / [n]o / [a]lways this session: ');
      assert.deepEqual(questions.slice(1, 4), [ONCE_QUESTION, ONCE_QUESTION, ONCE_QUESTION]);
      assert.match(text, /asked every time/);
      assert.equal(session.planModeActive, true);
      assert.match(toolResult(server, 4, 'p1'), /User denied/);
    } finally {
      await session.dispose();
      await server.close();
    }
  });
});
