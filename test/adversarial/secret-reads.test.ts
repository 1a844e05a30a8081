/**
 * Issue 32, item 1: "reads of secrets always ask" for every built-in tool that shows file
 * content — search, read, edit, diagnostics, symbols, references, skills — whatever the
 * model does with globs, links, case, `..`, absolute paths, ripgrep-looking patterns and
 * ignore files. Each call goes through the real executor, the real tools (ripgrep included),
 * the real assessment and an allow-everything policy with auto-approve on; the user, when
 * asked, says no. A secret's marker must never come back; a call that names a secret must ask.
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
import { withoutSecretChanges } from '../../src/core/policy/secret-reads';
import { isSecretPath } from '../../src/core/policy/protected-paths';
import type { CodeLocation, CodeNavigation, Diagnostic, SymbolMatch } from '../../src/core/ports';
import { SkillLibrary, createSkillTools } from '../../src/core/knowledge/skills';
import { createWorkspaceTools } from '../../src/core/tools/builtin/workspace-tools';
import { ToolRegistry } from '../../src/core/tools/registry';
import type { AnyTool } from '../../src/core/tools/tool';
import { NodeKnowledgeFiles } from '../../src/node/node-knowledge-files';
import { NodeWorkspace } from '../../src/node/node-workspace';
import { findRipgrep, RipgrepSearch } from '../../src/node/ripgrep-search';
import { SecretFiles } from '../../src/node/secret-files';

const ALLOW_EVERYTHING = toolPolicyFrom(
  () =>
    parseAgentPolicy(
      'tools:\n  bash:\n    allow: ["*"]\napprovals:\n  auto_approve: [write_file, edit_file, bash, read_only]\n',
    ).policy,
);

/** What each secret file holds; none of it may come back unless the user approved that very call. */
const SECRETS = {
  '.env': 'STRIPE_KEY=MARKER_ENV_7c1e\n',
  'sub/.ENV': 'TOKEN=MARKER_UPPER_e3a0\n',
  'config/.env.production': 'DB_PASSWORD=MARKER_PROD_51bb\n',
  'keys/server.pem': '-----BEGIN PRIVATE KEY-----\nMARKER_PEM_90fd\n-----END PRIVATE KEY-----\n',
  '.ssh/config': 'Host x\n  IdentityFile MARKER_SSH_2b7c\n',
  '.aws/credentials': '[default]\naws_secret_access_key = MARKER_AWS_d41e\n',
  'deploy/secrets.yaml': 'api: MARKER_YAML_3f3f\n',
};
const MARKERS = Object.values(SECRETS).map((text) => /MARKER_[A-Z]+_[0-9a-f]+/.exec(text)![0]);
const leaked = (text: string) => MARKERS.filter((marker) => text.includes(marker));

function hostileWorkspace(): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-secret-reads-')));
  const files: Record<string, string> = {
    ...SECRETS,
    '.env.example': 'STRIPE_KEY=example-not-secret\n',
    'src/app.ts': 'const key = process.env.STRIPE_KEY; // MARKER_PUBLIC\n',
    // The repository ignores `.env` … and re-includes it for ripgrep, as a hostile one may.
    '.gitignore': '.env\n.ssh/\n',
    '.ignore': '!.env\n!.ssh/\n!keys/\n',
    '.openagent/skills/helper/SKILL.md': '---\nname: helper\ndescription: Helps.\n---\nRead the files.\n',
    // A skill whose folder (a link below) holds the deployment secrets.
    'deploy/SKILL.md': '---\nname: deployer\ndescription: Deploys.\n---\nRead secrets.yaml.\n',
  };
  for (const [file, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    fs.writeFileSync(path.join(root, file), text);
  }
  const links: Record<string, string> = {
    'notes.txt': '.env',
    envlink: '.env',
    sshlink: '.ssh',
    awslink: '.aws',
    cfg: 'config',
    keylink: 'keys',
    mirror: '.',
    'src/readme.md': '../deploy/secrets.yaml',
    '.openagent/skills/helper/env.md': '../../../.env',
    '.openagent/skills/helper/ssh': '../../../.ssh',
    '.openagent/skills/deployer': '../../deploy',
  };
  for (const [link, target] of Object.entries(links)) fs.symlinkSync(target, path.join(root, link));
  return root;
}

