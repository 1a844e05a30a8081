/**
 * Issue 35, item 4, attacked: the custom agents a cloned repository ships (.github/agents,
 * .claude/agents) become presets — text for the system prompt, a name for pickers and a
 * setting, a tool list that narrows what runs. Huge files are cut, ten thousand agents are
 * bounded, YAML bombs and front matter that is not YAML leave the file out with a problem, a
 * tools field of the wrong type never turns into "every tool", names that could pass for paths
 * or hide characters are refused, links leading out of the workspace are not followed, a FIFO
 * hangs nothing, and a secret in an agent is redacted.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import {
  MAX_AGENT_INSTRUCTION_CHARS,
  MAX_AGENTS_PER_FOLDER,
  MAX_FRONT_MATTER_CHARS,
} from '../../src/core/knowledge/custom-agents';
import { PresetLibrary } from '../../src/core/knowledge/presets';
import { NodeKnowledgeFiles } from '../../src/node/node-knowledge-files';

const OUTSIDE_MARKER = 'OUTSIDE-MARKER-a93f';

function setUp(files: Record<string, string> = {}) {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-agents-attack-')));
  const root = path.join(base, 'workspace');
  const outside = path.join(base, 'outside');
  const bundled = path.join(base, 'prompts');
  fs.mkdirSync(path.join(bundled, 'coding'), { recursive: true });
  fs.writeFileSync(path.join(bundled, 'coding', 'PROMPT.md'), 'CODING');
  fs.mkdirSync(path.join(outside, 'agents'), { recursive: true });
  fs.writeFileSync(path.join(outside, 'evil.md'), `---\nname: evil\n---\n${OUTSIDE_MARKER}\n`);
  fs.writeFileSync(path.join(outside, 'agents', 'evil2.agent.md'), `---\nname: evil2\n---\n${OUTSIDE_MARKER}\n`);
  const at = (name: string) => path.join(root, name);
  fs.mkdirSync(root);
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(at(file)), { recursive: true });
    fs.writeFileSync(at(file), text);
  }
  const library = new PresetLibrary(new NodeKnowledgeFiles(() => root), bundled, () => root);
  return { root, outside, at, library };
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

describe('adversarial: custom agents a repository ships (issue 35, item 4)', function () {
  this.timeout(120_000);

  it('a huge body is cut with a note; a huge front matter leaves the file out, said', async () => {
    const box = setUp({
      '.claude/agents/big.md': `---\nname: big\n---\nBIG_START ${'x'.repeat(4 * 1024 * 1024)}`,
      '.claude/agents/fat.md': `---\nname: fat\ndescription: ${'y'.repeat(MAX_FRONT_MATTER_CHARS + 10)}\n---\nFAT`,
      '.claude/agents/endless.md': `---\nname: endless\n${'k: v\n'.repeat(1024 * 1024)}`,
    });
    const { entries, problems } = await box.library.catalog();
    assert.deepEqual(
      entries.map((entry) => entry.name),
      ['big', 'coding'],
    );
    const big = await box.library.load('big');
    assert.ok(big.text.length < MAX_AGENT_INSTRUCTION_CHARS + 1000, String(big.text.length));
    assert.match(big.text, /BIG_START x+\n\[… \.claude\/agents\/big\.md is \d+ characters; cut at 30000\.\]$/);
    const about = (file: string) => problems.find((problem) => problem.file === file)?.message ?? '';
    assert.match(about('.claude/agents/fat.md'), /front matter is longer than 16000 characters; the file is left out/);
    assert.match(about('.claude/agents/endless.md'), /front matter is longer than 16000 characters/);
  });

  it('10,000 agents: the first hundred by name are read, the rest reported, the picker stays usable', async () => {
    const box = setUp();
    fs.mkdirSync(box.at('.github/agents'), { recursive: true });
    for (let index = 0; index < 10_000; index++)
      fs.writeFileSync(
        box.at(`.github/agents/a${String(index).padStart(5, '0')}.agent.md`),
        `---\ndescription: agent ${index}\n---\nAGENT_${index}`,
      );
    const { entries, problems } = await withinSeconds(60, box.library.catalog());
    assert.equal(entries.length, MAX_AGENTS_PER_FOLDER + 1);
    assert.equal(entries.at(-2)!.name, `a${String(MAX_AGENTS_PER_FOLDER - 1).padStart(5, '0')}`);
    assert.deepEqual(problems, [
      { file: '.github/agents', message: '10000 custom agents; the first 100 by name are read, the rest left out' },
    ]);
  });

  it('YAML bombs (alias expansion), front matter not YAML or not keys, duplicate keys: left out, each said', async () => {
    const laughs = [
      'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]',
      ...Array.from({ length: 9 }, (_, level) => {
        const previous = String.fromCharCode(97 + level);
        const name = String.fromCharCode(98 + level);
        return `${name}: &${name} [${Array(9).fill(`*${previous}`).join(',')}]`;
      }),
      'tools: *j',
    ].join('\n');
    const box = setUp({
      '.claude/agents/bomb.md': `---\n${laughs}\n---\nBOMB`,
      '.claude/agents/broken.md': '---\nname: [unclosed\ntools: Read\n---\nBROKEN',
      '.claude/agents/list.md': '---\n- just\n- a list\n---\nLIST',
      '.claude/agents/twice.md': '---\ntools: Read\ntools: Bash\n---\nTWICE',
      '.claude/agents/scalar.md': '---\njust a string\n---\nSCALAR',
    });
    const { entries, problems } = await withinSeconds(30, box.library.catalog());
    assert.deepEqual(
      entries.map((entry) => entry.name),
      ['coding'],
    );
    const about = (name: string) => problems.find((problem) => problem.file === `.claude/agents/${name}.md`)?.message;
    assert.match(about('bomb')!, /not valid YAML \(.*alias.*\); the file is left out/i);
    assert.match(about('broken')!, /not valid YAML/);
    assert.match(about('list')!, /not a set of keys/);
    assert.match(about('twice')!, /not valid YAML \(.*unique/i);
    assert.match(about('scalar')!, /not a set of keys/);
  });

  it('a tools field of the wrong type leaves the agent out: a restricted agent never gets every tool', async () => {
    const box = setUp({
      '.claude/agents/number.md': '---\ntools: 42\n---\nN',
      '.claude/agents/object.md': '---\ntools: { Read: true }\n---\nO',
      '.github/agents/mixed.agent.md': "---\ntools: ['read', 7, ['edit']]\n---\nM",
      '.github/agents/weird.agent.md': `---\ntools: ['read', "ba\\u0000sh", "${'z'.repeat(500)}", '../../etc']\n---\nW`,
    });
    const { entries, problems } = await box.library.catalog();
    assert.deepEqual(
      entries.map((entry) => entry.name),
      ['coding', 'weird'],
    );
    for (const file of ['.claude/agents/number.md', '.claude/agents/object.md', '.github/agents/mixed.agent.md'])
      assert.match(problems.find((problem) => problem.file === file)!.message, /tools must be a list/, file);
    const weird = await box.library.load('weird');
    assert.ok(weird.tools!.allows('read_file'));
    assert.equal(weird.tools!.allows('bash'), false);
    const notes = weird.agent!.notes.join('\n');
    assert.match(notes, /the tool name "ba\\u0000sh" is not a tool name/);
    assert.match(notes, /the tool name "z{80}…" is not a tool name/);
    assert.match(notes, /the tool "\.\.\/\.\.\/etc" is not one OpenAgent knows/);
  });

  it('names with control characters, path separators, `..`, icons or bidi marks are refused', async () => {
    const box = setUp({
      '.claude/agents/one.md': '---\nname: "evil\\u001b[31m"\n---\nONE',
      '.claude/agents/two.md': '---\nname: ../../coding\n---\nTWO',
      '.claude/agents/three.md': '---\nname: a/b\n---\nTHREE',
      '.claude/agents/four.md': '---\nname: "$(check) coding"\n---\nFOUR',
      '.claude/agents/five.md': '---\nname: "safe\\u202Egnp.exe"\n---\nFIVE',
      '.claude/agents/six.md': '---\nname: 12\ndescription: "line\\nbreak $(alert) \\u0007"\n---\nSIX',
    });
    fs.writeFileSync(box.at('.claude/agents/bad\u0007name.md'), 'BELL');
    fs.writeFileSync(box.at('.claude/agents/..md'), 'DOTS');
    const { entries, problems } = await box.library.catalog();
    // Each refused name falls back to its file's name, with a note; the unusable file names are left out.
    assert.deepEqual(
      entries.map((entry) => entry.name),
      ['coding', 'five', 'four', 'one', 'six', 'three', 'two'],
    );
    assert.equal(entries.find((entry) => entry.name === 'six')!.description, 'line break $ (alert)');
    assert.ok(problems.some((problem) => problem.file === '.claude/agents/bad\\u0007name.md'));
    assert.ok(problems.some((problem) => problem.file === '.claude/agents/..md'));
    const notes = (name: string) => entries.find((entry) => entry.name === name)!.agent!.notes.join('\n');
    assert.match(notes('one'), /control or invisible characters/);
    assert.match(notes('two'), /looks like a path/);
    assert.match(notes('four'), /icon syntax/);
    assert.match(notes('five'), /control or invisible characters/);
    assert.match(notes('six'), /is not text/);
  });

  it('agent files and folders linked out of the workspace are not read', async () => {
    const box = setUp();
    fs.mkdirSync(box.at('.claude/agents'), { recursive: true });
    fs.symlinkSync(path.join(box.outside, 'evil.md'), box.at('.claude/agents/evil.md'));
    fs.mkdirSync(box.at('.github'), { recursive: true });
    fs.symlinkSync(path.join(box.outside, 'agents'), box.at('.github/agents'));
    const { entries, problems } = await box.library.catalog();
    assert.deepEqual(
      entries.map((entry) => entry.name),
      ['coding'],
    );
    assert.deepEqual(
      problems.map((problem) => problem.file),
      ['.github/agents/evil2.agent.md', '.claude/agents/evil.md'],
    );
    assert.match(problems[0]!.message, /no regular file inside the workspace/);
    const loaded = await box.library.load('evil');
    assert.doesNotMatch(loaded.text, new RegExp(OUTSIDE_MARKER));
  });

  it('a FIFO named like an agent: nothing hangs, it is reported', async function () {
    if (spawnSync('mkfifo', ['--version']).status !== 0) this.skip();
    const box = setUp({ '.claude/agents/ok.md': 'OK' });
    assert.equal(spawnSync('mkfifo', [box.at('.claude/agents/pipe.md')]).status, 0);
    const { entries, problems } = await withinSeconds(30, box.library.catalog());
    assert.deepEqual(
      entries.map((entry) => entry.name),
      ['coding', 'ok'],
    );
    assert.ok(
      problems.some((problem) => problem.file === '.claude/agents/pipe.md'),
      JSON.stringify(problems),
    );
  });

  it('a secret in an agent file is redacted before it can reach a prompt or a picker', async () => {
    const key = `sk-ant-api03-${'Q'.repeat(40)}`;
    const box = setUp({
      '.claude/agents/leaky.md': `---\ndescription: uses ${key}\n---\nThe key is ${key}.`,
    });
    const loaded = await box.library.load('leaky');
    const { entries } = await box.library.catalog();
    assert.doesNotMatch(loaded.text, /Q{40}/);
    assert.doesNotMatch(entries.find((entry) => entry.name === 'leaky')!.description, /Q{40}/);
  });
});
