/**
 * A custom agent chosen as the preset, through the whole agent loop (the CLI on the fake model
 * server): its instructions reach the model, only its tools are offered, and a tool it does not
 * list is refused when the model calls it anyway — nothing runs, in the conversation or in a
 * sub-agent it starts. Its model answers when it names one of ours; a VS Code label is said.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { cliArgs, offeredTools, requestBody, runCli, tempFolder, textOf } from './cli-helpers';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

function workspaceWith(files: Record<string, string>): string {
  const workspace = tempFolder('agents-ws');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }
  return workspace;
}

const READ_ONLY_REVIEWER =
  '---\nname: reviewer\ndescription: Reviews, never changes\ntools: Read, Grep, Glob, Task\n---\nREVIEWER-INSTRUCTIONS-7c1\n';

describe('custom agents through the agent loop (issue 35, item 4)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer | undefined;
  afterEach(() => server?.close());

  it('a read-only agent: bash is not offered, and called anyway it is refused and runs nothing', async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'asks for bash',
        turns: [
          { toolCalls: [{ id: 'b1', name: 'bash', arguments: { command: 'touch pwned.txt', description: 'x' } }] },
          { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'pwned2.txt', content: 'x' } }] },
          { text: 'I only review.' },
        ],
      },
    });
    const workspace = workspaceWith({ '.claude/agents/reviewer.md': READ_ONLY_REVIEWER });
    const ran = await runCli([...cliArgs(server, tempFolder('store')), '--preset', 'reviewer', '--yes', 'review'], {
      cwd: workspace,
    });
    assert.equal(ran.code, 0, ran.stderr);
    assert.ok(!fs.existsSync(path.join(workspace, 'pwned.txt')), 'bash ran');
    assert.ok(!fs.existsSync(path.join(workspace, 'pwned2.txt')), 'write_file ran');
    const first = requestBody(server.modelCalls[0]);
    assert.match(
      textOf(first.messages[0]!),
      /# Custom agent "reviewer" \(\.claude\/agents\/reviewer\.md\)\n\nREVIEWER-INSTRUCTIONS-7c1/,
    );
    const tools = offeredTools(server.modelCalls[0]);
    assert.ok(tools.includes('read_file') && tools.includes('search_files') && tools.includes('task'), tools.join());
    for (const refused of ['bash', 'write_file', 'edit_file', 'background_run'])
      assert.ok(!tools.includes(refused), `${refused} offered: ${tools.join()}`);
    const results = requestBody(server.modelCalls[2]).messages.filter((message) => message.role === 'tool');
    assert.equal(results.length, 2);
    for (const result of results)
      assert.match(textOf(result), /There is no tool named "(bash|write_file)" available now/);
  });

  it("a sub-agent it starts (even a 'code' one) has its tools only", async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'sub-agent asks for bash',
        turns: [
          {
            toolCalls: [{ id: 't1', name: 'task', arguments: { kind: 'code', description: 'fix', prompt: 'fix it' } }],
          },
          { toolCalls: [{ id: 'b1', name: 'bash', arguments: { command: 'touch pwned.txt', description: 'x' } }] },
          { text: 'sub-agent could not' },
          { text: 'done' },
        ],
      },
    });
    const workspace = workspaceWith({ '.claude/agents/reviewer.md': READ_ONLY_REVIEWER });
    const ran = await runCli([...cliArgs(server, tempFolder('store')), '--preset', 'reviewer', '--yes', 'review'], {
      cwd: workspace,
    });
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(server.modelCalls.length, 4);
    assert.ok(!fs.existsSync(path.join(workspace, 'pwned.txt')), 'bash ran in the sub-agent');
    const subTools = offeredTools(server.modelCalls[1]);
    assert.ok(subTools.includes('read_file') && !subTools.includes('bash'), subTools.join());
    const result = requestBody(server.modelCalls[2]).messages.find((message) => message.role === 'tool');
    assert.match(textOf(result!), /There is no tool named "bash" available now/);
  });

  it('its model answers when it names one of ours; a VS Code label is reported and the user model answers', async () => {
    server = await FakeModelServer.start({ scenario: { name: 'hi', turns: [{ text: 'hi' }, { text: 'hi again' }] } });
    const workspace = workspaceWith({
      '.github/agents/big.agent.md': '---\nmodel: openai-compatible/agent-model\n---\nBIG',
      '.github/agents/copilot.agent.md':
        "---\nmodel: 'Claude Sonnet 4 (copilot)'\ntools: ['read', 'fetch']\n---\nCOPILOT",
    });
    const big = await runCli([...cliArgs(server, tempFolder('store')), '--preset', 'big', 'hello'], { cwd: workspace });
    assert.equal(big.code, 0, big.stderr);
    assert.equal(requestBody(server.modelCalls[0]).model, 'agent-model');
    const copilot = await runCli([...cliArgs(server, tempFolder('store')), '--preset', 'copilot', 'hello'], {
      cwd: workspace,
    });
    assert.equal(copilot.code, 0, copilot.stderr);
    assert.equal(requestBody(server.modelCalls[1]).model, 'fake-model');
    assert.match(
      copilot.stderr,
      /custom agent \.github\/agents\/copilot\.agent\.md: the model "Claude Sonnet 4 \(copilot\)" is a VS Code model name/,
    );
    assert.match(
      copilot.stderr,
      /custom agent \.github\/agents\/copilot\.agent\.md: OpenAgent has no tool for "fetch"/,
    );
  });
});