/** Language features that report places inside the secret files, quoting their lines. */
function hostileNavigation(root: string): CodeNavigation {
  const at = (file: string, line = 1): CodeLocation => ({ path: path.join(root, file), line, column: 1 });
  const diagnostics: Diagnostic[] = [
    { ...at('.env'), severity: 'error', message: 'Unexpected "STRIPE_KEY=MARKER_ENV_7c1e"' },
    { ...at('notes.txt'), severity: 'warning', message: 'Odd value MARKER_ENV_7c1e' },
    { ...at('.ssh/config'), severity: 'info', message: 'Unknown MARKER_SSH_2b7c' },
    { ...at('src/app.ts'), severity: 'warning', message: 'key is never used' },
  ];
  const symbols: SymbolMatch[] = [
    { ...at('.env'), name: 'MARKER_ENV_7c1e', kind: 'Constant' },
    { ...at('deploy/secrets.yaml'), name: 'MARKER_YAML_3f3f', kind: 'Key' },
    { ...at('src/app.ts'), name: 'key', kind: 'Constant' },
  ];
  const places = [at('.env'), at('envlink'), at('keys/server.pem', 2), at('.aws/credentials', 2), at('src/app.ts')];
  return {
    diagnostics: async (absolute) => diagnostics.filter((item) => absolute === undefined || item.path === absolute),
    findSymbols: async () => symbols,
    references: async () => places,
    definitions: async () => places,
  };
}

class Agent {
  readonly root = hostileWorkspace();
  readonly workspace = new NodeWorkspace(this.root);
  private readonly assessor = new CallAssessor(
    () => this.workspace,
    () => undefined,
    new SecretFiles().find,
  );
  readonly tools: Map<string, AnyTool>;

  constructor() {
    const skills = new SkillLibrary(new NodeKnowledgeFiles(), () => [
      { folder: path.join(this.root, '.openagent', 'skills'), origin: 'workspace' },
    ]);
    const all = [
      ...createWorkspaceTools({
        files: this.workspace,
        search: new RipgrepSearch(findRipgrep(['/usr/bin/rg'])),
        shell: { run: () => Promise.reject(new Error('no shell in this test')) } as never,
        cwd: () => this.root,
        navigation: hostileNavigation(this.root),
        knowledge: createSkillTools(skills),
      }),
    ];
    this.tools = new Map(all.map((tool) => [tool.name, tool]));
  }

  /** A call through the real gates with auto-approve on; `approve` is what the user answers when asked. */
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
        tools: new ToolRegistry([...this.tools.values()]),
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

  /** The tool run on its own, as a caller that skips the gates would (no approval in its context). */
  async direct(name: string, input: unknown): Promise<string> {
    const tool = this.tools.get(name)!;
    const result = await tool.execute(tool.inputSchema.parse(input), {
      conversationId: 'c1',
      agentId: 'lead',
      toolCallId: 't',
      signal: new AbortController().signal,
    });
    return typeof result === 'string' ? result : result.output;
  }
}

