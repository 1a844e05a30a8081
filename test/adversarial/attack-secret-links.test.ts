/**
 * Attacking issue 32, item 1 (second pass): secret files reached under names that say nothing —
 * hard links (named `notes.txt`, `.env.example`, a notebook, made in the middle of a session,
 * reached through a linked folder) and paths through `/proc/self`. Every call goes through the
 * real executor, the real tools (ripgrep included), the real assessment and an allow-everything
 * policy with auto-approve on; the user, when asked, says no. No marker of a secret may come back
 * in a call nobody approved; a call that names one must ask.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Hooks } from '../../src/core/agent/hooks';
import { executeToolCall } from '../../src/core/agent/tool-executor';
import { parseAgentPolicy } from '../../src/core/policy/agent-policy';
import type { ApprovalRequest } from '../../src/core/policy/approval';
import { AutoApprovalGate } from '../../src/core/policy/auto-approval';
import { CallAssessor } from '../../src/core/policy/call-risk';
import { toolPolicyFrom } from '../../src/core/policy/policy-rules';
import type { CodeLocation, CodeNavigation } from '../../src/core/ports';
import { createWorkspaceTools } from '../../src/core/tools/builtin/workspace-tools';
import { ToolRegistry } from '../../src/core/tools/registry';
import { Checkpoints } from '../../src/core/workspace/checkpoints';
import { NodeWorkspace } from '../../src/node/node-workspace';
import { findRipgrep, RipgrepSearch } from '../../src/node/ripgrep-search';
import { SecretFiles } from '../../src/node/secret-files';

const ALLOW_EVERYTHING = toolPolicyFrom(
  () =>
    parseAgentPolicy(
      'tools:\n  bash:\n    allow: ["*"]\napprovals:\n  auto_approve: [write_file, edit_file, bash, read_only]\n',
    ).policy,
);

const ENV_MARKER = 'MARKER_HARDLINK_ENV_5d1c';
const KEY_MARKER = 'MARKER_HARDLINK_KEY_77ab';
const leaked = (text: string) => [ENV_MARKER, KEY_MARKER].filter((marker) => text.includes(marker));

/** A workspace whose secrets also live under ordinary names, as hard links. */
function hostileWorkspace(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-attack-links-')));
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  };
  write('.env', `API_TOKEN=${ENV_MARKER}\n`);
  write('.ssh/id_ed25519', `-----BEGIN OPENSSH PRIVATE KEY-----\n${KEY_MARKER}\n-----END OPENSSH PRIVATE KEY-----\n`);
  write('src/app.ts', 'export const marker = "MARKER_PUBLIC";\n');
  const link = (target: string, name: string) => {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.linkSync(path.join(root, target), path.join(root, name));
  };
  link('.env', 'notes.txt');
  // A name the secret rules let through on purpose, and a notebook.
  link('.env', '.env.example');
  link('.env', 'docs/analysis.ipynb');
  link('.ssh/id_ed25519', 'deploy/README');
  // A linked folder in front of a hard link.
  fs.symlinkSync('docs', path.join(root, 'papers'));
  return root;
}

/** Language features that point into the hard links, quoting their lines. */
function hostileNavigation(root: string): CodeNavigation {
  const at = (file: string, line = 1): CodeLocation => ({ path: path.join(root, file), line, column: 1 });
  return {
    diagnostics: async () => [
      { ...at('notes.txt'), severity: 'error', message: `Unexpected ${ENV_MARKER}` },
      { ...at('src/app.ts'), severity: 'warning', message: 'unused' },
    ],
    findSymbols: async () => [{ ...at('docs/analysis.ipynb'), name: ENV_MARKER, kind: 'Constant' }],
    references: async () => [at('notes.txt'), at('deploy/README', 2), at('src/app.ts')],
    definitions: async () => [at('.env.example')],
  };
}

class Agent {
  readonly root = hostileWorkspace();
  // The file tools get the checkpointed workspace, as the product gives them.
  readonly workspace = new Checkpoints(new NodeWorkspace(this.root)).tracked();
  private readonly assessor = new CallAssessor(
    () => this.workspace,
    () => undefined,
    new SecretFiles().find,
  );
  readonly tools = createWorkspaceTools({
    files: this.workspace,
    search: new RipgrepSearch(findRipgrep(['/usr/bin/rg'])),
    shell: { run: () => Promise.reject(new Error('no shell in this test')) } as never,
    cwd: () => this.root,
    navigation: hostileNavigation(this.root),
    knowledge: [],
  });

  async call(name: string, input: unknown, approve = false): Promise<{ asked?: ApprovalRequest; output: string }> {
    let asked: ApprovalRequest | undefined;
    const user = {
      request: async (request: ApprovalRequest) => ((asked = request), { approved: approve, source: 'user' as const }),
    };
    const result = await executeToolCall(
      { id: `call-${Math.random()}`, name, input, valid: true, rawArguments: JSON.stringify(input) } as never,
      {
        conversationId: 'c1',
        agentId: 'lead',
        tools: new ToolRegistry(this.tools),
        isOffered: () => true,
        hooks: new Hooks(),
        policy: ALLOW_EVERYTHING,
        assess: (tool, toolInput) => this.assessor.assess(tool, toolInput, 'c1'),
        approvals: new AutoApprovalGate(user, () => true),
        maxToolOutputChars: 100_000,
        emit: () => undefined,
        now: () => 0,
      },
      new AbortController().signal,
    );
    return { ...(asked ? { asked } : {}), output: result.output };
  }
}

