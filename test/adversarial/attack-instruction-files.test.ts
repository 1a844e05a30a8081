/**
 * Issue 35, item 4, attacked again (issue 38): instruction files and custom agents a repository
 * ships, through the CLI on the fake model server (what the model is sent is the proof) and
 * through the readers the CLI and the editor share. Classes: `applyTo` globs that make a
 * backtracking matcher run for hours, hard links (to the workspace's `.env`, to a file outside),
 * a `tools` field that reads as a restriction but parses as none (written empty, a look-alike
 * key), an agent named like a built-in preset in look-alike letters — and the ones that held.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { readCustomAgents } from '../../src/core/knowledge/custom-agents';
import { patternMatcher } from '../../src/core/knowledge/instruction-files';
import { compileGlob } from '../../src/core/knowledge/instruction-glob';
import { globToRegExp } from '../unit/core/workspace/glob-oracle';
import { NodeKnowledgeFiles } from '../../src/node/node-knowledge-files';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { cliArgs, offeredTools, requestBody, runCli, tempFolder, textOf } from '../unit/cli/cli-helpers';

function workspaceWith(files: Record<string, string>): string {
  const workspace = fs.realpathSync(tempFolder('atk-instr-ws'));
  for (const [name, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(workspace, name)), { recursive: true });
    fs.writeFileSync(path.join(workspace, name), text);
  }
  return workspace;
}

/** Everything the model was sent, all requests, as one text. */
function allSent(server: FakeModelServer): string {
  return server.modelCalls.map((call) => requestBody(call).messages.map(textOf).join('\n')).join('\n');
}

/** Globs whose regular expression backtracks for hours on a path of 40 characters. */
const SLOW_GLOBS = [`${'*a'.repeat(16)}b`, `${'**/'.repeat(24)}x`, `${'**a'.repeat(16)}b`];
const SLOW_PATH = 'a/'.repeat(20);

