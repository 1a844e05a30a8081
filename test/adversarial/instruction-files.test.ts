/**
 * Issue 35, item 4, attacked: the instruction files a cloned repository ships (CLAUDE.md,
 * .github/copilot-instructions.md, .github/instructions, .claude/rules, nested AGENTS.md) are
 * its text, read into the model's context. A huge file is cut with a note, front matter that is
 * not YAML leaves the file out with a problem, globs reaching out of the workspace are dropped,
 * links leading outside are not followed, a FIFO hangs nothing, a thousand files are bounded,
 * and a secret in one is redacted like any context.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentEvent } from '../../src/core/events/events';
import { MAX_FILES_PER_FOLDER, MAX_INSTRUCTION_FILE_CHARS } from '../../src/core/knowledge/instruction-files';
import { ProjectKnowledge } from '../../src/core/knowledge/project-knowledge';
import { RULES_PROMPT_CHARS } from '../../src/core/knowledge/project-rules';
import { NodeKnowledgeFiles } from '../../src/node/node-knowledge-files';

const OUTSIDE_MARKER = 'OUTSIDE-MARKER-5be1';

function setUp(files: Record<string, string> = {}) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-instruction-attack-')));
  const root = path.join(base, 'workspace');
  const outside = path.join(base, 'outside');
  fs.mkdirSync(root);
  fs.mkdirSync(path.join(outside, 'rules'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'secret.md'), `${OUTSIDE_MARKER}\n`);
  fs.writeFileSync(path.join(outside, 'rules', 'evil.instructions.md'), `${OUTSIDE_MARKER}\n`);
  const at = (name: string) => path.join(root, name);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(at(file)), { recursive: true });
    fs.writeFileSync(at(file), text);
  }
  const knowledge = new ProjectKnowledge({
    files: new NodeKnowledgeFiles(() => root),
    workspaceRoot: () => root,
    isTrusted: () => true,
    bundledSkills: path.join(base, 'no-bundled-skills'),
  });
  return { root, outside, at, knowledge };
}

const readCall = (file: string) =>
  ({
    seq: 0,
    time: 0,
    conversationId: 'c',
    agentId: 'lead',
    type: 'tool_call',
    toolCallId: 't',
    toolName: 'read_file',
    input: { path: file },
  }) as unknown as AgentEvent;

/** Everything the model could be given: the prompt sections and what reading `files` brings. */
async function everything(knowledge: ProjectKnowledge, files: string[]) {
  const loaded = await knowledge.load();
  for (const file of files) loaded.instructions?.observe(readCall(file));
  const given = (await loaded.instructions?.inbox()) ?? [];
  return { text: [...loaded.sections, ...given].join('\n'), given: given.join('\n'), loaded };
}

/** Fails instead of hanging when a read blocks. */
function withinSeconds<T>(seconds: number, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    work.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`hung for ${seconds}s`)), seconds * 1000);
    }),
  ]);
}

