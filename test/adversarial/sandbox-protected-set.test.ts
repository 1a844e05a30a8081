/**
 * Issue 32, items 4–6 (sandbox side), against a real bubblewrap: one protected set, decided on
 * real paths, for the sandbox and the file tools alike — nested repositories, `.git` files and
 * the folders they name, hooks folders and programs a git config names, manifests at depth,
 * files with other names (hard links) — and a home folder whose tool folders are bound back
 * only after resolving them, their credential files covered by what they are. Harmless markers
 * only. Skipped (and said so) only where bubblewrap cannot run; CI installs it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAgentPolicy } from '../../src/core/policy/agent-policy';
import { toolPolicyFrom } from '../../src/core/policy/policy-rules';
import { ChildProcessShell } from '../../src/node/child-process-shell';
import { OsSandbox } from '../../src/node/sandbox/os-sandbox';
import { protectedSet } from '../../src/node/sandbox/protected-set';
import { RiskProbe } from '../fixtures/call-risk';
import { TEST_TIMEOUT_MS } from '../harness/patience';

// Not under /tmp: the sandbox has a private /tmp, which would hide the folders anyway.
const TEST_BASE = path.join(os.homedir(), '.cache', 'openagent-protected-set-tests');
const MARKER = 'OPENAGENT-MARKER-PWNED';
const SECRET = 'OPENAGENT-MARKER-SECRET';

interface Rig {
  root: string;
  outside: string;
  home: string;
  write(relative: string, text: string): string;
  run(command: string): Promise<{ output: string; exitCode: number | undefined }>;
}

function rig(options: { path?: (home: string) => string } = {}): Rig {
  fs.mkdirSync(TEST_BASE, { recursive: true });
  const base = fs.realpathSync(fs.mkdtempSync(path.join(TEST_BASE, 'rig-')));
  const root = path.join(base, 'repo');
  const outside = path.join(base, 'outside');
  const home = path.join(base, 'home');
  for (const folder of [root, outside, home, path.join(root, '.git/hooks'), path.join(root, '.openagent')])
    fs.mkdirSync(folder, { recursive: true });
  const write = (relative: string, text: string) => {
    const absolute = path.isAbsolute(relative) ? relative : path.join(root, relative);
    fs.mkdirSync(path.dirname(absolute), { recursive: true });
    fs.writeFileSync(absolute, text);
    return absolute;
  };
  write('.git/config', '[core]\n');
  write('.openagent/agent.yaml', 'tools: {}\n');
  const sandbox = new OsSandbox(
    { mode: () => 'auto', network: () => false, passEnv: () => [], root: () => root },
    { home, env: { PATH: options.path ? options.path(home) : process.env.PATH!, HOME: home } },
  );
  const shell = new ChildProcessShell(undefined, sandbox);
  return {
    root,
    outside,
    home,
    write,
    run: async (command) => {
      const result = await shell.run(command, { cwd: root, timeoutMs: 60_000, maxOutputChars: 20_000 });
      return { output: result.output, exitCode: result.exitCode };
    },
  };
}

const read = (file: string) => fs.readFileSync(file, 'utf8');

const available = new OsSandbox({
  mode: () => 'auto',
  network: () => false,
  passEnv: () => [],
  root: () => os.tmpdir(),
}).status().confined;

const ALLOW_EVERYTHING = toolPolicyFrom(
  () =>
    parseAgentPolicy(
      'tools:\n  bash:\n    allow: ["*"]\napprovals:\n  auto_approve: [write_file, edit_file, bash, read_only]\n',
    ).policy,
);

/** A workspace whose git configuration names places that no name rule knows. */
function namedPlaces(r: Rig): void {
  r.write('innocent/folder/config', '[core]\n');
  r.write('innocent/folder/HEAD', 'ref: refs/heads/main\n');
  r.write('sub/.git', 'gitdir: ../innocent/folder\n');
  r.write('abs/.git', `gitdir: ${path.join(r.root, 'elsewhere/gitdir')}\n`);
  r.write('elsewhere/gitdir/config', '[core]\n');
  r.write(
    '.git/config',
    '[core]\n\thooksPath = tools/hooks ; a comment\n\tfsmonitor = "scripts/watch.sh"\n[include]\n\tpath = ../gitconfig.local\n[filter "x"]\n\tclean = ./bin/clean --quiet\n',
  );
  r.write('tools/hooks/pre-push', '#!/bin/sh\n');
  r.write('scripts/watch.sh', '#!/bin/sh\n');
  r.write('gitconfig.local', '[core]\n');
  r.write('bin/clean', '#!/bin/sh\n');
  r.write('nested/repo/.git/config', '[core]\n\thooksPath = "../git hooks"\n');
  r.write('nested/git hooks/post-checkout', '#!/bin/sh\n');
  r.write('.yarnrc.yml', 'yarnPath: .yarn/releases/yarn-4.cjs\n');
  r.write('.yarn/releases/yarn-4.cjs', '// yarn\n');
  r.write('src/ok.ts', 'export {};\n');
}

