/**
 * Issue 32, items 5–6, second pass (an attacker's inputs against the protected set): places a
 * git configuration or `.git` file names that do not exist yet, or are named in ways the first
 * walk did not read (a later word of a command, `~`, a trailing space git keeps), folders above
 * protected paths renamed, protected names that are links at depth, and a workspace larger
 * than the walk's caps. Against a real bubblewrap and the file tools' real assessment, with
 * harmless markers. Skipped (and said so) only where bubblewrap cannot run; CI installs it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAgentPolicy } from '../../src/core/policy/agent-policy';
import { toolPolicyFrom } from '../../src/core/policy/policy-rules';
import { ChildProcessShell } from '../../src/node/child-process-shell';
import { OsSandbox } from '../../src/node/sandbox/os-sandbox';
import { protectedSet, WALK_LIMITS } from '../../src/node/sandbox/protected-set';
import { RiskProbe } from '../fixtures/call-risk';
import { TEST_TIMEOUT_MS } from '../harness/patience';

// Inside the home folder (for `~`), not under /tmp: the sandbox has a private /tmp.
const TEST_BASE = path.join(os.homedir(), '.cache', 'openagent-named-places-tests');
const MARKER = 'OPENAGENT-MARKER-PWNED';

interface Rig {
  root: string;
  write(relative: string, text: string): string;
  run(command: string): Promise<string>;
}

function rig(): Rig {
  fs.mkdirSync(TEST_BASE, { recursive: true });
  const base = fs.realpathSync(fs.mkdtempSync(path.join(TEST_BASE, 'rig-')));
  const root = path.join(base, 'repo');
  const home = path.join(base, 'home');
  fs.mkdirSync(path.join(root, '.git/hooks'), { recursive: true });
  fs.mkdirSync(home);
  const write = (relative: string, text: string) => {
    const absolute = path.join(root, relative);
    fs.mkdirSync(path.dirname(absolute), { recursive: true });
    fs.writeFileSync(absolute, text);
    return absolute;
  };
  write('.git/config', '[core]\n');
  const sandbox = new OsSandbox(
    { mode: () => 'auto', network: () => false, passEnv: () => [], root: () => root },
    { home, env: { PATH: process.env.PATH!, HOME: home } },
  );
  const shell = new ChildProcessShell(undefined, sandbox);
  return {
    root,
    write,
    run: async (command) => (await shell.run(command, { cwd: root, timeoutMs: 60_000, maxOutputChars: 20_000 })).output,
  };
}

const contentOf = (file: string) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined);

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

/** Each: what, how the workspace is set up, the hostile command, the file that must not change. */
const CONFINED: Array<[string, (r: Rig) => void, string, string]> = [
  [
    'a script named by a later word of core.fsmonitor (`sh scripts/w.sh`)',
    (r) => (r.write('.git/config', '[core]\n\tfsmonitor = sh scripts/w.sh\n'), r.write('scripts/w.sh', 'ok\n')),
    `echo ${MARKER} >> scripts/w.sh`,
    'scripts/w.sh',
  ],
  [
    'a bare script name after an interpreter in an alias (`!bash st.sh`)',
    (r) => (r.write('.git/config', '[alias]\n\tst = "!bash st.sh --x"\n'), r.write('st.sh', 'ok\n')),
    `echo ${MARKER} >> st.sh`,
    'st.sh',
  ],
  [
    'a script after a variable (`${PWD}/tools/ssh`)',
    (r) => (r.write('.git/config', '[core]\n\tsshCommand = ${PWD}/tools/ssh -v\n'), r.write('tools/ssh', 'ok\n')),
    `echo ${MARKER} >> tools/ssh`,
    'tools/ssh',
  ],
  [
    'an included config that does not exist yet',
    (r) => r.write('.git/config', '[include]\n\tpath = ../gitconfig.local\n'),
    `printf '[core]\\n\\tfsmonitor = ${MARKER}\\n' > gitconfig.local`,
    'gitconfig.local',
  ],
  [
    'a hooks folder that does not exist yet',
    (r) => r.write('.git/config', '[core]\n\thooksPath = .hooks\n'),
    `mkdir -p .hooks; echo ${MARKER} > .hooks/pre-commit`,
    '.hooks/pre-commit',
  ],
  [
    'a hooks folder two levels down that does not exist yet',
    (r) => r.write('.git/config', '[core]\n\thooksPath = tools/git/hooks\n'),
    `rm -rf tools; mkdir -p tools/git/hooks; echo ${MARKER} > tools/git/hooks/pre-commit`,
    'tools/git/hooks/pre-commit',
  ],
  [
    'a fsmonitor program that does not exist yet',
    (r) => r.write('.git/config', '[core]\n\tfsmonitor = scripts/watch\n'),
    `mkdir -p scripts; echo ${MARKER} > scripts/watch`,
    'scripts/watch',
  ],
  [
    'the git folder a .git file names, not there yet',
    (r) => r.write('sub/.git', 'gitdir: ../modules/sub\n'),
    `mkdir -p modules/sub && echo ${MARKER} > modules/sub/config`,
    'modules/sub/config',
  ],
  [
    'a gitdir with a trailing space (git keeps it)',
    (r) => (
      r.write('sub/.git', 'gitdir: ../gd \n'),
      r.write('gd /config', '[core]\n'),
      r.write('gd/config', '[core]\n')
    ),
    `echo ${MARKER} >> "gd /config"`,
    'gd /config',
  ],
  [
    'a hooks folder named with ~',
    (r) => (
      r.write('.git/config', `[core]\n\thooksPath = ~/${path.relative(os.homedir(), r.root)}/hk\n`),
      r.write('hk/pre-commit', 'ok\n')
    ),
    `echo ${MARKER} >> hk/pre-commit`,
    'hk/pre-commit',
  ],
  [
    'a nested repository moved aside and replaced',
    (r) => r.write('sub/.git/config', '[core]\n'),
    `mv sub sub2; mkdir -p sub/.git; echo ${MARKER} > sub/.git/config`,
    'sub/.git/config',
  ],
  [
    'the folder above nested editor settings moved aside',
    (r) => r.write('pkg/.vscode/tasks.json', '{}\n'),
    `mv pkg pkg2; mkdir -p pkg/.vscode; echo ${MARKER} > pkg/.vscode/tasks.json`,
    'pkg/.vscode/tasks.json',
  ],
  [
    'a grandparent of a nested manifest removed whole',
    (r) => r.write('packages/app/package.json', '{}\n'),
    `rm -rf packages; mkdir -p packages/app; echo ${MARKER} > packages/app/package.json`,
    'packages/app/package.json',
  ],
  [
    'a nested manifest that is a link, replaced',
    (r) => (
      r.write('shared/pkg.json', '{}\n'),
      fs.mkdirSync(path.join(r.root, 'app')),
      fs.symlinkSync('../shared/pkg.json', path.join(r.root, 'app/package.json'))
    ),
    `rm app/package.json && echo ${MARKER} > app/package.json`,
    'app/package.json',
  ],
  [
    'a nested .git that is a link, replaced by a folder',
    (r) => (
      r.write('store/g/config', '[core]\n'),
      fs.mkdirSync(path.join(r.root, 'app')),
      fs.symlinkSync('../store/g', path.join(r.root, 'app/.git'))
    ),
    `rm app/.git && mkdir app/.git && echo ${MARKER} > app/.git/config`,
    'app/.git/config',
  ],
  [
    'a nested repository deeper than 12 folders',
    (r) => r.write('a/b/c/d/e/f/g/h/i/j/k/l/m/.git/config', '[core]\n'),
    `echo ${MARKER} >> a/b/c/d/e/f/g/h/i/j/k/l/m/.git/config`,
    'a/b/c/d/e/f/g/h/i/j/k/l/m/.git/config',
  ],
];