describe('attack: secret files under other names — hard links, /proc paths (issue 32.1)', function () {
  this.timeout(60_000);
  const agent = new Agent();

  describe('a hard link to a secret is asked about, whatever it is called', () => {
    for (const [tool, input] of [
      ['read_file', { path: 'notes.txt' }],
      ['read_file', { path: '.env.example' }],
      ['read_file', { path: 'docs/analysis.ipynb' }],
      ['read_file', { path: 'papers/analysis.ipynb' }],
      ['read_file', { path: 'deploy/README' }],
      ['read_file', { path: './deploy/../notes.txt' }],
      ['search_files', { pattern: 'MARKER', path: 'notes.txt' }],
      ['search_files', { pattern: 'MARKER', path: 'papers/analysis.ipynb' }],
      ['edit_file', { path: 'notes.txt', edits: [{ oldText: 'not in it', newText: 'x' }] }],
      ['find_references', { path: 'notes.txt', line: 1, symbol: 'API_TOKEN' }],
      ['get_diagnostics', { path: 'deploy/README' }],
    ] as const) {
      it(`${tool} ${JSON.stringify(input)}: asked, and nothing comes back when the user says no`, async () => {
        const { asked, output } = await agent.call(tool, input);
        assert.ok(asked, `not asked: ${output}`);
        assert.match(asked.risk.reasons.join(' '), /holds secrets/);
        assert.deepEqual(leaked(output), [], output);
      });
    }

    it('approved, read_file shows that one secret', async () => {
      const { asked, output } = await agent.call('read_file', { path: 'notes.txt' }, true);
      assert.ok(asked);
      assert.deepEqual(leaked(output), [ENV_MARKER]);
    });
  });

  describe('search and language features leave hard-linked secrets out without asking', () => {
    for (const input of [
      { pattern: 'MARKER' },
      { pattern: 'MARKER', path: 'docs' },
      { pattern: 'MARKER', path: 'papers' },
      { pattern: 'MARKER', glob: '*.ipynb' },
      { pattern: 'MARKER', glob: '**/README' },
      { pattern: 'BEGIN OPENSSH', literal: true },
      { pattern: 'hardlink', caseSensitive: false },
    ]) {
      it(`search_files ${JSON.stringify(input)}: nothing of a secret, no question`, async () => {
        const { asked, output } = await agent.call('search_files', input);
        assert.equal(asked, undefined, output);
        assert.deepEqual(leaked(output), [], output);
        assert.doesNotMatch(output, /notes\.txt:|analysis\.ipynb:|README:|\.env\.example:/);
      });
    }

    it('whether a hard-linked secret matched shows neither in the answer nor in the cut', async () => {
      const hit = await agent.call('search_files', { pattern: 'MARKER_HARDLINK_ENV' });
      const miss = await agent.call('search_files', { pattern: 'MARKER_HARDLINK_XXX' });
      assert.equal(hit.output.replace('MARKER_HARDLINK_ENV', 'MARKER_HARDLINK_XXX'), miss.output);
      // Four hard-linked matches and one ordinary one, one asked for: the secret ones do not count.
      const cut = await agent.call('search_files', { pattern: 'MARKER', maxResults: 1 });
      assert.match(cut.output, /src\/app\.ts:1:.*MARKER_PUBLIC/);
      assert.doesNotMatch(cut.output, /more matches/);
    });

    it('get_diagnostics, find_symbol, go_to_definition: no line of a hard-linked secret', async () => {
      const diagnostics = await agent.call('get_diagnostics', {});
      assert.deepEqual(leaked(diagnostics.output), [], diagnostics.output);
      assert.match(diagnostics.output, /secret files are not shown/);
      const symbols = await agent.call('find_symbol', { name: 'MARKER' });
      assert.deepEqual(leaked(symbols.output), [], symbols.output);
      const definitions = await agent.call('go_to_definition', { path: 'src/app.ts', line: 1, symbol: 'marker' });
      assert.deepEqual(leaked(definitions.output), [], definitions.output);
    });
  });

  it('a hard link made after the secret files were last looked for is a secret at once', async () => {
    assert.equal((await agent.call('search_files', { pattern: 'MARKER_PUBLIC' })).asked, undefined);
    fs.linkSync(path.join(agent.root, '.env'), path.join(agent.root, 'src', 'fresh.md'));
    const read = await agent.call('read_file', { path: 'src/fresh.md' });
    assert.ok(read.asked, read.output);
    const search = await agent.call('search_files', { pattern: 'MARKER', path: 'src' });
    assert.deepEqual(leaked(search.output + read.output), [], search.output);
  });

  it('an ordinary file with two hard links (a package store) is read without asking', async () => {
    fs.writeFileSync(path.join(agent.root, 'src', 'shared.ts'), 'export const shared = 1;\n');
    fs.linkSync(path.join(agent.root, 'src', 'shared.ts'), path.join(agent.root, 'src', 'store-copy.ts'));
    const { asked, output } = await agent.call('read_file', { path: 'src/store-copy.ts' });
    assert.equal(asked, undefined);
    assert.match(output, /export const shared/);
  });

  for (const via of ['/proc/self/root', '/proc/self/cwd/..', '/proc/thread-self/root']) {
    it(`read_file and search_files through ${via}: no secret`, async () => {
      for (const file of ['.env', 'notes.txt']) {
        const read = await agent.call('read_file', { path: `${via}${agent.root}/${file}` });
        assert.deepEqual(leaked(read.output), [], read.output);
        const search = await agent.call('search_files', { pattern: 'MARKER', path: `${via}${agent.root}` });
        assert.deepEqual(leaked(search.output), [], search.output);
      }
    });
  }
});