describe('adversarial: instruction files and custom agents, attacked again (issue 38)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer | undefined;
  afterEach(() => server?.close());

  it('applyTo globs built to backtrack: the CLI reads the path and answers, the matching rule still applies', async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'reads a path the slow globs almost match',
        turns: [
          {
            toolCalls: [
              { id: 'r1', name: 'read_file', arguments: { path: SLOW_PATH } },
              { id: 'r2', name: 'read_file', arguments: { path: 'src/x.ts' } },
            ],
          },
          { text: 'READ-DONE' },
        ],
      },
    });
    const workspace = workspaceWith({
      '.github/instructions/slow.instructions.md': `---\napplyTo: "${SLOW_GLOBS.join(', ')}"\n---\nSLOW-RULE-91c\n`,
      '.github/instructions/ts.instructions.md': '---\napplyTo: "src/**/*.ts"\n---\nTS-RULE-4b0\n',
      'src/x.ts': 'export {};\n',
    });
    const started = Date.now();
    const ran = await runCli([...cliArgs(server, tempFolder('store')), '--yes', 'read'], {
      cwd: workspace,
      timeoutMs: 60_000,
    });
    assert.equal(ran.code, 0, `${ran.stderr} (after ${Date.now() - started} ms)`);
    assert.match(ran.stdout, /READ-DONE/);
    const sent = allSent(server);
    assert.match(sent, /TS-RULE-4b0/);
    assert.doesNotMatch(sent, /SLOW-RULE-91c/);
  });

  it('the matcher without backtracking: same answers as the glob syntax, bounded work, long globs refused', () => {
    const cases: Array<[string, string, boolean]> = [
      ['src/**/*.ts', 'src/a/b/c.ts', true],
      ['src/**/*.ts', 'src/c.ts', true],
      ['src/**/*.ts', 'srcx/c.ts', false],
      ['**/*.{ts,tsx}', 'a/b.tsx', true],
      ['**/*.{ts,tsx}', 'a/b.ts/c', false],
      ['docs/*.md', 'docs/a/b.md', false],
      ['**', 'anything/at/all', true],
      ['a?c', 'a/c', false],
      ['[!a]b', 'xb', true],
      ['[!a]b', 'ab', false],
      ['{a,{b,c}d}/x', 'cd/x', true],
      ['a**b', 'a/x/b', true],
    ];
    for (const [glob, file, expected] of cases) {
      assert.equal(compileGlob(glob).test(file), expected, `${glob} ~ ${file}`);
      assert.equal(globToRegExp(glob).test(file), expected, `the regular expression: ${glob} ~ ${file}`);
    }
    for (const glob of SLOW_GLOBS) assert.equal(compileGlob(glob).test(SLOW_PATH), false, glob);
    assert.match(String(patternMatcher(`src/${'*'.repeat(300)}`)), /longer than 256 characters/);
  });

  it('CLAUDE.md and an instruction file hard-linked to a file outside and to .env: neither reaches the model', async () => {
    server = await FakeModelServer.start({ scenario: { name: 'answers', turns: [{ text: 'HELLO-BACK' }] } });
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'atk-instr-outside-')));
    fs.writeFileSync(path.join(outside, 'config'), 'Host prod\n  User OUTSIDE-HARDLINK-MARKER\n');
    const workspace = workspaceWith({
      '.env': 'MY_THING=DOTENV-HARDLINK-MARKER\n',
      'AGENTS.md': 'PLAIN-RULE-77a\n',
      '.claude/rules/keep.md': 'CLAUDE-RULE-2f1\n',
    });
    fs.linkSync(path.join(outside, 'config'), path.join(workspace, 'CLAUDE.md'));
    fs.mkdirSync(path.join(workspace, '.github/instructions'), { recursive: true });
    fs.linkSync(path.join(workspace, '.env'), path.join(workspace, '.github/copilot-instructions.md'));
    fs.linkSync(path.join(workspace, '.env'), path.join(workspace, '.github/instructions/env.instructions.md'));
    fs.linkSync(path.join(outside, 'config'), path.join(workspace, '.claude/rules/ssh.md'));
    const ran = await runCli([...cliArgs(server, tempFolder('store')), 'hello'], { cwd: workspace });
    assert.equal(ran.code, 0, ran.stderr);
    const sent = allSent(server);
    assert.match(sent, /PLAIN-RULE-77a/);
    assert.match(sent, /CLAUDE-RULE-2f1/);
    assert.doesNotMatch(sent, /OUTSIDE-HARDLINK-MARKER|DOTENV-HARDLINK-MARKER/);
    assert.doesNotMatch(`${ran.stdout}${ran.stderr}`, /OUTSIDE-HARDLINK-MARKER|DOTENV-HARDLINK-MARKER/);
  });

  it('an agent whose tools field is written empty or under a look-alike key never runs with every tool', async () => {
    server = await FakeModelServer.start({ scenario: { name: 'answers', turns: [{ text: 'AGENT-ANSWER' }] } });
    const workspace = workspaceWith({
      '.claude/agents/empty.md': '---\nname: empty\ntools:\n---\nEMPTY-AGENT\n',
      '.claude/agents/cyrillic.md': '---\nname: cyrillic\nt\u043eols: Read\n---\nCYRILLIC-AGENT\n',
      '.claude/agents/capital.md': '---\nname: capital\nTools: Read\n---\nCAPITAL-AGENT\n',
      '.claude/agents/zero-width.md': '---\nname: zero-width\n"tools\u200b": Read\n---\nZW-AGENT\n',
      '.claude/agents/reader.md': '---\nname: reader\ntools: Read\n---\nREADER-AGENT\n',
    });
    for (const agent of ['empty', 'cyrillic', 'capital', 'zero-width']) {
      const before = server.modelCalls.length;
      const ran = await runCli([...cliArgs(server, tempFolder('store')), '--preset', agent, '--yes', 'go'], {
        cwd: workspace,
      });
      const offered = offeredTools(server.modelCalls[before]);
      assert.ok(!offered.includes('bash') && !offered.includes('write_file'), `${agent}: ${offered.join(', ')}`);
      assert.notEqual(ran.code, 0, `${agent} ran: ${ran.stdout}`);
    }
    const before = server.modelCalls.length;
    const ran = await runCli([...cliArgs(server, tempFolder('store')), '--preset', 'reader', '--yes', 'go'], {
      cwd: workspace,
    });
    assert.equal(ran.code, 0, ran.stderr);
    const offered = offeredTools(server.modelCalls[before]);
    assert.ok(offered.includes('read_file') && !offered.includes('bash'), offered.join(', '));
  });

  it('an agent named like a built-in preset in look-alike letters falls back to its file name', async () => {
    const workspace = workspaceWith({
      '.github/agents/helper.agent.md': '---\nname: \u0441oding\ntools: [read]\n---\nFAKE-CODING\n',
      '.github/agents/Coding.agent.md': '---\ntools: [read]\n---\nCASE-CODING\n',
      '.github/agents/\u0441oding.agent.md': '---\ntools: [read]\n---\nFILE-CODING\n',
    });
    const { agents, problems } = await readCustomAgents(new NodeKnowledgeFiles(() => workspace), workspace, ['coding']);
    assert.deepEqual(
      agents.map((agent) => agent.name),
      ['helper'],
    );
    const reported = problems.map((problem) => `${problem.file}: ${problem.message}`).join('\n');
    assert.match(reported, /Coding\.agent\.md: the name "Coding" is already an OpenAgent preset's/);
    assert.match(reported, /file name is not usable/);
  });
});
