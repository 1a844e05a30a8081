/**
 * Issue 35, item 4: the instruction files other agents read, on a real temporary workspace —
 * the always-on files in their stated order and each text once, applyTo parsed as VS Code
 * writes it, scoped files and nested AGENTS.md given once a matching file is in play, again
 * after a compaction, and skills from .github/skills.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { measureRequest } from '../../../../src/core/agent/context/context-breakdown';
import type { AgentEvent } from '../../../../src/core/events/events';
import { parseInstructionFile, splitPatterns } from '../../../../src/core/knowledge/instruction-files';
import { ProjectKnowledge } from '../../../../src/core/knowledge/project-knowledge';
import { readWorkspaceInstructions } from '../../../../src/core/knowledge/project-rules';
import { pathsInText } from '../../../../src/core/knowledge/scoped-instructions';
import { NodeKnowledgeFiles } from '../../../../src/node/node-knowledge-files';

function workspace(files: Record<string, string>): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-instructions-')));
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  return root;
}

function knowledgeOf(root: string): ProjectKnowledge {
  return new ProjectKnowledge({
    files: new NodeKnowledgeFiles(() => root),
    workspaceRoot: () => root,
    isTrusted: () => true,
    bundledSkills: path.join(root, 'no-bundled-skills'),
  });
}

const scoped = (applyTo: string, body: string) => `---\napplyTo: '${applyTo}'\n---\n${body}\n`;

/** An event as the conversation would emit it (only the fields the instructions look at matter). */
function event(body: Record<string, unknown>): AgentEvent {
  return { seq: 0, time: 0, conversationId: 'c', agentId: 'lead', ...body } as unknown as AgentEvent;
}

const readCall = (file: string) =>
  event({ type: 'tool_call', toolCallId: 't', toolName: 'read_file', input: { path: file } });

