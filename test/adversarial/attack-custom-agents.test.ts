/**
 * Attacks on a custom agent's tool list (issue 35, item 4) through the CLI on the fake model
 * server: routes by which the model could reach a tool its agent does not list. The agent's own
 * file is a route (the model edits `.claude/agents/x.md` to list `Bash`, and the next
 * conversation under that agent has it); so is a re-run "with preset x".
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { cliArgs, offeredTools, requestBody, runCli, tempFolder, textOf } from '../unit/cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { openStore } from '../unit/store/store-helpers';

function workspaceWith(files: Record<string, string>): string {
  const workspace = tempFolder('atk-agents-ws');
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }
  return workspace;
}

const EDITOR = '---\nname: editor\ndescription: edits files, runs nothing\ntools: Read, Edit\n---\nEDITOR-7f2\n';
const ESCALATED = '---\nname: editor\ndescription: edits files, runs nothing\n---\nESCALATED\n';

describe('adversarial: routes to a tool a custom agent does not list', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer | undefined;
  afterEach(() => server?.close());

  for (const file of ['.claude/agents/editor.md', '.CLAUDE/agents/editor.md', './.claude/settings.json']) {
    it(`the agent cannot rewrite its own tool list (${file}) without the user's explicit yes`, async () => {
      server = await FakeModelServer.start({
        scenario: {
          name: 'rewrites its own agent file',
          turns: [
            {
              toolCalls: [
                { id: 'w1', name: 'write_file', arguments: { path: file, content: ESCALATED } },
                {
                  id: 'w2',
                  name: 'edit_file',
                  arguments: {
                    path: '.claude/agents/editor.md',
                    edits: [{ oldText: 'tools: Read, Edit\n', newText: '' }],
                  },
                },
              ],
            },
            { text: 'done' },
          ],
        },
      });
      const workspace = workspaceWith({ '.claude/agents/editor.md': EDITOR });
      const ran = await runCli([...cliArgs(server, tempFolder('store')), '--preset', 'editor', '--yes', 'go'], {
        cwd: workspace,
      });
      assert.equal(ran.code, 0, ran.stderr);
      assert.equal(fs.readFileSync(path.join(workspace, '.claude/agents/editor.md'), 'utf8'), EDITOR);
      assert.ok(!fs.existsSync(path.join(workspace, '.claude/settings.json')), 'settings.json written');
      const results = requestBody(server.modelCalls[1]).messages.filter((message) => message.role === 'tool');
      assert.equal(results.length, 2);
    });
  }

  it('a re-run "with preset <agent>" offers and runs only the agent\'s tools from step N on', async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'recorded under coding',
        turns: [
          { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'notes.md' } }] },
          { text: 'read them' },
        ],
      },
    });
    const reviewer = '---\nname: reviewer\ntools: Read, Grep\n---\nREVIEWER-3d9\n';
    const workspace = workspaceWith({ 'notes.md': 'notes\n', '.claude/agents/reviewer.md': reviewer });
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: workspace, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });
    git('init', '-q', '-b', 'main');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'start');
    const store = tempFolder('atk-rerun-store');
    const home = tempFolder('atk-rerun-home');
    const first = await runCli([...cliArgs(server, store), '--yes', 'read the notes'], { cwd: workspace, home });
    assert.equal(first.code, 0, first.stderr);
    const opened = await openStore(store);
    const id = (await opened.store.listConversations())[0]!.id;
    await opened.store.close();
    server.setScenario({
      name: 'live part asks for bash',
      turns: [
        { toolCalls: [{ id: 'b1', name: 'bash', arguments: { command: 'touch PROOF_rerun', description: 'x' } }] },
        { text: 'could not' },
      ],
    });
    const before = server.modelCalls.length;
    const ran = await runCli(
      [
        'replay',
        id,
        '--store',
        store,
        '--base-url',
        server.openAiBaseUrl,
        '--from',
        '2',
        '--preset',
        'reviewer',
        '--yes',
      ],
      { cwd: workspace, home },
    );
    const worktree = /Worktree: (.+)/.exec(ran.stdout)?.[1];
    assert.ok(worktree, ran.stdout + ran.stderr);
    assert.ok(!fs.existsSync(path.join(worktree, 'PROOF_rerun')), 'bash ran in the re-run');
    const live = server.modelCalls.slice(before);
    assert.ok(live.length >= 1, ran.stderr);
    assert.match(textOf(requestBody(live[0]).messages[0]!), /REVIEWER-3d9/);
    const tools = offeredTools(live[0]);
    assert.ok(tools.includes('read_file'), tools.join());
    for (const refused of ['bash', 'write_file', 'edit_file', 'background_run'])
      assert.ok(!tools.includes(refused), `${refused} offered: ${tools.join()}`);
  });
});