describe('adversarial: instruction files a repository ships (issue 35, item 4)', function () {
  this.timeout(60_000);

  it('a huge CLAUDE.md and a huge scoped file: cut with a note saying so', async () => {
    const box = setUp({
      'CLAUDE.md': `HUGE_START ${'x'.repeat(4 * 1024 * 1024)}`,
      '.github/instructions/big.instructions.md': `---\napplyTo: "**/*.ts"\n---\nBIG_START ${'y'.repeat(1024 * 1024)}`,
    });
    const { loaded, given } = await everything(box.knowledge, ['a.ts']);
    const rules = loaded.sections[0]!;
    assert.match(rules, /HUGE_START/);
    assert.match(rules, /CLAUDE\.md is \d+ characters; cut at 16000/);
    assert.ok(rules.length < MAX_INSTRUCTION_FILE_CHARS + 1_000, `${rules.length} characters`);
    assert.match(given, /BIG_START/);
    assert.ok(given.length < MAX_INSTRUCTION_FILE_CHARS + 1_000, `${given.length} characters`);
  });

  it('front matter that is not YAML: the file is left out and reported', async () => {
    const box = setUp({
      '.github/instructions/bad.instructions.md': '---\napplyTo: [unclosed\n: : - {\n---\nRULE_BAD\n',
      '.claude/rules/list.md': '---\n- just\n- a list\n---\nRULE_LIST\n',
      '.claude/rules/no-end.md': '---\napplyTo: "**/*.ts"\nRULE_NO_END\n',
    });
    const { text, loaded } = await everything(box.knowledge, ['src/a.ts']);
    assert.doesNotMatch(text, /RULE_BAD|RULE_LIST/);
    const reported = loaded.instructionProblems.map((problem) => `${problem.file}: ${problem.message}`).join('\n');
    assert.match(reported, /bad\.instructions\.md: its front matter is not valid YAML/);
    assert.match(reported, /list\.md: its front matter is not a set of keys/);
    // No closing line: no front matter at all, so the whole file is ordinary always-on text.
    assert.match(loaded.sections.join('\n'), /RULE_NO_END/);
  });

  it('globs with ../ or absolute paths are dropped: they match nothing, even paths named so', async () => {
    const box = setUp({
      '.github/instructions/escape.instructions.md':
        '---\napplyTo: "../**, /etc/**, C:/Users/**, ~/x"\n---\nRULE_ESCAPE\n',
      '.claude/rules/mixed.md': '---\napplyTo: "../../**/*.ts, src/**"\n---\nRULE_MIXED\n',
    });
    const outsidePaths = ['../outside/secret.md', '/etc/passwd', path.join(box.root, '..', 'x.ts')];
    const { text, loaded } = await everything(box.knowledge, outsidePaths);
    assert.doesNotMatch(text, /RULE_ESCAPE|RULE_MIXED/);
    const reported = loaded.instructionProblems.map((problem) => problem.message).join('\n');
    for (const glob of ['../**', '/etc/**', 'C:/Users/**', '~/x', '../../**/*.ts'])
      assert.ok(reported.includes(`"${glob}" leads outside the workspace`), `${glob} in ${reported}`);
    const inside = await everything(box.knowledge, ['src/main.c']);
    assert.match(inside.given, /RULE_MIXED/);
    assert.doesNotMatch(inside.given, /RULE_ESCAPE/);
  });

  it('links leading out of the workspace are not followed, whatever file or folder they are', async () => {
    const box = setUp({ 'packages/web/page.ts': 'x' });
    fs.symlinkSync(path.join(box.outside, 'secret.md'), box.at('CLAUDE.md'));
    fs.mkdirSync(box.at('.github'));
    fs.symlinkSync('../../outside/secret.md', box.at('.github/copilot-instructions.md'));
    fs.symlinkSync(path.join(box.outside, 'rules'), box.at('.github/instructions'));
    fs.mkdirSync(box.at('.claude/rules'), { recursive: true });
    fs.symlinkSync(path.join(box.outside, 'secret.md'), box.at('.claude/rules/linked.md'));
    fs.symlinkSync(path.join(box.outside, 'secret.md'), box.at('packages/web/AGENTS.md'));
    fs.symlinkSync(path.join(box.outside, 'secret.md'), box.at('packages/AGENTS.md'));
    const { text } = await everything(box.knowledge, ['packages/web/page.ts', 'a.ts']);
    assert.doesNotMatch(text, new RegExp(OUTSIDE_MARKER));
  });

  it('FIFOs named CLAUDE.md, an instruction file and a nested AGENTS.md: nothing hangs', async function () {
    if (spawnSync('mkfifo', ['--version']).status !== 0) this.skip();
    const box = setUp({ '.github/instructions/ok.instructions.md': 'RULE_OK\n', 'src/x.ts': 'x' });
    fs.mkdirSync(box.at('.claude'));
    for (const name of ['CLAUDE.md', '.github/instructions/pipe.instructions.md', 'src/AGENTS.md', '.claude/CLAUDE.md'])
      assert.equal(spawnSync('mkfifo', [box.at(name)]).status, 0, name);
    const { text } = await withinSeconds(20, everything(box.knowledge, ['src/x.ts']));
    assert.match(text, /RULE_OK/, 'the other files are still read');
  });

  it('1,000 instruction files: a bounded number read, the rest reported, what is given stays in budget', async () => {
    const files: Record<string, string> = {};
    for (let index = 0; index < 1_000; index++)
      files[`.github/instructions/r${String(index).padStart(4, '0')}.instructions.md`] =
        `---\napplyTo: "**"\n---\nRULE_${index} ${'z'.repeat(500)}\n`;
    for (let index = 0; index < 1_000; index++)
      files[`.claude/rules/s${String(index).padStart(4, '0')}.md`] =
        `---\napplyTo: "**/*.ts"\n---\nSCOPED_${index} ${'w'.repeat(500)}\n`;
    const box = setUp(files);
    const started = Date.now();
    const { loaded, given } = await everything(box.knowledge, ['a.ts']);
    assert.ok(Date.now() - started < 20_000, 'read in bounded time');
    const rules = loaded.sections[0]!;
    assert.ok(rules.length < RULES_PROMPT_CHARS + 20_000, `${rules.length} characters of rules`);
    assert.match(rules, /RULE_0 /);
    assert.doesNotMatch(rules, new RegExp(`RULE_${MAX_FILES_PER_FOLDER} `));
    assert.ok(given.length < RULES_PROMPT_CHARS + 20_000, `${given.length} characters given`);
    assert.doesNotMatch(given, new RegExp(`SCOPED_${MAX_FILES_PER_FOLDER} `));
    const reported = loaded.instructionProblems.map((problem) => `${problem.file}: ${problem.message}`).join('\n');
    assert.match(reported, /\.github\/instructions: 1000 instruction files; the first 100/);
    assert.match(reported, /\.claude\/rules: 1000 instruction files; the first 100/);
  });

  it('secrets in instruction files are redacted, always-on or scoped', async () => {
    const key = `sk-ant-api03-${'Q'.repeat(40)}`;
    const token = `ghp_${'R'.repeat(36)}`;
    const box = setUp({
      'CLAUDE.md': `Deploy with ANTHROPIC_API_KEY=${key}\n`,
      '.github/copilot-instructions.md': 'password: hunter2-hunter2\n',
      '.github/instructions/ci.instructions.md': `---\napplyTo: "**/*.yml"\n---\nUse the token ${token}\n`,
      'ci/AGENTS.md': `AWS key AKIA${'A'.repeat(16)}\n`,
    });
    const { text, given } = await everything(box.knowledge, ['ci/build.yml']);
    for (const secret of [key, token, 'hunter2-hunter2', `AKIA${'A'.repeat(16)}`])
      assert.ok(!text.includes(secret), `${secret.slice(0, 8)}… reached the model`);
    assert.match(given, /\[REDACTED\]/);
  });
});
