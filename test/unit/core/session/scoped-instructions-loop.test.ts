/**
 * Issue 35, item 4, through the agent loop: a conversation session with the real workspace tools
 * and the system prompt built from ProjectKnowledge, against the fake model server. On the
 * request bodies the model received: always-on files are there from the first call, an applyTo
 * instruction and a nested AGENTS.md only after a matching file was read, and the context
 * meter counts them as rules.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ProjectKnowledge } from '../../../../src/core/knowledge/project-knowledge';
import { createWorkspaceTools } from '../../../../src/core/tools/builtin/workspace-tools';
import { NodeKnowledgeFiles } from '../../../../src/node/node-knowledge-files';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { sessionOn } from './session-harness';

function workspace(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-scoped-loop-')));
  const files: Record<string, string> = {
    'CLAUDE.md': 'RULE_CLAUDE_ALWAYS\n',
    '.github/instructions/ts.instructions.md': '---\napplyTo: "src/**/*.ts"\n---\nRULE_TS_ONLY\n',
    'src/AGENTS.md': 'RULE_NESTED_SRC\n',
    'README.md': 'Read me.\n',
    'src/app.ts': 'export const app = 1;\n',
  };
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

describe('scoped instructions through the agent loop (issue 35, item 4)', function () {
  this.timeout(60_000);

  it('an applyTo instruction reaches the model only after a matching file was read', async () => {
    const root = workspace();
    const server = await FakeModelServer.start({
      scenario: {
        name: 'reads a file that brings instructions',
        turns: [
          { toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'README.md' } }] },
          { toolCalls: [{ id: 'r2', name: 'read_file', arguments: { path: 'src/app.ts' } }] },
          { text: 'Done.' },
        ],
      },
    });
    try {
      const files = new NodeWorkspace(root);
      const knowledge = new ProjectKnowledge({
        files: new NodeKnowledgeFiles(() => root),
        workspaceRoot: () => root,
        isTrusted: () => true,
        bundledSkills: path.join(root, 'no-bundled-skills'),
      });
      const { session, events, run } = sessionOn(server, {
        workspace: () => files,
        workspaceRoot: () => root,
        tools: (tracked) =>
          createWorkspaceTools({
            files: tracked ?? files,
            search: { search: () => Promise.reject(new Error('no search here')) } as never,
            shell: { run: () => Promise.reject(new Error('no shell here')) } as never,
            cwd: () => root,
            knowledge: [],
          }),
        systemPrompt: async () => {
          const { sections, knowledge: rulesAndMemory, instructions } = await knowledge.load();
          return { text: `You are a test.\n\n${sections.join('\n\n')}`, knowledge: rulesAndMemory, instructions };
        },
      });
      session.switches.setAutoApprove(true);
      await run('look at the project');
      const bodies = server.modelCalls.map((call) => JSON.stringify(call.body));
      assert.equal(bodies.length, 3);
      for (const body of bodies) assert.match(body, /RULE_CLAUDE_ALWAYS/);
      assert.doesNotMatch(bodies[0]!, /RULE_TS_ONLY|RULE_NESTED_SRC/);
      assert.doesNotMatch(bodies[1]!, /RULE_TS_ONLY|RULE_NESTED_SRC/, 'README.md brings nothing');
      assert.match(bodies[2]!, /RULE_TS_ONLY/);
      assert.match(bodies[2]!, /RULE_NESTED_SRC/);
      // After the tool result, before the model's next answer: the instruction follows the file.
      assert.ok(bodies[2]!.indexOf('export const app') < bodies[2]!.indexOf('RULE_TS_ONLY'));
      const rules = events.flatMap((event) =>
        event.type === 'usage' && event.scope === 'call' && event.context ? [event.context.rulesAndMemory] : [],
      );
      assert.equal(rules.length, 3);
      assert.ok(rules[2]! > rules[1]!, `the meter's rules part grows: ${rules.join(', ')}`);
      await session.dispose();
    } finally {
      await server.close();
    }
  });
});