describe('adversarial: reads of secrets always ask, in every tool that shows content (issue 32.1)', function () {
  this.timeout(60_000);
  const agent = new Agent();

  describe('search_files over the workspace leaves secret files out, without asking', () => {
    const searches: Array<Record<string, unknown>> = [
      { pattern: 'MARKER' },
      { pattern: 'MARKER', glob: '**/.e*' },
      { pattern: 'MARKER', glob: '{.env,x}' },
      { pattern: 'MARKER', glob: '.ENV' },
      { pattern: 'MARKER', glob: '*' },
      { pattern: 'MARKER', glob: '**/*' },
      { pattern: 'MARKER', glob: '.env*' },
      { pattern: 'MARKER', glob: '**/credentials' },
      { pattern: 'MARKER', glob: '*.pem' },
      { pattern: 'MARKER', glob: '**/.ssh/**' },
      { pattern: 'MARKER', glob: '!*.ts' },
      { pattern: 'MARKER', glob: '--no-ignore' },
      { pattern: 'MARKER', path: 'mirror' },
      { pattern: 'MARKER', path: 'cfg' },
      { pattern: 'MARKER', path: 'keylink' },
      { pattern: 'MARKER', path: 'sub' },
      { pattern: 'MARKER', path: './src' },
      { pattern: 'marker_[a-z]+_[0-9a-f]+', caseSensitive: false },
      { pattern: '-uuu' },
      { pattern: '--hidden' },
      { pattern: '-f.env' },
      { pattern: '.', literal: false, maxResults: 200 },
      { pattern: 'STRIPE_KEY', literal: true },
    ];
    for (const input of searches) {
      it(`${JSON.stringify(input)}: nothing of a secret file, no question`, async () => {
        const { asked, output } = await agent.call('search_files', input);
        assert.equal(asked, undefined, 'a search over ordinary folders runs without asking');
        assert.deepEqual(leaked(output), [], output);
        assert.ok(!/\.env:|server\.pem:|credentials:|notes\.txt:|readme\.md:|secrets\.yaml:/.test(output), output);
      });
    }

    it('still finds ordinary files, `.env.example` included', async () => {
      assert.match((await agent.call('search_files', { pattern: 'MARKER' })).output, /src\/app\.ts:1:.*MARKER_PUBLIC/);
      assert.match((await agent.call('search_files', { pattern: 'example-not-secret' })).output, /\.env\.example:1:/);
    });

    it('gives away nothing about whether a secret matched: not by the answer, not by the cut', async () => {
      const hit = await agent.call('search_files', { pattern: 'MARKER_ENV_7' });
      const miss = await agent.call('search_files', { pattern: 'MARKER_ENV_X' });
      assert.equal(hit.output.replace('MARKER_ENV_7', 'MARKER_ENV_X'), miss.output);
      assert.match(hit.output, /No matches.*Secret files .* are left out/s);
      // One ordinary match and several secret ones, one result asked for: the secret ones do not count.
      const cut = await agent.call('search_files', { pattern: 'MARKER_(PUBLIC|ENV|PEM|AWS)', maxResults: 1 });
      assert.match(cut.output, /MARKER_PUBLIC/);
      assert.doesNotMatch(cut.output, /more matches/);
    });
  });

  describe('search_files in a secret file or folder asks, however it is named', () => {
    const root = agent.root;
    for (const where of [
      '.env',
      './.env',
      'sub/../.env',
      './/./.env',
      `${root}/.env`,
      'envlink',
      'notes.txt',
      'mirror/.env',
      'sub/.ENV',
      '.ssh',
      '.ssh/',
      'sshlink',
      'awslink',
      'config/.env.production',
      'cfg/.env.production',
      'keylink/server.pem',
      'src/readme.md',
    ]) {
      it(`path ${where}: asked, and nothing comes back when the user says no`, async () => {
        const { asked, output } = await agent.call('search_files', { pattern: 'MARKER', path: where });
        assert.ok(asked, `not asked: ${output}`);
        assert.match(asked.risk.reasons.join(' '), /holds secrets/);
        assert.deepEqual(leaked(output), []);
      });
    }

    it('approved, it shows that secret and no other', async () => {
      const env = await agent.call('search_files', { pattern: 'MARKER', path: 'envlink' }, true);
      assert.deepEqual(leaked(env.output), ['MARKER_ENV_7c1e'], env.output);
      const ssh = await agent.call('search_files', { pattern: 'MARKER', path: 'sshlink' }, true);
      assert.deepEqual(leaked(ssh.output), ['MARKER_SSH_2b7c'], ssh.output);
    });
  });

  describe('read_file and edit_file of a secret ask, however it is named', () => {
    for (const target of [
      '.env',
      './.env',
      'sub/../.env',
      'src/../sub/../.env',
      'envlink',
      'notes.txt',
      'mirror/.env',
      'sub/.ENV',
      '.ssh/config',
      'sshlink/config',
      'awslink/credentials',
      'cfg/.env.production',
      'keylink/server.pem',
      './/keys/./server.pem',
      'src/readme.md',
    ]) {
      it(`read_file ${target}: asked, nothing comes back`, async () => {
        const { asked, output } = await agent.call('read_file', { path: target });
        assert.ok(asked, `not asked: ${output}`);
        assert.deepEqual(leaked(output), []);
      });
    }

    it('read_file by an absolute path: asked', async () => {
      const { asked } = await agent.call('read_file', { path: path.join(agent.root, 'keys', 'server.pem') });
      assert.ok(asked);
    });

    it('edit_file of a key file (whose refusals quote it) asks even with auto-approve on', async () => {
      const { asked, output } = await agent.call('edit_file', {
        path: 'keylink/server.pem',
        edits: [{ oldText: 'not there', newText: 'x' }],
      });
      assert.ok(asked, output);
      assert.deepEqual(leaked(output), []);
    });

    it('a caller that skips the gates gets a refusal, not the secret', async () => {
      for (const target of ['.env', 'notes.txt', 'sshlink/config'])
        assert.deepEqual(leaked(await agent.direct('read_file', { path: target })), [], target);
      assert.deepEqual(leaked(await agent.direct('search_files', { pattern: 'MARKER', path: 'envlink' })), []);
      assert.deepEqual(leaked(await agent.direct('get_diagnostics', { path: '.env' })), []);
    });

    it('approved, read_file shows it', async () => {
      const { output } = await agent.call('read_file', { path: 'notes.txt' }, true);
      assert.deepEqual(leaked(output), ['MARKER_ENV_7c1e']);
    });
  });

  describe('language features name places in secret files but show nothing of them', () => {
    it('get_diagnostics for the workspace: secret files’ problems left out, and it says so', async () => {
      const { asked, output } = await agent.call('get_diagnostics', {});
      assert.equal(asked, undefined);
      assert.deepEqual(leaked(output), [], output);
      assert.match(output, /src\/app\.ts:1:1 warning: key is never used/);
      assert.match(output, /Problems in secret files are not shown/);
    });

    for (const target of ['.env', 'notes.txt', '.ssh/config', 'sshlink/config']) {
      it(`get_diagnostics ${target}: asked`, async () => {
        const { asked, output } = await agent.call('get_diagnostics', { path: target });
        assert.ok(asked, output);
        assert.deepEqual(leaked(output), []);
      });
    }

    it('find_symbol: no symbol of a secret file', async () => {
      const { output } = await agent.call('find_symbol', { name: 'MARKER' });
      assert.deepEqual(leaked(output), [], output);
    });

    for (const tool of ['find_references', 'go_to_definition']) {
      it(`${tool} from an ordinary file: places in secrets named, their lines not shown`, async () => {
        const { asked, output } = await agent.call(tool, { path: 'src/app.ts', line: 1, symbol: 'STRIPE_KEY' });
        assert.equal(asked, undefined);
        assert.deepEqual(leaked(output), [], output);
        assert.match(output, /\.env:1:1 \(a secret file: not shown\)/);
        assert.match(output, /src\/app\.ts:1:1: const key/);
      });
      for (const target of ['.env', 'envlink', 'keylink/server.pem']) {
        it(`${tool} in ${target} (its line is read to find the symbol): asked`, async () => {
          const { asked, output } = await agent.call(tool, { path: target, line: 1, symbol: 'nothing' });
          assert.ok(asked, output);
          assert.deepEqual(leaked(output), []);
        });
      }
    }
  });

  describe('read_skill is no way around the question', () => {
    for (const [name, file] of [
      ['helper', 'env.md'],
      ['helper', 'ssh/config'],
      ['helper', './env.md'],
      ['deployer', 'secrets.yaml'],
      ['deployer', './secrets.yaml'],
      ['deployer', 'SECRETS.YAML'],
    ]) {
      it(`${name}: a skill file that is or leads to a secret (${file}): refused`, async () => {
        const { output } = await agent.call('read_skill', { name, file });
        assert.deepEqual(leaked(output), [], output);
        assert.match(output, /holds secrets|is not a file of the skill|has no file/);
      });
    }

    it('a secret inside a skill’s own folder is refused because it is a secret', async () => {
      const { output } = await agent.call('read_skill', { name: 'deployer', file: 'secrets.yaml' });
      assert.match(output, /holds secrets/);
    });
  });

  describe('@git: a diff leaves out the changes of secret files', () => {
    const diff = [
      'diff --git a/src/app.ts b/src/app.ts',
      '--- a/src/app.ts',
      '+++ b/src/app.ts',
      '@@ -1 +1 @@',
      '-old',
      '+new MARKER_PUBLIC',
      'diff --git a/.env b/.env',
      'index 1..2 100644',
      '--- a/.env',
      '+++ b/.env',
      '@@ -1 +1 @@',
      '-STRIPE_KEY=old',
      '+STRIPE_KEY=MARKER_ENV_7c1e',
      'diff --git a/notes b/keys/server.pem',
      'similarity index 90%',
      'rename from notes',
      'rename to keys/server.pem',
      '@@ -1 +1 @@',
      '+MARKER_PEM_90fd',
      'diff --git "a/conf/.env local" "b/conf/.env local"',
      '--- "a/conf/.env local"',
      '+++ "b/conf/.env local"',
      '@@ -0,0 +1 @@',
      '+MARKER_PROD_51bb',
      'diff --cc .aws/credentials',
      '@@@ -1,1 -1,1 +1,1 @@@',
      '++MARKER_AWS_d41e',
      'diff --git i/.ssh/config w/.ssh/config',
      '@@ -1 +1 @@',
      '+MARKER_SSH_2b7c',
      '',
    ].join('\n');

    it('keeps ordinary changes and names the secret files, without their lines', () => {
      const shown = withoutSecretChanges(diff, isSecretPath);
      assert.deepEqual(leaked(shown), [], shown);
      assert.match(shown, /\+new MARKER_PUBLIC/);
      assert.match(shown, /diff --git a\/\.env b\/\.env\n\(a secret file: its changes are not shown\)/);
    });
  });
});
