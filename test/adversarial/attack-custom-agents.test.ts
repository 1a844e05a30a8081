/**
 * Attacks on a custom agent's tool list (issue 35, item 4) through the CLI on the fake model
 * server: routes by which the model could reach a tool its agent does not list. The agent's own
 * file is a route (the model edits `.claude/agents/x.md` to list `Bash`, and the next
 * conversation under that agent has it); so is a re-run "with preset x".
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { cliArgs, offeredTools, requestBody, runCli, tempFolder, textOf } from '../unit/cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../harness/patience';

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
});
