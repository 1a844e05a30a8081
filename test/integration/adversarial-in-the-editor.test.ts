/**
 * The adversarial suite in the real editor (issue 15): links planted by a hostile repository,
 * protected paths and approvals that would show one command and run another, through the real
 * extension, its notifications and the fake model server. A workspace policy auto-approves
 * writes and commands, so anything that is not asked about would simply run.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentEvent } from '../../src/core/events/events';
import type { OpenAgentApi } from '../../src/extension';
import type { RecordedRequest } from '../fixtures/fake-model-server/server';
import {
  activateOpenAgent,
  answerQuickInput,
  clickDialog,
  clickNotification,
  FakeModelControl,
  sendChatPrompt,
  waitFor,
} from './helpers';

interface ToolResultBlock {
  type: string;
  tool_use_id?: string;
  content?: unknown;
  is_error?: boolean;
}

describe('adversarial: in the real editor', function () {
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const model = FakeModelControl.fromEnv('OPENAGENT_TEST_MODEL');
  const policyFile = path.join(root, '.openagent', 'agent.yaml');
  const POLICY =
    'tools:\n  bash:\n    allow: ["*"]\napprovals:\n  auto_approve: [write_file, edit_file, bash, read_only]\n';
  let api: OpenAgentApi;

  const untilIdleAfter = (count: number) => model.callsWhenIdle(api, count);
  function results(call: RecordedRequest): Map<string, ToolResultBlock> {
    const messages = (call.body as { messages: Array<{ content: unknown }> }).messages;
    return new Map(
      messages
        .flatMap((message) => (Array.isArray(message.content) ? (message.content as ToolResultBlock[]) : []))
        .filter((block) => block.type === 'tool_result')
        .map((block) => [block.tool_use_id!, block] as const),
    );
  }
  async function runScenario(name: string, calls: Array<{ id: string; name: string; arguments: object }>) {
    await model.setScenario({ name, turns: [{ toolCalls: calls }, { text: 'Done.' }], whenExhausted: 'echo' });
    await vscode.commands.executeCommand('openagent.newChat');
    await sendChatPrompt(name);
  }

  const events: AgentEvent[] = [];
  before(async () => {
    api = await activateOpenAgent();
    api.onDidEmitEvent((event) => events.push(event));
    await vscode.commands.executeCommand('openagent.focusChat');
    await waitFor(() => api.isChatViewReady, 'the chat webview to say it is ready');
    // The fake model server takes any key; the suite's files may run in any order.
    const keySet = vscode.commands.executeCommand('openagent.setApiKey');
    await answerQuickInput('API key', 'sk-ant-adversarial-suite-key');
    await keySet;
    fs.mkdirSync(path.dirname(policyFile), { recursive: true });
    fs.writeFileSync(policyFile, POLICY);
    fs.symlinkSync('.openagent', path.join(root, 'cfg'));
    fs.symlinkSync('..', path.join(root, 'up'));
    // No wait for the file watcher: each test starts a new conversation, which reads the policy first.
  });
  beforeEach(async () => {
    events.length = 0;
    await model.clearRequests();
  });
  after(() => {
    for (const name of ['.openagent', 'cfg', 'up', 'pwned-by-cr', 'pwned-by-glob'])
      fs.rmSync(path.join(root, name), { recursive: true, force: true });
  });

  it('a write through a planted link into .openagent asks in a modal warning, even auto-approved', async () => {
    await runScenario('link write', [
      { id: 'call_link', name: 'write_file', arguments: { path: 'cfg/agent.yaml', content: 'tools: {}\n' } },
    ]);
    // The modal dialog itself, as the user sees it: Deny.
    await clickDialog('OpenAgent wants to write cfg/agent.yaml — a protected path', 'Deny');
    const [, second] = await untilIdleAfter(2);
    const request = events.find((event) => event.type === 'tool_approval_request');
    assert.ok(request?.type === 'tool_approval_request' && request.warning === true);
    assert.match(
      request.reasons?.join(' ') ?? '',
      /cfg\/agent\.yaml is a protected path \(it leads to \.openagent\/agent\.yaml\)/,
    );
    assert.equal(results(second!).get('call_link')?.is_error, true, 'the model hears the write was denied');
    assert.equal(fs.readFileSync(policyFile, 'utf8'), POLICY, 'the policy is unchanged');
  });

  it('a write that leaves the workspace through a link is refused before anyone is asked', async () => {
    const outside = path.join(root, '..', 'openagent-adversarial-outside.txt');
    await runScenario('link out', [
      { id: 'call_out', name: 'write_file', arguments: { path: 'up/openagent-adversarial-outside.txt', content: 'x' } },
    ]);
    const [, second] = await untilIdleAfter(2);
    const result = results(second!).get('call_out');
    assert.equal(result?.is_error, true);
    assert.match(String(result?.content), /outside the workspace/);
    assert.equal(fs.existsSync(outside), false);
  });

  it('a command hiding a second one behind a carriage return asks, shown escaped; Deny runs nothing', async () => {
    await runScenario('spoof', [
      { id: 'call_cr', name: 'bash', arguments: { command: 'git status\rtouch pwned-by-cr' } },
    ]);
    await clickNotification('git status\\rtouch pwned-by-cr', 'Deny');
    const [, second] = await untilIdleAfter(2);
    assert.equal(results(second!).get('call_cr')?.is_error, true);
    assert.equal(fs.existsSync(path.join(root, 'pwned-by-cr')), false);
  });

  it('a command naming a protected path with a glob asks as a warning, whatever the policy allows', async () => {
    await runScenario('glob', [
      { id: 'call_glob', name: 'bash', arguments: { command: 'echo x > .openagen?/agent.yaml; touch pwned-by-glob' } },
    ]);
    await clickNotification('is a path decided only when it runs', 'Deny');
    await untilIdleAfter(2);
    assert.equal(fs.readFileSync(policyFile, 'utf8'), POLICY);
    assert.equal(fs.existsSync(path.join(root, 'pwned-by-glob')), false);
  });

  it('an allowed command runs confined in the OpenAgent terminal: it writes the workspace, not the system or home', async function () {
    // Not beside the workspace: it lives in /tmp here, which a confined command has its own of.
    const beside = '/usr/local/openagent-escape-probe';
    const home = path.join(os.homedir(), 'openagent-escape-probe');
    for (const file of [beside, home]) fs.rmSync(file, { force: true });
    // Paths computed inside node, so no word of the command names them: only the sandbox stops it.
    const command =
      "touch confined-made-this && node -e \"const fs = require('fs'), p = require('path'), os = require('os'); " +
      "fs.writeFileSync(p.join(os.homedir(), 'openagent-escape-probe'), 'x'); " +
      "fs.writeFileSync('/usr/local/openagent-escape-probe', 'x')\"";
    await runScenario('confined', [{ id: 'call_confined', name: 'bash', arguments: { command } }]);
    const [, second] = await untilIdleAfter(2);
    const result = results(second!).get('call_confined');
    try {
      assert.equal(fs.existsSync(path.join(root, 'confined-made-this')), true, JSON.stringify(result));
      if (!fs.existsSync('/usr/bin/bwrap')) this.skip(); // CI installs bubblewrap
      assert.equal(fs.existsSync(home), false, 'the home folder a confined command sees is a throw-away one');
      assert.equal(fs.existsSync(beside), false, 'outside the workspace is read-only');
      assert.match(String(result?.content), /read-only file system|EROFS/i);
    } finally {
      for (const file of [beside, home, path.join(root, 'confined-made-this')]) fs.rmSync(file, { force: true });
    }
  });
});
