/**
 * The palette commands of SPEC 1.4 that talk to the model or ask questions, run as a user runs
 * them: each command by its id, its quick picks, input boxes, save dialogs and notifications
 * answered in the real workbench through the launcher, and the effect checked where a user
 * would see it — a file, a setting, the commit box — or in what the fake model was sent.
 * The suite's settings name a fake model server and no API key exists anywhere: the first test
 * sets one with "Set API Key" and the others use it.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { OpenAgentApi } from '../../src/extension';
import type { RecordedRequest } from '../fixtures/fake-model-server/server';
import {
  activateOpenAgent,
  closeAllEditors,
  answerQuickInput,
  clickNotification,
  FakeModelControl,
  sendChatPrompt,
  waitFor,
} from './helpers';

const KEY = 'sk-ant-typed-into-set-api-key';

interface AnthropicBody {
  system?: string | Array<{ text: string }>;
  messages: Array<{ role: string; content: string | Array<{ type: string; text?: string }> }>;
}

const body = (request: RecordedRequest) => request.body as AnthropicBody;

function systemText(request: RecordedRequest): string {
  const system = body(request).system ?? '';
  return typeof system === 'string' ? system : system.map((block) => block.text).join('\n');
}

function messageText(message: AnthropicBody['messages'][number] | undefined): string {
  if (!message) return '';
  if (typeof message.content === 'string') return message.content;
  return message.content.map((block) => block.text ?? '').join('\n');
}

const lastUserText = (request: RecordedRequest) =>
  messageText(
    body(request)
      .messages.filter((message) => message.role === 'user')
      .at(-1),
  );

describe('palette commands with the model', function () {
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const model = FakeModelControl.fromEnv('OPENAGENT_TEST_MODEL');
  let api: OpenAgentApi;

  const untilIdleAfter = (count: number) => model.callsWhenIdle(api, count);

  async function selectInEditor(relativePath: string, fromLine: number, toLine: number): Promise<string> {
    const document = await vscode.workspace.openTextDocument(path.join(root, relativePath));
    const editor = await vscode.window.showTextDocument(document);
    editor.selection = new vscode.Selection(fromLine, 0, toLine, 0);
    return document.getText(editor.selection);
  }

  before(async () => {
    api = await activateOpenAgent();
    await vscode.commands.executeCommand('openagent.focusChat');
    await waitFor(() => api.isChatViewReady, 'the chat webview to say it is ready');
  });
  beforeEach(() => model.clearRequests());
  afterEach(() => closeAllEditors());

  it('Set API Key asks for the key and keeps it in SecretStorage: the model calls carry it', async () => {
    const done = vscode.commands.executeCommand('openagent.setApiKey');
    await answerQuickInput('API key', KEY);
    await done;
    await model.setScenario({ name: 'hello', turns: [{ text: 'Hello from the fake model.' }], whenExhausted: 'echo' });
    await sendChatPrompt('key probe: say hello');
    const [call] = await untilIdleAfter(1);
    // SDK versions send the key as x-api-key or as a bearer token.
    const sent = call!.headers['x-api-key'] ?? call!.headers.authorization?.replace(/^Bearer /, '');
    assert.equal(sent, KEY);
    const settings = JSON.stringify(vscode.workspace.getConfiguration('openagent'));
    assert.ok(!settings.includes(KEY), 'the key is in no setting');
  });

  it('Choose Preset sets the system prompt of new conversations; New Chat starts one', async () => {
    const config = () => vscode.workspace.getConfiguration('openagent');
    try {
      const done = vscode.commands.executeCommand('openagent.choosePreset');
      await answerQuickInput('Choose the preset', 'work', { pick: true });
      await done;
      assert.equal(config().get('preset'), 'work');
      const previous = api.conversationId;
      assert.ok(previous, 'the first test left a conversation on screen');
      await vscode.commands.executeCommand('openagent.newChat');
      assert.equal(api.conversationId, undefined, 'New Chat leaves the old conversation');
      await sendChatPrompt('preset probe');
      const [call] = await untilIdleAfter(1);
      assert.match(systemText(call!), /assistant working inside the user's editor/, 'the "work" preset');
      assert.equal(body(call!).messages.length, 1, 'a new conversation: nothing before the prompt');
      assert.notEqual(api.conversationId, previous);
    } finally {
      await config().update('preset', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('Add Skill and Open Memory write the workspace’s files; rules, memory and skills reach a new conversation', async () => {
    const created = [
      path.join(root, 'AGENTS.md'),
      path.join(root, '.openagent', 'memory.md'),
      path.join(root, '.openagent', 'skills'),
    ];
    try {
      const addSkill = vscode.commands.executeCommand('openagent.addSkill');
      await answerQuickInput('The skill’s name', 'release-checklist');
      await answerQuickInput('When should the agent use it?', 'Use when preparing a release.');
      await addSkill;
      const skillFile = path.join(root, '.openagent', 'skills', 'release-checklist', 'SKILL.md');
      await waitFor(() => vscode.window.activeTextEditor?.document.uri.fsPath === skillFile, 'the new SKILL.md open');
      assert.match(
        fs.readFileSync(skillFile, 'utf8'),
        /^---\nname: release-checklist\ndescription: "Use when preparing a release."\n---\n/,
      );

      const openMemory = vscode.commands.executeCommand('openagent.openMemory');
      await answerQuickInput('Open which memory?', 'Workspace memory', { pick: true });
      await openMemory;
      const memoryFile = path.join(root, '.openagent', 'memory.md');
      assert.equal(vscode.window.activeTextEditor?.document.uri.fsPath, memoryFile);
      fs.appendFileSync(memoryFile, '- The release branch is called stable.\n');
      fs.writeFileSync(path.join(root, 'AGENTS.md'), 'Answer in one sentence.\n');

      await vscode.commands.executeCommand('openagent.newChat');
      await sendChatPrompt('knowledge probe');
      const [call] = await untilIdleAfter(1);
      const system = systemText(call!);
      assert.match(system, /# Project rules[\s\S]*## AGENTS\.md\nAnswer in one sentence\./);
      assert.match(system, /# Memory[\s\S]*The release branch is called stable\./);
      assert.match(system, /# Skills[\s\S]*- code-review: [\s\S]*- release-checklist: Use when preparing a release\./);
      const tools = (call!.body as { tools?: Array<{ name: string }> }).tools?.map((tool) => tool.name) ?? [];
      for (const name of ['memory_read', 'memory_append', 'list_skills', 'read_skill'])
        assert.ok(tools.includes(name), name);
    } finally {
      for (const file of created) fs.rmSync(file, { recursive: true, force: true });
    }
  });

  it('Ask About Selection sends the typed question with the selected code', async () => {
    const selected = await selectInEditor('src/greet.js', 0, 3);
    assert.ok(selected.trim().length > 10, 'something is selected');
    const done = vscode.commands.executeCommand('openagent.askAboutSelection');
    await answerQuickInput('Ask OpenAgent about the selected code', 'Why is the greeting built this way?');
    await done;
    const [call] = await untilIdleAfter(1);
    const sent = lastUserText(call!);
    assert.match(sent, /Why is the greeting built this way\?/);
    assert.ok(sent.includes(selected), 'the selected code went with the question');
    assert.match(sent, /src\/greet\.js/, 'with its file');
  });

  it('Explain / Fix / Refactor / Write Tests for Selection each send their request with the selection', async () => {
    const selected = await selectInEditor('src/greet.js', 0, 3);
    const expected: Array<[string, RegExp]> = [
      ['openagent.explainSelection', /^Explain what this code does/],
      ['openagent.fixSelection', /^Find and fix the bugs in this code/],
      ['openagent.refactorSelection', /^Refactor this code/],
      ['openagent.writeTestsForSelection', /^Write tests for this code/],
    ];
    for (const [index, [command, request]] of expected.entries()) {
      await vscode.commands.executeCommand(command);
      const calls = await untilIdleAfter(index + 1);
      const sent = lastUserText(calls[index]!);
      assert.match(sent, request, command);
      assert.ok(sent.includes(selected), `${command} attached the selection`);
    }
  });

  it('Add File to Chat puts an @file mention in the composer; the file goes with the prompt', async () => {
    await vscode.commands.executeCommand('openagent.addFileToChat', vscode.Uri.file(path.join(root, 'README.md')));
    await sendChatPrompt('summarise this file', { append: true });
    const [call] = await untilIdleAfter(1);
    const sent = lastUserText(call!);
    assert.match(sent, /^@file:README\.md summarise this file/);
    assert.ok(sent.includes(fs.readFileSync(path.join(root, 'README.md'), 'utf8').trim()), 'the README went along');
  });

  it('Compact Conversation summarises with the typed focus; the next prompt continues from the summary', async () => {
    await model.setScenario({
      name: 'summary',
      turns: [{ text: 'SUMMARY: the user asked about greet.js and the README.' }],
      whenExhausted: 'echo',
    });
    const done = vscode.commands.executeCommand('openagent.compact');
    await answerQuickInput('what should the summary keep', 'the greeting');
    await done;
    const [summarise] = await untilIdleAfter(1);
    assert.match(systemText(summarise!), /compress a coding agent's conversation/);
    assert.match(JSON.stringify(body(summarise!).messages), /Focus the summary on: the greeting/);

    await sendChatPrompt('after compaction');
    const calls = await untilIdleAfter(2);
    const history = body(calls[1]!).messages;
    assert.match(messageText(history[0]), /^\[This conversation was compacted/);
    assert.match(messageText(history[0]), /SUMMARY: the user asked about greet\.js/);
    assert.ok(!JSON.stringify(history).includes('summarise this file'), 'earlier prompts are only in the summary');
  });

  it('Export Conversation writes the conversation as markdown where the save dialog says', async () => {
    const target = path.join(root, 'exported-conversation.md');
    const done = vscode.commands.executeCommand('openagent.exportConversation');
    await answerQuickInput('Export the conversation as', 'Markdown', { pick: true });
    await answerQuickInput('Export the conversation to', target);
    await done;
    const markdown = fs.readFileSync(target, 'utf8');
    assert.match(markdown, /after compaction/, 'the last prompt');
    assert.match(markdown, /^# /m, 'a markdown title');
    fs.rmSync(target);
  });

  it('Export Audit Log saves this conversation’s records as JSONL and as CSV; Show Audit Log opens the panel', async () => {
    const jsonl = path.join(root, 'audit.jsonl');
    const csv = path.join(root, 'audit.csv');
    const exportAs = async (format: string, target: string) => {
      const done = vscode.commands.executeCommand('openagent.exportAuditLog');
      await answerQuickInput('Export the audit trail of', 'This conversation', { pick: true });
      await answerQuickInput('Export the audit trail as', format, { pick: true });
      await answerQuickInput(`Save the audit trail as ${format}`, target);
      await done;
      await waitFor(() => fs.existsSync(target), `the ${format} file`);
    };
    await exportAs('JSONL', jsonl);
    const lines = fs
      .readFileSync(jsonl, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { kind: string; conversationId: string; data: Record<string, unknown> });
    // This conversation: the preset probe, the selection prompts, the file prompt, the summary
    // and the prompt after it — each model call with the provider and model that served it.
    const modelCalls = lines.filter((line) => line.kind === 'model_call');
    assert.ok(modelCalls.length >= 8, JSON.stringify(lines.map((line) => line.kind)));
    assert.ok(
      modelCalls.every((line) => line.data.provider === 'anthropic' && typeof line.data.latencyMs === 'number'),
    );
    assert.ok(
      lines.every((line) => line.conversationId === api.conversationId),
      'only this conversation',
    );
    await exportAs('CSV', csv);
    const rows = fs.readFileSync(csv, 'utf8').trim().split('\n');
    assert.equal(rows.length, lines.length + 1, 'a header and a row per record');
    fs.rmSync(csv);
    fs.rmSync(jsonl);

    await vscode.commands.executeCommand('openagent.showAuditLog');
    await waitFor(() => api.isDeveloperPanelReady, 'the developer panel');
  });

  it('Restart MCP Servers connects the configured servers; their tools ask for approval and reach the model', async () => {
    const everything = path.resolve(
      __dirname,
      '../../..',
      'node_modules/@modelcontextprotocol/server-everything/dist/index.js',
    );
    const config = vscode.workspace.getConfiguration('openagent');
    try {
      await config.update(
        'mcpServers',
        { everything: { command: process.execPath, args: [everything, 'stdio'] } },
        vscode.ConfigurationTarget.Global,
      );
      await vscode.commands.executeCommand('openagent.restartMcpServers');
      await model.setScenario({
        name: 'mcp echo',
        turns: [
          { toolCalls: [{ id: 'call_echo', name: 'mcp__everything__echo', arguments: { message: 'through MCP' } }] },
          { text: 'The server echoed it.' },
        ],
        whenExhausted: 'echo',
      });
      await vscode.commands.executeCommand('openagent.newChat');
      await sendChatPrompt('mcp probe');
      await clickNotification('OpenAgent wants to use echo from the MCP server "everything"', 'Approve');
      const calls = await untilIdleAfter(2);
      const offered = (calls[0]!.body as { tools?: Array<{ name: string }> }).tools?.map((tool) => tool.name) ?? [];
      assert.ok(offered.includes('mcp__everything__get-sum'), offered.join(', '));
      assert.match(JSON.stringify(body(calls[1]!).messages), /Echo: through MCP/);
    } finally {
      await config.update('mcpServers', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('applies .openagent/agent.yaml: denied tools are not offered, allowed commands run without asking, denied ones are refused', async () => {
    const policyFile = path.join(root, '.openagent', 'agent.yaml');
    fs.mkdirSync(path.dirname(policyFile), { recursive: true });
    fs.writeFileSync(
      policyFile,
      'tools:\n  deny: [write_file]\n  bash:\n    allow: ["echo*"]\n    deny: ["git push*"]\n',
    );
    try {
      await model.setScenario({
        name: 'policy',
        turns: [
          {
            toolCalls: [
              { id: 'call_policy_echo', name: 'bash', arguments: { command: 'echo allowed-by-policy' } },
              { id: 'call_policy_push', name: 'bash', arguments: { command: 'echo ok && git push origin main' } },
            ],
          },
          { text: 'Done.' },
        ],
        whenExhausted: 'echo',
      });
      // A new conversation reads the policy file first: no waiting for the file watcher.
      await vscode.commands.executeCommand('openagent.newChat');
      await sendChatPrompt('policy probe');
      const calls = await untilIdleAfter(2);
      const offered = (calls[0]!.body as { tools?: Array<{ name: string }> }).tools?.map((tool) => tool.name) ?? [];
      assert.ok(offered.includes('bash') && !offered.includes('write_file'), offered.join(', '));
      const results = new Map(
        body(calls[1]!)
          .messages.flatMap((message) => (Array.isArray(message.content) ? message.content : []))
          .flatMap((block) => {
            const result = block as { type: string; tool_use_id?: string; content?: unknown; is_error?: boolean };
            return result.type === 'tool_result' ? [[result.tool_use_id!, result] as const] : [];
          }),
      );
      const echoed = results.get('call_policy_echo');
      assert.ok(!echoed?.is_error && /allowed-by-policy/.test(String(echoed?.content)), JSON.stringify(echoed));
      const pushed = results.get('call_policy_push');
      assert.equal(pushed?.is_error, true);
      assert.equal(
        pushed?.content,
        'Denied by policy: `git push origin main` matches bash.deny "git push*" in .openagent/agent.yaml.',
      );
    } finally {
      fs.rmSync(path.join(root, '.openagent'), { recursive: true, force: true });
    }
  });

  it('applies the user’s policy defaults (openagent.policy) without any agent.yaml', async () => {
    const config = vscode.workspace.getConfiguration('openagent');
    try {
      await config.update('policy', { tools: { deny: ['write_file', 'bash'] } }, vscode.ConfigurationTarget.Global);
      await model.setScenario({ name: 'user policy', turns: [{ text: 'Fine.' }], whenExhausted: 'echo' });
      await vscode.commands.executeCommand('openagent.newChat');
      await sendChatPrompt('user policy probe');
      const [call] = await untilIdleAfter(1);
      const offered = (call!.body as { tools?: Array<{ name: string }> }).tools?.map((tool) => tool.name) ?? [];
      assert.ok(offered.includes('read_file'), offered.join(', '));
      assert.ok(!offered.includes('write_file') && !offered.includes('bash'), offered.join(', '));
    } finally {
      await config.update('policy', undefined, vscode.ConfigurationTarget.Global);
    }
  });

  it('budgets and model routes of agent.yaml: 80 % warning, the run stops at the limit, Raise Budget edits the file and the agent goes on', async () => {
    const policyFile = path.join(root, '.openagent', 'agent.yaml');
    fs.mkdirSync(path.dirname(policyFile), { recursive: true });
    fs.writeFileSync(
      policyFile,
      '# Team policy\nmodel_policy:\n  routes:\n    - { match: { task: chat }, model: anthropic/claude-sonnet-4-6 }\n' +
        'budget:\n  per_conversation_usd: 1 # agreed with finance\n',
    );
    try {
      // claude-sonnet-4-6 costs $3 / $15 per million: each of these calls is $0.315.
      const think = (id: string) => ({
        toolCalls: [{ id, name: 'think', arguments: { thought: `step ${id}` } }],
        usage: { input: 100_000, output: 1_000 },
      });
      await model.setScenario({ name: 'budget', turns: ['b1', 'b2', 'b3', 'b4', 'b5', 'b6'].map(think) });
      await vscode.commands.executeCommand('openagent.newChat');
      await sendChatPrompt('budget probe: think for a long time');
      // $0.945 after the third call: the 80 % warning.
      await clickNotification("OpenAgent has used 80 % of this conversation's budget: $0.9450 of $1.00", 'Show Usage');
      // The usage table opens in a preview, which takes the focus; Raise Budget's input box closes
      // when it loses the focus. On a loaded machine the preview came after the box and closed it:
      // let it open first, as the user sees it before going on.
      await waitFor(
        () =>
          vscode.window.tabGroups.all.some((group) =>
            group.tabs.some(
              (tab) => tab.input instanceof vscode.TabInputWebview && tab.input.viewType.endsWith('markdown.preview'),
            ),
          ),
        'the usage table in a preview',
      );
      // The fourth call fitted before it was made ($1.26 after it); the fifth is not made.
      await clickNotification(
        "OpenAgent stopped: this conversation's budget of $1.00 is used up ($1.26 spent)",
        'Raise Budget',
      );
      const calls = await untilIdleAfter(4);
      assert.equal(calls.length, 4);
      assert.ok(calls.every((call) => (call.body as { model: string }).model === 'claude-sonnet-4-6'));
      await answerQuickInput("Raise this conversation's budget", '5');
      await waitFor(
        () => fs.readFileSync(policyFile, 'utf8').includes('per_conversation_usd: 5 # agreed with finance'),
        'the raised limit in agent.yaml',
      );
      assert.ok(fs.readFileSync(policyFile, 'utf8').startsWith('# Team policy\n'), 'comments kept');
      await model.setScenario({ name: 'after raise', turns: [{ text: 'Going on.' }], whenExhausted: 'echo' });
      await model.clearRequests();
      await sendChatPrompt('go on');
      const [next] = await untilIdleAfter(1);
      assert.equal((next!.body as { model: string }).model, 'claude-sonnet-4-6');
    } finally {
      fs.rmSync(path.join(root, '.openagent'), { recursive: true, force: true });
    }
  });

  it('Stop ends a running turn', async () => {
    await model.setScenario({
      name: 'slow',
      turns: [{ text: 'word '.repeat(2_000), chunkSize: 5, delayMs: 50 }],
      whenExhausted: 'echo',
    });
    await sendChatPrompt('a long answer please');
    await waitFor(() => api.isRunning, 'the agent to start');
    await vscode.commands.executeCommand('openagent.stop');
    // The scripted answer takes over 100 s to stream; stopped, the agent is idle at once.
    await waitFor(() => !api.isRunning, 'the agent to stop');
  });

  it('Revert Last Turn deletes the file the last turn created', async () => {
    const note = path.join(root, 'notes', 'revert-me.txt');
    await model.setScenario({
      name: 'write a note',
      turns: [
        { toolCalls: [{ name: 'write_file', arguments: { path: 'notes/revert-me.txt', content: 'temporary\n' } }] },
        { text: 'Wrote notes/revert-me.txt.' },
      ],
      whenExhausted: 'echo',
    });
    // A new conversation reads the policy file again (the last test's is gone).
    await vscode.commands.executeCommand('openagent.newChat');
    await sendChatPrompt('write a note');
    await clickNotification('OpenAgent wants to write notes/revert-me.txt', 'Approve');
    await untilIdleAfter(2);
    assert.equal(fs.readFileSync(note, 'utf8'), 'temporary\n');
    await vscode.commands.executeCommand('openagent.revertTurn');
    await waitFor(() => !fs.existsSync(note), 'the created file to be deleted');
  });

  it('Generate Commit Message writes a message for the staged diff into the commit box', async () => {
    const repo = path.join(root, 'commit-repo');
    fs.mkdirSync(repo);
    const git = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    git('init', '-q');
    fs.writeFileSync(path.join(repo, 'hello.js'), 'export const hello = () => "hello";\n');
    git('add', 'hello.js');
    await vscode.commands.executeCommand('git.openRepository', repo);
    await model.setScenario({ name: 'commit', turns: [{ text: 'feat: add the hello module' }] });

    await vscode.commands.executeCommand('openagent.generateCommitMessage', { rootUri: vscode.Uri.file(repo) });
    const [call] = await untilIdleAfter(1);
    assert.match(JSON.stringify(body(call!).messages), /export const hello/, 'the staged diff was sent');
    const gitApi = vscode.extensions
      .getExtension<{
        getAPI(version: 1): { repositories: Array<{ rootUri: vscode.Uri; inputBox: { value: string } }> };
      }>('vscode.git')!
      .exports.getAPI(1);
    const repository = gitApi.repositories.find((candidate) => candidate.rootUri.fsPath === repo);
    assert.equal(repository?.inputBox.value, 'feat: add the hello module');
    await Promise.resolve(vscode.commands.executeCommand('git.close', repository)).catch(() => undefined);
    fs.rmSync(repo, { recursive: true, force: true });
  });
});