describe('adversarial: places a git config names, renamed parents, caps (issue 32, second pass)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  after(() => fs.rmSync(TEST_BASE, { recursive: true, force: true }));
  before(function () {
    if (!available) {
      console.warn('    (bubblewrap cannot run here: the sandbox tests are skipped; CI installs it)');
      this.skip();
    }
  });

  describe('a confined command cannot make or change them', () => {
    for (const [what, setup, command, file] of CONFINED) {
      it(what, async () => {
        const r = rig();
        setup(r);
        const absolute = path.join(r.root, file);
        const before = contentOf(absolute);
        const output = await r.run(command);
        assert.equal(contentOf(absolute), before, output);
      });
    }
  });

  it('stand-ins for missing places are gone after the run, and other files stay writable', async () => {
    const r = rig();
    r.write(
      '.git/config',
      '[core]\n\thooksPath = tools/git/hooks\n\tfsmonitor = scripts/watch\n[include]\n\tpath = ../local.cfg\n',
    );
    const output = await r.run(
      'ls -d tools/git/hooks scripts/watch local.cfg && echo made > notes.txt && mkdir -p tools/other && echo x > tools/other/y',
    );
    assert.match(output, /tools\/git\/hooks/);
    assert.equal(contentOf(path.join(r.root, 'notes.txt')), 'made\n');
    for (const gone of ['tools/git', 'scripts', 'local.cfg'])
      assert.equal(fs.existsSync(path.join(r.root, gone)), false, `${gone} left behind`);
    assert.equal(contentOf(path.join(r.root, 'tools/other/y')), 'x\n');
  });

  it('an ordinary folder can still be renamed and removed', async () => {
    const r = rig();
    r.write('pkg/package.json', '{}\n');
    r.write('build/out.js', 'x\n');
    const output = await r.run(
      'mv build build2 && rm -rf build2 && mkdir pkg/dist && mv pkg/dist pkg/dist2 && echo ok',
    );
    assert.match(output, /ok/);
  });

  describe('beyond the walk caps, what was not seen is read-only (and said)', () => {
    const saved = WALK_LIMITS.entries;
    afterEach(() => {
      WALK_LIMITS.entries = saved;
    });
    it('a nested repository after the entries cap', async () => {
      const r = rig();
      for (let at = 0; at < 60; at++) r.write(`aaa/f${at}`, '');
      r.write('zzz/deeper/.git/config', '[core]\n');
      WALK_LIMITS.entries = 50;
      assert.equal(protectedSet(r.root).truncated, true);
      const output = await r.run(`echo ${MARKER} >> zzz/deeper/.git/config; echo top > top.txt`);
      assert.equal(contentOf(path.join(r.root, 'zzz/deeper/.git/config')), '[core]\n');
      assert.match(output, /larger than the sandbox looks through/);
      assert.equal(contentOf(path.join(r.root, 'top.txt')), 'top\n', 'what was seen stays writable');
    });
  });

  describe('the file tools ask about the same places (auto-approve and allow-everything on)', () => {
    const r = available ? rig() : undefined;
    if (r) {
      r.write(
        '.git/config',
        '[core]\n\thooksPath = tools/hooks\n\tfsmonitor = bash scripts/watch.sh\n[include]\n\tpath = ../local.cfg\n',
      );
      r.write('scripts/watch.sh', 'ok\n');
      r.write('sub/.git', 'gitdir: ../modules/sub\n');
      r.write('other/.git', 'gitdir: ../real-gd\n');
      r.write('real-gd/config', '[core]\n');
      fs.symlinkSync('real-gd', path.join(r.root, 'gd-link'));
    }
    const probe = r && new RiskProbe(r.root);
    for (const file of [
      'local.cfg',
      'tools/hooks/pre-commit',
      'scripts/watch.sh',
      'modules/sub/config',
      'gd-link/config',
      'src/../real-gd/hooks/post-checkout',
    ]) {
      it(`write_file ${file}: asked, as a protected path`, async () => {
        const { outcome, request } = await probe!.outcome(
          'write_file',
          { path: file, content: MARKER },
          { policy: ALLOW_EVERYTHING, autoApprove: true },
        );
        assert.equal(outcome, 'asked');
        assert.equal(request?.risk.protectedPath, true);
      });
    }
    it('write_file src/ok.ts: not protected (the check can tell)', async () => {
      const risk = await probe!.risk('write_file', { path: 'src/ok.ts', content: 'x' });
      assert.equal(risk.protectedPath, false);
    });
  });
});