describe('instruction files of the field (issue 35, item 4)', () => {
  it('always-on files join the rules in the stated order, the same text once', async () => {
    const root = workspace({
      'AGENTS.md': 'RULE_AGENTS\n',
      'CLAUDE.md': 'RULE_AGENTS\n',
      '.claude/CLAUDE.md': 'RULE_DOT_CLAUDE\n',
      '.github/copilot-instructions.md': 'RULE_COPILOT\n',
      '.github/instructions/all.instructions.md': scoped('**', 'RULE_ALL'),
      '.claude/rules/plain.md': 'RULE_PLAIN_CLAUDE\n',
      '.openagent/rules/own.md': 'RULE_OWN\n',
    });
    const {
      rules,
      scoped: forFiles,
      problems,
    } = await readWorkspaceInstructions(new NodeKnowledgeFiles(() => root), root);
    assert.deepEqual(
      rules.map((rule) => rule.file),
      [
        'AGENTS.md (also CLAUDE.md)',
        '.claude/CLAUDE.md',
        '.github/copilot-instructions.md',
        '.github/instructions/all.instructions.md',
        '.claude/rules/plain.md',
        '.openagent/rules/own.md',
      ],
    );
    assert.deepEqual(forFiles, []);
    assert.deepEqual(problems, []);
    const prompt = (await knowledgeOf(root).load()).sections.join('\n');
    assert.equal(prompt.split('RULE_AGENTS').length, 2, 'the copied text is in the prompt once');
    assert.match(prompt, /the one listed later wins/);
    assert.ok(prompt.indexOf('RULE_COPILOT') < prompt.indexOf('RULE_OWN'));
  });

  it('applyTo: comma-separated globs, braces kept whole; Claude paths lists; no front matter applies always', () => {
    assert.deepEqual(splitPatterns('**/*.{ts,tsx}, docs/**'), ['**/*.{ts,tsx}', 'docs/**']);
    assert.deepEqual(parseInstructionFile(scoped('src/**/*.ts,*.md', 'Body')).patterns, ['src/**/*.ts', '*.md']);
    assert.deepEqual(parseInstructionFile('---\npaths:\n  - "lib/**"\n---\nBody').patterns, ['lib/**']);
    assert.deepEqual(parseInstructionFile('Just text').patterns, undefined);
    assert.throws(() => parseInstructionFile('---\napplyTo: [unclosed\n---\nBody'), /not valid YAML/);
    assert.throws(() => parseInstructionFile('---\napplyTo: 3\n---\nBody'), /comma-separated globs/);
  });

  it('a scoped file is given only once a matching file is read, and once', async () => {
    const root = workspace({
      '.github/instructions/ts.instructions.md': scoped('**/*.ts', 'RULE_TS'),
      '.claude/rules/python.md': '---\npaths: ["**/*.py"]\n---\nRULE_PY\n',
      'src/app.ts': 'code',
    });
    const { sections, instructions } = await knowledgeOf(root).load();
    assert.doesNotMatch(sections.join('\n'), /RULE_TS|RULE_PY/);
    assert.ok(instructions);
    instructions.observe(readCall('README.md'));
    assert.deepEqual(await instructions.inbox(), []);
    instructions.observe(readCall('src/app.ts'));
    const [given] = await instructions.inbox();
    assert.match(given!, /RULE_TS/);
    assert.doesNotMatch(given!, /RULE_PY/);
    assert.match(given!, /ts\.instructions\.md \(for \*\*\/\*\.ts\)/);
    instructions.observe(readCall(path.join(root, 'src', 'other.ts')));
    assert.deepEqual(await instructions.inbox(), [], 'given once per conversation');
  });

  it('a file mentioned in a prompt brings its instructions; one outside the workspace does not', async () => {
    const root = workspace({ '.claude/rules/python.md': scoped('lib/**/*.py', 'RULE_PY') });
    const { instructions } = await knowledgeOf(root).load();
    instructions!.observe(event({ type: 'user_message', text: 'Look at ../lib/x.py and /lib/y.py' }));
    assert.deepEqual(await instructions!.inbox(), []);
    instructions!.observe(event({ type: 'user_message', text: 'Why does `lib/tools/run.py` fail?' }));
    assert.match((await instructions!.inbox()).join(''), /RULE_PY/);
  });

  it('after a compaction every instruction given is given again', async () => {
    const root = workspace({ '.github/instructions/ts.instructions.md': scoped('**/*.ts', 'RULE_TS') });
    const { instructions } = await knowledgeOf(root).load();
    instructions!.observe(readCall('a.ts'));
    assert.equal((await instructions!.inbox()).length, 1);
    instructions!.observe(event({ type: 'compact', kind: 'micro', tokensBefore: 2, tokensAfter: 1 }));
    assert.deepEqual(await instructions!.inbox(), []);
    instructions!.observe(event({ type: 'compact', kind: 'auto', tokensBefore: 2, tokensAfter: 1 }));
    assert.match((await instructions!.inbox()).join(''), /RULE_TS/);
  });

  it('nested AGENTS.md: the closest one to the file in play, besides the root one', async () => {
    const root = workspace({
      'AGENTS.md': 'RULE_ROOT\n',
      'packages/AGENTS.md': 'RULE_PACKAGES\n',
      'packages/web/AGENTS.md': 'RULE_WEB\n',
      'packages/web/src/page.tsx': 'x',
    });
    const { sections, instructions } = await knowledgeOf(root).load();
    assert.match(sections.join('\n'), /RULE_ROOT/);
    assert.doesNotMatch(sections.join('\n'), /RULE_WEB|RULE_PACKAGES/);
    instructions!.observe(readCall('packages/web/src/page.tsx'));
    const given = (await instructions!.inbox()).join('');
    assert.match(given, /RULE_WEB/);
    assert.doesNotMatch(given, /RULE_PACKAGES|RULE_ROOT/);
    instructions!.observe(readCall('packages/api/main.go'));
    assert.match((await instructions!.inbox()).join(''), /RULE_PACKAGES/);
  });

  it('the context meter counts instructions given later as rules', async () => {
    const root = workspace({ '.github/instructions/ts.instructions.md': scoped('**/*.ts', 'RULE_TS '.repeat(200)) });
    const { instructions, knowledge } = await knowledgeOf(root).load();
    const live = instructions!.knowledgeWith(knowledge);
    instructions!.observe(readCall('a.ts'));
    const [given] = await instructions!.inbox();
    const parts = measureRequest(
      {
        model: 'm',
        system: 'sys',
        messages: [{ role: 'user', content: [{ type: 'text', text: given! }] }],
        tools: [],
        maxOutputTokens: 10,
      } as never,
      live,
    );
    assert.ok(parts.rulesAndMemory > parts.conversation, JSON.stringify(parts));
  });

  it('skills are read from .github/skills too', async () => {
    const root = workspace({
      '.github/skills/deploy/SKILL.md': '---\nname: deploy\ndescription: Ship the app.\n---\nSteps.\n',
    });
    const { skills } = await knowledgeOf(root).skills.index();
    assert.deepEqual(
      skills.map((skill) => skill.name),
      ['deploy'],
    );
  });

  it('an untrusted workspace gives no instructions at all', async () => {
    const root = workspace({ 'CLAUDE.md': 'RULE_CLAUDE\n', '.claude/rules/a.md': scoped('**/*.ts', 'RULE_TS') });
    const knowledge = new ProjectKnowledge({
      files: new NodeKnowledgeFiles(() => root),
      workspaceRoot: () => root,
      isTrusted: () => false,
      bundledSkills: path.join(root, 'none'),
    });
    const { sections, instructions } = await knowledge.load();
    assert.doesNotMatch(sections.join('\n'), /RULE_/);
    assert.equal(instructions, undefined);
  });

  it('words of a prompt that look like paths', () => {
    assert.deepEqual(pathsInText('see @file:src/a.ts, (docs/guide.md) and README.md. Then done'), [
      '@file:src/a.ts',
      'docs/guide.md',
      'README.md',
    ]);
  });
});
