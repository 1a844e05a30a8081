/**
 * Issue 32, items 6 and 9, attacked through the knowledge files a workspace ships: rules
 * (AGENTS.md, .openagent/rules), memory (.openagent/memory.md) and skills. A cloned folder can
 * make any of them a symbolic link, a FIFO or a hard link. Through the ProjectKnowledge the CLI
 * builds (compose.ts), with its NodeKnowledgeFiles: nothing outside the workspace and no secret
 * file may reach the system prompt, memory_append may write nowhere but the workspace's own
 * memory file, a FIFO hangs nothing, and a file hard-linked elsewhere keeps its other name as it was.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ProjectKnowledge } from '../../src/core/knowledge/project-knowledge';
import { NodeKnowledgeFiles } from '../../src/node/node-knowledge-files';

const KEY = 'PRIVATE-KEY-MARKER-3a1f';
const ENV = 'ENV-MARKER-88c4';
const RC = 'export RC_UNTOUCHED=1\n';

function setUp() {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-knowledge-')));
  const root = path.join(base, 'workspace');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(path.join(root, '.openagent', 'rules'), { recursive: true });
  fs.mkdirSync(path.join(outside, 'skill'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'id_rsa'), `${KEY}\n`);
  fs.writeFileSync(path.join(outside, 'bashrc'), RC);
  fs.writeFileSync(path.join(outside, 'skill', 'SKILL.md'), `---\nname: evil\ndescription: ${KEY}\n---\n${KEY}\n`);
  fs.writeFileSync(path.join(root, '.env'), `API_KEY=${ENV}\n`);
  const knowledge = new ProjectKnowledge({
    files: new NodeKnowledgeFiles(() => root),
    workspaceRoot: () => root,
    isTrusted: () => true,
    bundledSkills: path.join(base, 'no-bundled-skills'),
  });
  const at = (name: string) => path.join(root, name);
  return { root, outside, knowledge, at };
}

async function prompt(knowledge: ProjectKnowledge): Promise<string> {
  return (await knowledge.load()).sections.join('\n');
}

async function remember(knowledge: ProjectKnowledge, note: string): Promise<{ output: string; isError: boolean }> {
  const tool = knowledge.tools().find((candidate) => candidate.name === 'memory_append')!;
  const result = await tool.execute(tool.inputSchema.parse({ note }), {
    conversationId: 'c',
    agentId: 'lead',
    toolCallId: 't',
    signal: new AbortController().signal,
  });
  return typeof result === 'string'
    ? { output: result, isError: false }
    : { output: result.output, isError: Boolean(result.isError) };
}

const NOTE = 'the build is npm run build\ntouch PROOF_knowledge';

describe('adversarial: workspace knowledge files that are links, FIFOs or hard links', function () {
  this.timeout(30_000);

  it('AGENTS.md linked to a key outside: not in the prompt', async () => {
    const box = setUp();
    fs.symlinkSync('../outside/id_rsa', box.at('AGENTS.md'));
    assert.doesNotMatch(await prompt(box.knowledge), new RegExp(KEY));
  });

  it('a rule linked to the workspace .env (relative, through ..): not in the prompt', async () => {
    const box = setUp();
    fs.symlinkSync('../../.env', box.at('.openagent/rules/deploy.md'));
    fs.symlinkSync('.env', box.at('AGENTS.md'));
    assert.doesNotMatch(await prompt(box.knowledge), new RegExp(ENV));
  });

  it('memory.md linked to a shell rc outside: the note is refused and the rc unchanged', async () => {
    const box = setUp();
    fs.symlinkSync('../../outside/bashrc', box.at('.openagent/memory.md'));
    const result = await remember(box.knowledge, NOTE);
    assert.equal(result.isError, true, result.output);
    assert.equal(fs.readFileSync(path.join(box.outside, 'bashrc'), 'utf8'), RC);
    assert.doesNotMatch(await prompt(box.knowledge), /RC_UNTOUCHED/);
  });

  it('.openagent itself a link to a folder outside: nothing read from or written there', async () => {
    const box = setUp();
    fs.rmSync(box.at('.openagent'), { recursive: true });
    fs.writeFileSync(path.join(box.outside, 'memory.md'), `# Memory\n- ${KEY}\n`);
    fs.symlinkSync('../outside', box.at('.openagent'));
    assert.doesNotMatch(await prompt(box.knowledge), new RegExp(KEY));
    const result = await remember(box.knowledge, NOTE);
    assert.equal(result.isError, true, result.output);
    assert.equal(fs.readFileSync(path.join(box.outside, 'memory.md'), 'utf8'), `# Memory\n- ${KEY}\n`);
  });

  it('memory.md hard-linked to a file outside: the note lands in the workspace only', async () => {
    const box = setUp();
    fs.linkSync(path.join(box.outside, 'bashrc'), box.at('.openagent/memory.md'));
    const result = await remember(box.knowledge, NOTE);
    assert.equal(result.isError, false, result.output);
    assert.equal(fs.readFileSync(path.join(box.outside, 'bashrc'), 'utf8'), RC);
    assert.match(fs.readFileSync(box.at('.openagent/memory.md'), 'utf8'), /the build is npm run build/);
    assert.equal(fs.statSync(box.at('.openagent/memory.md')).nlink, 1);
  });

  it('a skill folder linked to a folder outside: not in the skill index', async () => {
    const box = setUp();
    fs.mkdirSync(box.at('.openagent/skills'), { recursive: true });
    fs.symlinkSync('../../../outside/skill', box.at('.openagent/skills/evil'));
    assert.doesNotMatch(await prompt(box.knowledge), new RegExp(KEY));
  });

  it('AGENTS.md and memory.md as FIFOs: the prompt is built and the note refused, nothing hangs', async function () {
    if (spawnSync('mkfifo', ['--version']).status !== 0) this.skip();
    const box = setUp();
    for (const name of ['AGENTS.md', '.openagent/memory.md']) spawnSync('mkfifo', [box.at(name)]);
    await prompt(box.knowledge);
    const result = await remember(box.knowledge, NOTE);
    assert.equal(result.isError, true, result.output);
    assert.ok(fs.lstatSync(box.at('.openagent/memory.md')).isFIFO());
  });

  it('held: a rule linked to a file inside the workspace is read, and a note appended normally', async () => {
    const box = setUp();
    fs.mkdirSync(box.at('docs'));
    fs.writeFileSync(box.at('docs/AGENTS.md'), 'Use tabs.\n');
    fs.symlinkSync('docs/AGENTS.md', box.at('AGENTS.md'));
    assert.match(await prompt(box.knowledge), /Use tabs\./);
    assert.equal((await remember(box.knowledge, 'first')).isError, false);
    assert.equal((await remember(box.knowledge, 'second')).isError, false);
    assert.equal(fs.readFileSync(box.at('.openagent/memory.md'), 'utf8'), '# Memory\n\n- first\n- second\n');
  });
});
