/**
 * Custom agents as presets (issue 35, item 4): VS Code's .github/agents/*.agent.md and Claude
 * Code's .claude/agents/*.md read into presets — instructions, tools mapped to ours through the
 * one table with unknown names reported, the model routed when it names one of ours — and the
 * names claimed in the stated order.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { chooseAgentModel, modelReference } from '../../../../src/core/knowledge/custom-agent-model';
import { mapToolNames, TOOL_NAME_TABLE } from '../../../../src/core/knowledge/custom-agent-tools';
import { parseCustomAgent, readCustomAgents } from '../../../../src/core/knowledge/custom-agents';
import { PresetChoice } from '../../../../src/core/knowledge/preset-choice';
import { PresetLibrary } from '../../../../src/core/knowledge/presets';
import type { InstructionProblem } from '../../../../src/core/knowledge/instruction-files';
import { NodeKnowledgeFiles } from '../../../../src/node/node-knowledge-files';

function workspaceWith(files: Record<string, string>) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-custom-agents-')));
  const root = path.join(base, 'workspace');
  const bundled = path.join(base, 'prompts');
  for (const [name, text] of Object.entries({
    ...files,
    '../prompts/coding/PROMPT.md': 'BUNDLED CODING',
    '../prompts/work/PROMPT.md': 'BUNDLED WORK',
  })) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), text);
  }
  const files_ = new NodeKnowledgeFiles(() => root);
  return { root, library: new PresetLibrary(files_, bundled, () => root), files: files_ };
}

const REVIEWER_VSCODE = `---
description: Review changes without editing files
name: Reviewer
tools: ['read', 'search', 'githubRepo', 'myExtension.frobnicate', 'github/*']
model: Claude Sonnet 4 (copilot)
handoffs:
  - label: Implement
    agent: implementer
---
Review the supplied changes for correctness and missing tests.
`;

const CLAUDE_AGENT = `---
name: test-runner
description: Runs the tests and fixes what fails
tools: Read, Grep, Glob, Bash, mcp__github__search_issues
model: haiku
color: green
---
You run the tests.
`;

describe('custom agents as presets (issue 35, item 4)', () => {
  describe('parsing', () => {
    it("reads VS Code's format: name, description, tools list, a VS Code model label kept", () => {
      const agent = parseCustomAgent(REVIEWER_VSCODE, {
        file: '.github/agents/reviewer.agent.md',
        format: 'vscode',
        fileName: 'reviewer',
      });
      assert.equal(agent.name, 'Reviewer');
      assert.equal(agent.description, 'Review changes without editing files');
      assert.equal(agent.instructions, 'Review the supplied changes for correctness and missing tests.');
      assert.deepEqual(agent.models, ['Claude Sonnet 4 (copilot)']);
      const tools = agent.tools!;
      for (const name of ['read_file', 'list_files', 'glob', 'search_files', 'find_symbol', 'mcp__github__issues'])
        assert.ok(tools.allows(name), name);
      for (const name of ['bash', 'write_file', 'edit_file', 'background_run', 'task', 'mcp__other__x'])
        assert.equal(tools.allows(name), false, name);
      // The two names we cannot map are said, not dropped without a word.
      assert.ok(
        agent.notes.some((note) => /no tool for "githubRepo"/.test(note)),
        agent.notes.join('\n'),
      );
      assert.ok(agent.notes.some((note) => /"myExtension\.frobnicate" is not one OpenAgent knows/.test(note)));
    });

    it("reads Claude Code's format: a comma-separated tools string, MCP tools by our own naming", () => {
      const agent = parseCustomAgent(CLAUDE_AGENT, {
        file: '.claude/agents/test-runner.md',
        format: 'claude',
        fileName: 'test-runner',
      });
      assert.equal(agent.name, 'test-runner');
      assert.deepEqual(agent.models, ['haiku']);
      for (const name of ['read_file', 'search_files', 'glob', 'bash', 'mcp__github__search_issues', 'think'])
        assert.ok(agent.tools!.allows(name), name);
      for (const name of ['write_file', 'edit_file', 'mcp__github__create_issue'])
        assert.equal(agent.tools!.allows(name), false, name);
      assert.deepEqual(agent.notes, []);
    });

    it('no tools field offers every tool; an empty list only the conversation tools (think, plan)', () => {
      const all = parseCustomAgent('---\ndescription: x\n---\nBody', { file: 'f', format: 'claude', fileName: 'f' });
      assert.equal(all.tools, undefined);
      const none = parseCustomAgent('---\ntools: []\n---\nBody', { file: 'f', format: 'vscode', fileName: 'f' });
      assert.equal(none.tools!.allows('read_file'), false);
      assert.equal(none.tools!.allows('think'), true);
      assert.equal(none.tools!.allows('present_plan'), true);
    });

    it('a file without front matter is an agent named after its file, all body', () => {
      const agent = parseCustomAgent('Just instructions.', { file: 'f', format: 'claude', fileName: 'helper' });
      assert.equal(agent.name, 'helper');
      assert.equal(agent.instructions, 'Just instructions.');
    });
  });

  describe('the tool table', () => {
    it('maps VS Code tool-set prefixes, whole sets and MCP servers; every mapped name is one of ours', () => {
      const { allowance, problems } = mapToolNames(['edit/editFiles', 'execute/*', 'playwright/*', 'db/query']);
      assert.deepEqual(problems, []);
      assert.ok(allowance.allows('edit_file') && allowance.allows('write_file') && allowance.allows('bash'));
      assert.ok(allowance.allows('mcp__playwright__browser_click') && allowance.allows('mcp__db__query'));
      assert.equal(allowance.allows('mcp__db__drop'), false);
      const ours = new Set([
        ...['read_file', 'list_files', 'glob', 'get_diagnostics', 'edit_file', 'write_file', 'search_files'],
        ...['find_symbol', 'find_references', 'go_to_definition', 'bash', 'background_run', 'check_background'],
        ...['task_create', 'task_get', 'task_update', 'task_list', 'task'],
      ]);
      for (const [name, mapped] of Object.entries(TOOL_NAME_TABLE))
        for (const tool of mapped) assert.ok(ours.has(tool), `${name} → ${tool}`);
    });
  });

  describe('the model', () => {
    it('routes our names, Claude families and claude- ids; a VS Code label is kept and reported', () => {
      assert.deepEqual(modelReference('opus'), { kind: 'ours', provider: 'anthropic', model: 'claude-opus-4-5' });
      assert.deepEqual(modelReference('ollama/qwen3:8b'), { kind: 'ours', provider: 'ollama', model: 'qwen3:8b' });
      assert.deepEqual(modelReference('claude-sonnet-4-5-20250929'), {
        kind: 'ours',
        provider: 'anthropic',
        model: 'claude-sonnet-4-5-20250929',
      });
      assert.deepEqual(modelReference('inherit'), { kind: 'inherit' });
      assert.deepEqual(modelReference('GPT-5 (copilot)'), { kind: 'vscode', label: 'GPT-5 (copilot)' });
    });

    const user = { provider: 'ollama', model: 'llama3', baseUrl: 'http://127.0.0.1:11434' };

    it('uses a family only when the Anthropic provider has a key; otherwise the user model, said', async () => {
      const withKey = await chooseAgentModel(['sonnet'], {
        settings: user,
        baseUrls: {},
        apiKey: async (provider) => (provider === 'anthropic' ? 'sk-ant-test' : undefined),
      });
      assert.deepEqual(withKey.settings, { provider: 'anthropic', model: 'claude-sonnet-4-6', baseUrl: '' });
      const without = await chooseAgentModel(['sonnet'], {
        settings: user,
        baseUrls: {},
        apiKey: async () => undefined,
      });
      assert.equal(without.settings, undefined);
      assert.match(without.problems.join('\n'), /anthropic\/claude-sonnet-4-6 cannot be used: .*API key/);
      assert.match(without.problems.join('\n'), /your model \(ollama\/llama3\) answers instead/);
    });

    it('takes the first usable of a list, keeping the VS Code labels before it', async () => {
      const chosen = await chooseAgentModel(['Claude Sonnet 4.5 (copilot)', 'ollama/qwen3'], {
        settings: user,
        baseUrls: {},
        apiKey: async () => undefined,
      });
      // Same provider as the user's: the user's address is kept.
      assert.deepEqual(chosen.settings, { provider: 'ollama', model: 'qwen3', baseUrl: 'http://127.0.0.1:11434' });
      assert.deepEqual(chosen.vscodeLabels, ['Claude Sonnet 4.5 (copilot)']);
      assert.match(chosen.problems[0]!, /VS Code model name/);
    });
  });

  describe('the preset library', () => {
    it('lists custom agents with their source and description; their preset is coding + instructions', async () => {
      const { library } = workspaceWith({
        '.github/agents/reviewer.agent.md': REVIEWER_VSCODE,
        '.claude/agents/test-runner.md': CLAUDE_AGENT,
        '.github/agents/README.md': 'not an agent: no .agent.md',
      });
      const { entries, problems } = await library.catalog();
      assert.deepEqual(problems, []);
      assert.deepEqual(
        entries.map(({ name, source, description }) => ({ name, source, description })),
        [
          {
            name: 'Reviewer',
            source: '.github/agents/reviewer.agent.md',
            description: 'Review changes without editing files',
          },
          { name: 'coding', source: 'bundled', description: '' },
          {
            name: 'test-runner',
            source: '.claude/agents/test-runner.md',
            description: 'Runs the tests and fixes what fails',
          },
          { name: 'work', source: 'bundled', description: '' },
        ],
      );
      const loaded = await library.load('Reviewer');
      assert.match(
        loaded.text,
        /^BUNDLED CODING\n\n# Custom agent "Reviewer" \(\.github\/agents\/reviewer\.agent\.md\)\n\nReview the supplied/,
      );
      assert.equal(loaded.tools?.allows('bash'), false);
      assert.equal(await library.read('coding'), 'BUNDLED CODING');
    });

    it('names: OpenAgent presets first, then .github/agents before .claude/agents; the loser reported', async () => {
      const { library } = workspaceWith({
        '.github/agents/coding.agent.md': '---\ndescription: takes coding\n---\nEVIL CODING',
        '.github/agents/a.agent.md': '---\nname: Helper\n---\nFROM GITHUB',
        '.claude/agents/helper.md': '---\nname: helper\n---\nFROM CLAUDE',
        '.openagent/prompts/docs/PROMPT.md': 'OUR DOCS',
        '.claude/agents/docs.md': 'CLAUDE DOCS',
      });
      const { entries, problems } = await library.catalog();
      assert.deepEqual(
        entries.map((entry) => `${entry.name}@${entry.source}`),
        [
          'Helper@.github/agents/a.agent.md',
          'coding@bundled',
          'docs@.openagent/prompts/docs/PROMPT.md',
          'work@bundled',
        ],
      );
      assert.deepEqual(
        problems.map((problem) => problem.file),
        ['.github/agents/coding.agent.md', '.claude/agents/docs.md', '.claude/agents/helper.md'],
      );
      assert.match(problems[0]!.message, /the name "coding" is already an OpenAgent preset's; this agent is left out/);
      assert.match(problems[2]!.message, /already \.github\/agents\/a\.agent\.md's/);
      assert.equal(await library.read('coding'), 'BUNDLED CODING');
      assert.equal(await library.read('docs'), 'OUR DOCS');
    });

    it('an untrusted workspace (no root) has no custom agents', async () => {
      const { root } = workspaceWith({ '.claude/agents/x.md': 'X' });
      const library = new PresetLibrary(new NodeKnowledgeFiles(), path.join(root, '..', 'prompts'), () => undefined);
      assert.deepEqual(await library.list(), ['coding', 'work']);
    });

    it('the chosen agent: its routed model, its notes reported once per preparation, the user model otherwise', async () => {
      const { library } = workspaceWith({
        '.claude/agents/fast.md': '---\nmodel: ollama/qwen3\ntools: Read, WebFetch\n---\nBe quick.',
      });
      let name = 'fast';
      const reported: InstructionProblem[] = [];
      const choice = new PresetChoice({
        presets: library,
        presetName: () => name,
        secrets: { getApiKey: async () => undefined },
        report: (problems) => reported.push(...problems),
      });
      const user = { provider: 'openai-compatible', model: 'mine', baseUrl: 'http://127.0.0.1:9' };
      assert.deepEqual(choice.settings(user), user, 'nothing chosen yet: the user model');
      await choice.prepare(user);
      assert.deepEqual(choice.settings(user), { provider: 'ollama', model: 'qwen3', baseUrl: '' });
      assert.deepEqual(reported, [
        { file: '.claude/agents/fast.md', message: 'OpenAgent has no tool for "WebFetch"; it is left out' },
      ]);
      name = 'coding';
      await choice.prepare(user);
      assert.deepEqual(choice.settings(user), user);
      assert.equal((await choice.preset(() => user)).tools, undefined);
    });
  });

  it('readCustomAgents reads a bounded folder', async () => {
    const { root, files } = workspaceWith({ '.claude/agents/one.md': 'ONE' });
    const { agents } = await readCustomAgents(files, root);
    assert.deepEqual(
      agents.map((agent) => agent.name),
      ['one'],
    );
  });
});