describe('adversarial: one protected set for the sandbox and the file tools (issue 32)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  after(() => fs.rmSync(TEST_BASE, { recursive: true, force: true }));
  before(function () {
    if (!available) {
      console.warn('    (bubblewrap cannot run here: the sandbox tests are skipped; CI installs it)');
      this.skip();
    }
  });

  describe('a confined command cannot change nested repositories or what a git config names', () => {
    const cases: Array<[string, string, string]> = [
      [
        'a nested repository config',
        'nested/repo/.git/config',
        `printf '[core]\\n\\tfsmonitor = ${MARKER}\\n' >> nested/repo/.git/config`,
      ],
      ['a deep nested hook', 'a/b/c/d/.git/hooks/pre-commit', `echo ${MARKER} > a/b/c/d/.git/hooks/pre-commit`],
      ['the folder a .git file names', 'innocent/folder/config', `echo ${MARKER} >> innocent/folder/config`],
      [
        'a new hook in the folder a .git file names',
        'innocent/folder/hooks/post-checkout',
        `mkdir -p innocent/folder/hooks; echo ${MARKER} > innocent/folder/hooks/post-checkout`,
      ],
      ['an absolute gitdir', 'elsewhere/gitdir/config', `echo ${MARKER} >> elsewhere/gitdir/config`],
      ['the hooksPath folder', 'tools/hooks/pre-commit', `echo ${MARKER} > tools/hooks/pre-commit`],
      ['an existing hook in the hooksPath folder', 'tools/hooks/pre-push', `echo ${MARKER} >> tools/hooks/pre-push`],
      [
        'a quoted hooksPath with a space, of a nested repo',
        'nested/git hooks/post-checkout',
        `echo ${MARKER} >> "nested/git hooks/post-checkout"`,
      ],
      ['the fsmonitor program', 'scripts/watch.sh', `echo ${MARKER} >> scripts/watch.sh`],
      ['an included config', 'gitconfig.local', `printf '[core]\\n\\tfsmonitor = ${MARKER}\\n' >> gitconfig.local`],
      ['a filter program', 'bin/clean', `echo ${MARKER} >> bin/clean`],
      ['the yarn a .yarnrc.yml runs', '.yarn/releases/yarn-4.cjs', `echo ${MARKER} >> .yarn/releases/yarn-4.cjs`],
      ['a manifest at depth', 'packages/app/package.json', `echo ${MARKER} > packages/app/package.json`],
      ['an rc file at depth', 'packages/app/.npmrc', `echo ${MARKER} >> packages/app/.npmrc`],
      ['an env file at depth', 'services/api/.env', `echo ${MARKER} >> services/api/.env`],
      [
        'editor settings at depth',
        'packages/app/.vscode/tasks.json',
        `echo ${MARKER} > packages/app/.vscode/tasks.json`,
      ],
      [
        'a workflow at depth',
        'packages/app/.github/workflows/ci.yml',
        `echo ${MARKER} >> packages/app/.github/workflows/ci.yml`,
      ],
    ];
    for (const [what, file, command] of cases) {
      it(`${what}: ${file}`, async () => {
        const r = rig();
        namedPlaces(r);
        r.write('a/b/c/d/.git/config', '[core]\n');
        fs.mkdirSync(path.join(r.root, 'a/b/c/d/.git/hooks'));
        r.write('packages/app/package.json', '{}\n');
        r.write('packages/app/.npmrc', 'fund=false\n');
        r.write('packages/app/.vscode/settings.json', '{}\n');
        r.write('packages/app/.github/workflows/ci.yml', 'on: push\n');
        r.write('services/api/.env', 'X=1\n');
        const absolute = path.join(r.root, file);
        const before = fs.existsSync(absolute) ? read(absolute) : undefined;
        const result = await r.run(command);
        assert.match(result.output, /Read-only file system|Permission denied/, result.output);
        assert.equal(fs.existsSync(absolute) ? read(absolute) : undefined, before);
      });
    }

    it('a worktree: its git folder and the common folder it names are read-only', async () => {
      const r = rig();
      r.write('main/.git/config', '[core]\n');
      r.write('main/.git/worktrees/wt/commondir', '../..\n');
      r.write('main/.git/worktrees/wt/HEAD', 'ref: refs/heads/x\n');
      r.write('wt/.git', 'gitdir: ../main/.git/worktrees/wt\n');
      const set = protectedSet(r.root);
      assert.ok(set.paths.some((entry) => entry.absolute === path.join(r.root, 'main/.git/worktrees/wt')));
      const result = await r.run(`echo ${MARKER} >> main/.git/worktrees/wt/HEAD; echo ${MARKER} >> main/.git/config`);
      assert.match(result.output, /Read-only file system/);
      assert.doesNotMatch(
        read(path.join(r.root, 'main/.git/config')) + read(path.join(r.root, 'main/.git/worktrees/wt/HEAD')),
        /MARKER/,
      );
    });

    it('a .git that is a link, at depth: its target is read-only', async () => {
      const r = rig();
      r.write('store/repo-git/config', '[core]\n');
      fs.mkdirSync(path.join(r.root, 'sub2'));
      fs.symlinkSync('../store/repo-git', path.join(r.root, 'sub2/.git'));
      await r.run(`echo ${MARKER} >> sub2/.git/config; echo ${MARKER} >> store/repo-git/config`);
      assert.equal(read(path.join(r.root, 'store/repo-git/config')), '[core]\n');
    });

    it('a nested repository cannot be moved aside (the folder above it is a mount point)', async () => {
      const r = rig();
      r.write('lib/.git/config', '[core]\n');
      const result = await r.run(`mv lib lib-moved && mkdir -p lib/.git && echo ${MARKER} > lib/.git/config`);
      assert.match(result.output, /Device or resource busy/);
      assert.equal(read(path.join(r.root, 'lib/.git/config')), '[core]\n');
      assert.equal(fs.existsSync(path.join(r.root, 'lib-moved')), false);
    });

    it('npm install still works confined (dependency folders and lock files are not protected from it)', async () => {
      const r = rig();
      r.write('dep/package.json', '{"name":"dep","version":"1.0.0"}\n');
      r.write('dep/index.js', 'module.exports = 1;\n');
      r.write('package.json', '{"name":"app","version":"1.0.0","dependencies":{"dep":"file:./dep"}}\n');
      const result = await r.run(
        'npm install --no-audit --no-fund --offline 2>&1; node -e "require(\'dep\')" && echo required',
      );
      assert.match(result.output, /required/, result.output);
      assert.ok(fs.existsSync(path.join(r.root, 'package-lock.json')));
      const manifest = await r.run(`echo ${MARKER} >> package.json`);
      assert.match(manifest.output, /Read-only file system/);
    });

    it('ordinary files stay writable (a protected set that covers everything would fail here)', async () => {
      const r = rig();
      namedPlaces(r);
      const result = await r.run(
        'echo changed > src/ok.ts && mkdir -p src/new && echo made > src/new/file.ts && cat src/ok.ts',
      );
      assert.equal(result.exitCode, 0, result.output);
      assert.equal(read(path.join(r.root, 'src/new/file.ts')), 'made\n');
    });
  });

  describe('the file tools ask about the same places (auto-approve and allow-everything on)', () => {
    // Made when these tests start, not when the file loads: other suites run in between.
    let r: Rig | undefined;
    let probe: RiskProbe | undefined;
    before(() => {
      r = rig();
      namedPlaces(r);
      probe = new RiskProbe(r.root);
    });
    for (const file of [
      'innocent/folder/config',
      'innocent/folder/hooks/pre-commit',
      'elsewhere/gitdir/config',
      'tools/hooks/pre-commit',
      'nested/git hooks/post-checkout',
      'scripts/watch.sh',
      'gitconfig.local',
      'bin/clean',
      '.yarn/releases/yarn-4.cjs',
      'sub/../innocent/folder/config',
    ]) {
      it(`write_file ${file}: asked, as a protected path`, async () => {
        const { outcome, request } = await probe!.outcome(
          'write_file',
          { path: file, content: MARKER },
          { policy: ALLOW_EVERYTHING, autoApprove: true },
        );
        assert.equal(outcome, 'asked');
        assert.equal(request?.risk.protectedPath, true);
        assert.notEqual(read(path.join(r!.root, 'innocent/folder/config')), MARKER);
      });
    }
    it('write_file src/ok.ts: not protected (the check can tell)', async () => {
      const risk = await probe!.risk('write_file', { path: 'src/ok.ts', content: 'x' });
      assert.equal(risk.protectedPath, false);
    });
  });

  describe('hard links: a protected file cannot be changed through another name', () => {
    for (const [protectedFile, other] of [
      ['.openagent/agent.yaml', 'notes.txt'],
      ['.git/config', 'docs/config.txt'],
      ['package.json', 'copy/package-copy.json'],
      ['.git/hooks/pre-commit', 'node_modules/pkg/index.js'],
      ['tools/hooks/pre-push', 'scratch.sh'],
    ]) {
      it(`${other} (linked to ${protectedFile})`, async () => {
        const r = rig();
        namedPlaces(r);
        const original = r.write(protectedFile!, 'original\n');
        fs.mkdirSync(path.dirname(path.join(r.root, other!)), { recursive: true });
        fs.linkSync(original, path.join(r.root, other!));
        const result = await r.run(`echo ${MARKER} > ${other}`);
        assert.equal(read(original), 'original\n', result.output);
      });
    }
    it('a file whose other name is outside the workspace is read-only to confined commands', async () => {
      const r = rig();
      const shared = path.join(r.outside, 'shared.js');
      fs.writeFileSync(shared, 'original\n');
      fs.mkdirSync(path.join(r.root, 'vendor'));
      fs.linkSync(shared, path.join(r.root, 'vendor/shared.js'));
      const result = await r.run(`echo ${MARKER} >> vendor/shared.js; echo ok > vendor/other.js`);
      assert.match(result.output, /Read-only file system/);
      assert.equal(read(shared), 'original\n');
      assert.equal(read(path.join(r.root, 'vendor/other.js')), 'ok\n');
    });
  });

  describe('a PATH entry that resolves to the home folder binds nothing of it', () => {
    const entries: Array<[string, (home: string) => string]> = [
      ['a trailing slash', (home) => `${home}/`],
      ['a dot', (home) => `${home}/./`],
      ['dot-dot', (home) => `${home}/.local/bin/../..`],
      ['a link to the home', (home) => `${home}/tools-link`],
      ['a link to a secret folder', (home) => `${home}/bin-link`],
      ['a folder that holds secrets', (home) => `${home}/.local`],
      ['the parent of the home', (home) => path.dirname(home)],
      ['a secret folder itself', (home) => `${home}/.config/gh`],
    ];
    for (const [what, entry] of entries) {
      it(what, async () => {
        const r = rig({ path: (home) => `${entry(home)}:/usr/bin:/bin` });
        r.write(path.join(r.home, '.netrc'), `machine x password ${SECRET}\n`);
        r.write(path.join(r.home, 'notes/token.txt'), `${SECRET}\n`);
        r.write(path.join(r.home, '.local/share/keyrings/login.keyring'), `${SECRET}\n`);
        r.write(path.join(r.home, '.config/gh/hosts.yml'), `oauth_token: ${SECRET}\n`);
        fs.mkdirSync(path.join(r.home, '.local/bin'), { recursive: true });
        fs.symlinkSync(r.home, path.join(r.home, 'tools-link'));
        fs.symlinkSync(path.join(r.home, '.config/gh'), path.join(r.home, 'bin-link'));
        const result = await r.run(
          `cat ~/.netrc ~/notes/token.txt ~/.local/share/keyrings/login.keyring ~/.config/gh/hosts.yml "${entry(r.home)}/.netrc" "${entry(r.home)}/hosts.yml" 2>&1; grep -r ${SECRET} ~ "${entry(r.home)}" 2>/dev/null`,
        );
        assert.doesNotMatch(result.output, new RegExp(SECRET));
      });
    }
  });

  describe('credential files in bound tool folders are hidden by what they are', () => {
    const files = [
      '.local/share/fnm/node-versions/v20.1.0/installation/etc/npmrc',
      '.volta/tools/image/node/20.1.0/etc/npmrc',
      '.asdf/installs/nodejs/20.1.0/etc/npmrc',
      '.local/share/mise/installs/node/20/etc/npmrc',
      '.nodenv/versions/20.1.0/etc/npmrc',
      '.nvm/versions/node/v20.1.0/etc/npmrc',
      'n/etc/npmrc',
      '.cargo/credentials.toml',
      '.cargo/credentials',
      '.pyenv/versions/3.12.0/pip.conf',
      '.pyenv/.pypirc',
      '.sdkman/candidates/gradle/current/gradle.properties',
      '.sdkman/candidates/maven/current/conf/settings.xml',
      '.asdf/installs/gh/2.0.0/hosts.yml',
      '.volta/.docker/config.json',
      '.bun/install/.npmrc',
      '.deno/auth.token',
      'go/.git-credentials',
    ];
    for (const file of files) {
      it(`~/${file}`, async () => {
        const r = rig({ path: (home) => `${home}/n/bin:${home}/.volta/bin:${process.env.PATH}` });
        r.write(path.join(r.home, file), `//registry.example/:_authToken=${SECRET}\n`);
        r.write(path.join(r.home, '.volta/bin/hello'), '#!/bin/sh\necho tool-runs\n');
        fs.chmodSync(path.join(r.home, '.volta/bin/hello'), 0o755);
        const result = await r.run(`cat ~/${file} 2>&1; grep -r ${SECRET} ~ 2>/dev/null; hello`);
        assert.doesNotMatch(result.output, new RegExp(SECRET));
        assert.match(result.output, /tool-runs/, 'the tool folder itself is still there');
      });
    }
  });
});
