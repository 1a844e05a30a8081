/**
 * Issue 33, hostile inputs against the worktree sessions (src/node/worktrees/): session names
 * made to escape or deceive, a base folder that leads into the workspace or to `/`, a
 * repository whose configuration and environment try to run code on `git worktree add`,
 * commit, merge and diff (hooks, fsmonitor, includeIf, core.worktree, filters, merge drivers,
 * diff.external, signing, GIT_* variables), and a session writing outside its worktree (file
 * tools, confined commands, the main repository's hook and program paths). Every program the
 * attacks name would `touch` a PROOF file: none may appear. Real git, real bubblewrap (the
 * confined parts are skipped, and say so, only where bubblewrap cannot run).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WorktreeError } from '../../src/core/session/worktree-port';
import { NodeWorkspace } from '../../src/node/node-workspace';
import { OsSandbox } from '../../src/node/sandbox/os-sandbox';
import { protectedBy, protectedSet } from '../../src/node/sandbox/protected-set';
import { GitCommand } from '../../src/node/worktrees/git-command';
import { GitWorktrees } from '../../src/node/worktrees/git-worktrees';
import { runWorktreeSetup } from '../../src/node/worktrees/worktree-setup';
import { makeRig, type RepoRig } from '../unit/node/worktrees/worktree-rig';

// Under the home folder, not /tmp: the sandbox has a private /tmp.
const TEST_BASE = path.join(os.homedir(), '.cache', 'openagent-worktree-attacks');
const SETTINGS = { mode: () => 'auto' as const, network: () => false, passEnv: () => [] };
const confinedHere = new OsSandbox({ ...SETTINGS, root: () => os.tmpdir() }).status().confined;
const SLUG_BRANCH = /^openagent\/[a-z0-9]+(-[a-z0-9]+)*$/;

/**
 * The test's own git commands in the hostile repository, with everything it would run switched
 * off by hand (a PROOF made by the test itself would prove nothing).
 */
function userGit(rig: RepoRig, args: string[]): string {
  const off = [
    'core.hooksPath=/dev/null',
    'core.fsmonitor=false',
    'commit.gpgSign=false',
    'merge.verifySignatures=false',
    'merge.evil.driver=false',
  ];
  for (const filter of ['evil', 'lfs'])
    off.push(
      `filter.${filter}.clean=`,
      `filter.${filter}.smudge=`,
      `filter.${filter}.process=`,
      `filter.${filter}.required=false`,
    );
  return rig.git(['--work-tree', rig.workspace, ...off.flatMap((entry) => ['-c', entry]), ...args]);
}

function everyFile(folder: string): string[] {
  return fs.readdirSync(folder, { recursive: true, encoding: 'utf8' }).sort();
}

describe('attack: worktree sessions', function () {
  this.timeout(180_000);

  describe('session names', () => {
    const NAMES: Array<[string, string]> = [
      ['dot-dot', '..'],
      ['a path up and out', '../../../../etc/cron.d/x'],
      ['an absolute path', '/etc/passwd'],
      ['a leading dash (an option)', '-rf --force'],
      ['git option', '--upload-pack=touch PROOF'],
      ['control characters', 'fix\u0000bug\u001b[31m\nred\r\tend\u0007'],
      ['10,000 characters', 'a'.repeat(10_000)],
      ['empty', ''],
      ['only spaces and dots', ' . .. ... '],
      ['Cyrillic look-alikes of "paypal"', 'раураl'],
      ['full-width letters and slash', 'ｆｉｘ／ｂｕｇ'],
      ['right-to-left override', 'evil\u202Etxt.exe'],
      ['git revision syntax', 'HEAD@{1}^~:?*[\\'],
      ['a lock-file name', 'main.lock'],
      ['a Windows device name', 'CON'],
      ['shell syntax', '$(touch PROOF); `touch PROOF`'],
    ];

    let rig: RepoRig;
    const cwd = process.cwd();
    // Run from the rig's folder: a name taken as a relative path would make something there.
    before(() => {
      rig = makeRig();
      process.chdir(rig.folder);
    });
    after(() => process.chdir(cwd));

    for (const [what, name] of NAMES) {
      it(`makes a plain branch and folder from ${what}`, async () => {
        const { worktree } = await rig.worktrees.create({ name });
        assert.match(worktree.branch, SLUG_BRANCH);
        assert.ok(worktree.branch.length <= 'openagent/'.length + 48 + 4);
        assert.equal(path.dirname(worktree.root), rig.baseFolder, 'directly under the base folder');
        assert.ok(!/[\p{Cc}\p{Cf}]/u.test(worktree.name), 'no control or format characters in the shown name');
        assert.ok([...worktree.name].length <= 200);
        assert.deepEqual(fs.readdirSync(rig.folder).sort(), ['repo', 'worktrees'], 'nothing made beside them');
        assert.equal(fs.existsSync(path.join(rig.folder, 'PROOF')), false);
      });
    }

    it('gives every hostile name its own branch (look-alikes never collide with a real one silently)', async () => {
      const branches = rig.git(['branch', '--list', 'openagent/*', '--format=%(refname:short)']).trim().split('\n');
      assert.equal(new Set(branches).size, NAMES.length);
      for (const branch of branches) assert.match(branch, SLUG_BRANCH);
    });
  });

  describe('the base folder', () => {
    const refusals: Array<[string, (rig: RepoRig) => string]> = [
      [
        'a link into the workspace',
        (rig) => (
          fs.symlinkSync(path.join(rig.workspace, 'src'), path.join(rig.folder, 'link')),
          path.join(rig.folder, 'link')
        ),
      ],
      [
        'a link to /',
        (rig) => (fs.symlinkSync('/', path.join(rig.folder, 'root-link')), path.join(rig.folder, 'root-link')),
      ],
      [
        'a folder below a link into the workspace',
        (rig) => (
          fs.symlinkSync(rig.workspace, path.join(rig.folder, 'ws')),
          path.join(rig.folder, 'ws', 'not-yet', 'deeper')
        ),
      ],
      ['/ itself', () => '/'],
      ['the workspace itself', (rig) => rig.workspace],
      ['inside the workspace', (rig) => path.join(rig.workspace, 'worktrees')],
      ["inside the repository's .git", (rig) => path.join(rig.workspace, '.git', 'sessions')],
      ['a relative path', () => 'worktrees'],
      [
        'a dangling link whose target would be in the workspace',
        (rig) => (
          fs.symlinkSync(path.join(rig.workspace, 'made-later'), path.join(rig.folder, 'dangling')),
          path.join(rig.folder, 'dangling')
        ),
      ],
    ];
    for (const [what, base] of refusals) {
      it(`refuses ${what}, making nothing`, async () => {
        const rig = makeRig();
        const folder = base(rig);
        const worktrees = new GitWorktrees({ workspaceRoot: rig.workspace, baseFolder: () => folder });
        const filesBefore = everyFile(rig.workspace);
        await assert.rejects(
          worktrees.create({ name: 'escape' }),
          (error: unknown) => error instanceof WorktreeError && error.kind === 'base-folder',
        );
        assert.deepEqual(everyFile(rig.workspace), filesBefore);
        assert.equal(rig.git(['branch', '--list', 'openagent/*']).trim(), '');
        assert.equal(rig.git(['worktree', 'list', '--porcelain']).match(/^worktree /gm)?.length, 1);
      });
    }
  });

  describe('a repository whose configuration and environment try to run code', () => {
    function hostileRig(): { rig: RepoRig; proof: string; elsewhere: string; worktrees: GitWorktrees } {
      const rig = makeRig();
      const proof = path.join(rig.folder, 'PROOF');
      const elsewhere = path.join(rig.folder, 'elsewhere');
      fs.mkdirSync(elsewhere);
      const touch = `touch '${proof}'`;
      const script = path.join(rig.folder, 'evil.sh');
      fs.writeFileSync(script, `#!/bin/sh\n${touch}\ncat\n`, { mode: 0o755 });
      rig.write('.gitattributes', '*.txt filter=evil merge=evil diff=evil\n*.dat filter=lfs\n');
      rig.write('data.txt', 'base\n');
      rig.git(['add', '-A']);
      rig.git(['commit', '-q', '-m', 'attributes']);
      const hooks = path.join(rig.folder, 'hooks');
      fs.mkdirSync(hooks);
      for (const hook of [
        'post-checkout',
        'pre-commit',
        'commit-msg',
        'post-commit',
        'post-merge',
        'pre-merge-commit',
        'reference-transaction',
        'prepare-commit-msg',
        'post-index-change',
      ])
        for (const folder of [hooks, path.join(rig.workspace, '.git', 'hooks')])
          fs.writeFileSync(path.join(folder, hook), `#!/bin/sh\n${touch}\n`, { mode: 0o755 });
      const included = path.join(rig.folder, 'included.config');
      fs.writeFileSync(
        included,
        `[filter "lfs"]\n\tsmudge = ${script}\n\tprocess = ${script}\n\trequired = true\n[core]\n\tpager = ${script}\n`,
      );
      fs.appendFileSync(
        path.join(rig.workspace, '.git', 'config'),
        [
          '[core]',
          `\thooksPath = ${hooks}`,
          `\tfsmonitor = ${script}`,
          `\tworktree = ${elsewhere}`,
          `\tsshCommand = ${script}`,
          `\teditor = ${script}`,
          `[includeIf "gitdir:${rig.workspace}/"]`,
          `\tpath = ${included}`,
          '[filter "evil"]',
          `\tclean = ${script}`,
          `\tsmudge = ${script}`,
          `\tprocess = ${script}`,
          '\trequired = true',
          '[merge "evil"]',
          `\tdriver = ${script} %O %A %B`,
          '[diff "evil"]',
          `\ttextconv = ${script}`,
          `\tcommand = ${script}`,
          '[diff]',
          `\texternal = ${script}`,
          '[commit]',
          '\tgpgSign = true',
          '[gpg]',
          `\tprogram = ${script}`,
          '[merge]',
          '\tverifySignatures = true',
          '[submodule]',
          '\trecurse = true',
          '',
        ].join('\n'),
      );
      const env = {
        ...process.env,
        GIT_DIR: elsewhere,
        GIT_WORK_TREE: elsewhere,
        GIT_CONFIG_PARAMETERS: `'core.hookspath'='${hooks}'`,
        GIT_CONFIG_COUNT: '1',
        GIT_CONFIG_KEY_0: 'core.fsmonitor',
        GIT_CONFIG_VALUE_0: script,
        GIT_EXTERNAL_DIFF: script,
        GIT_SSH_COMMAND: script,
        GIT_EDITOR: script,
        GIT_PAGER: script,
        GIT_INDEX_FILE: path.join(elsewhere, 'index'),
      };
      const worktrees = new GitWorktrees({
        workspaceRoot: rig.workspace,
        baseFolder: () => rig.baseFolder,
        git: new GitCommand('git', env),
      });
      return { rig, proof, elsewhere, worktrees };
    }

    it('runs nothing through create, changes, apply with a conflict, keep and discard', async () => {
      const { rig, proof, elsewhere, worktrees } = hostileRig();
      const { worktree, notices } = await worktrees.create({ name: 'hostile' });
      assert.equal(fs.existsSync(proof), false, 'nothing ran on worktree add');
      assert.equal(rig.read('data.txt', worktree.root), 'base\n', 'checked out as stored: no smudge');
      assert.match(
        notices.join('\n'),
        /uses Git LFS/,
        'an LFS filter only the repository defines is not run, and said so',
      );
      rig.write('data.txt', 'session\n', worktree.root);
      rig.write('other.txt', 'new\n', worktree.root);
      const changes = await worktrees.changes(worktree);
      assert.deepEqual(changes.map((change) => change.path).sort(), ['data.txt', 'other.txt']);
      assert.equal(Buffer.from((await worktrees.original(worktree, 'data.txt'))!).toString(), 'base\n');
      rig.write('data.txt', 'user\n');
      userGit(rig, ['commit', '-q', '-am', 'user side']);
      const outcome = await worktrees.apply(worktree, { mode: 'merge' });
      // The repository's merge driver is not run: the file it would merge is left in conflict.
      assert.equal(outcome.kind, 'conflicts');
      assert.ok(outcome.kind === 'conflicts');
      assert.deepEqual(outcome.files, ['data.txt']);
      userGit(rig, ['merge', '--abort']);
      await worktrees.keep(worktree);
      const { worktree: second } = await worktrees.create({ name: 'hostile again' });
      await worktrees.discard(second);
      assert.equal(fs.existsSync(proof), false, 'no hook, monitor, filter, driver, diff program, signer or pager ran');
      assert.deepEqual(fs.readdirSync(elsewhere), [], 'core.worktree and GIT_DIR sent nothing elsewhere');
    });

    it('runs nothing when applying cleanly either (merge commit: no hooks, no signing)', async () => {
      const { rig, proof, worktrees } = hostileRig();
      const { worktree } = await worktrees.create({ name: 'clean' });
      rig.write('data.txt', 'session\n', worktree.root);
      const outcome = await worktrees.apply(worktree, { mode: 'merge' });
      assert.equal(outcome.kind, 'applied');
      assert.equal(rig.read('data.txt'), 'session\n');
      assert.equal(fs.existsSync(proof), false);
    });

    it('refuses a filter whose name cannot be switched off on the command line, running nothing', async () => {
      const rig = makeRig();
      const proof = path.join(rig.folder, 'PROOF');
      rig.write('.gitattributes', '* filter=a=b\n');
      rig.git(['add', '-A']);
      rig.git(['commit', '-q', '-m', 'attributes']);
      fs.appendFileSync(
        path.join(rig.workspace, '.git', 'config'),
        `[filter "a=b"]\n\tsmudge = touch '${proof}'; cat\n`,
      );
      await assert.rejects(rig.worktrees.create({ name: 'x' }), /cannot switch off/);
      assert.equal(fs.existsSync(proof), false);
    });
  });

  describe('a session writing outside its worktree', () => {
    it('file tools rooted in the worktree refuse the main workspace, another worktree and the git folders', async () => {
      const rig = makeRig();
      const { worktree } = await rig.worktrees.create({ name: 'one' });
      const { worktree: other } = await rig.worktrees.create({ name: 'two' });
      fs.symlinkSync(rig.workspace, path.join(worktree.root, 'escape'));
      const files = new NodeWorkspace(worktree.root);
      for (const target of [
        path.join(rig.workspace, 'src', 'app.ts'),
        path.join(other.root, 'README.md'),
        path.join(worktree.root, 'escape', 'README.md'),
        path.join(worktree.worktreeGitDir, 'HEAD'),
        path.join(rig.workspace, '.git', 'hooks', 'pre-commit'),
      ])
        await assert.rejects(files.writeText(target, 'pwned\n'), /outside the workspace|is a symbolic link/, target);
      assert.equal(rig.read('src/app.ts'), 'export const answer = 1;\n');
      assert.equal(rig.read('README.md', other.root), 'hello\n');
    });

    it("protects, in the worktree, the hook folder and programs the main repository's config names", async () => {
      const rig = makeRig();
      rig.write('scripts/watch.sh', '#!/bin/sh\n');
      rig.git(['add', '-A']);
      rig.git(['commit', '-q', '-m', 'scripts']);
      rig.git(['config', 'core.hooksPath', 'tools/hooks']);
      rig.git(['config', 'core.fsmonitor', 'sh scripts/watch.sh']);
      const { worktree } = await rig.worktrees.create({ name: 'named places' });
      const set = protectedSet(worktree.root);
      assert.ok(protectedBy(set, path.join(worktree.root, '.git')), 'its .git file');
      assert.ok(
        protectedBy(set, path.join(worktree.root, 'tools', 'hooks', 'pre-commit')),
        'the relative hooks folder',
      );
      assert.ok(protectedBy(set, path.join(worktree.root, 'scripts', 'watch.sh')), 'the fsmonitor script');
    });

    it('confined commands in the worktree cannot write those places or the git folders outside it', async function () {
      if (!confinedHere) this.skip();
      const rig = makeRig({ parent: TEST_BASE });
      rig.write('scripts/watch.sh', '#!/bin/sh\n');
      rig.git(['add', '-A']);
      rig.git(['commit', '-q', '-m', 'scripts']);
      rig.git(['config', 'core.hooksPath', 'tools/hooks']);
      rig.git(['config', 'core.fsmonitor', 'sh scripts/watch.sh']);
      const { worktree } = await rig.worktrees.create({ name: 'confined' });
      const { worktree: other } = await rig.worktrees.create({ name: 'neighbour' });
      const targets = [
        'scripts/watch.sh',
        'tools/hooks/pre-commit',
        '.git',
        path.join(worktree.worktreeGitDir, 'HEAD'),
        path.join(rig.workspace, '.git', 'config'),
        path.join(rig.workspace, 'README.md'),
        path.join(other.root, 'README.md'),
      ];
      const absolute = targets.map((target) => path.resolve(worktree.root, target));
      const before = absolute.map((file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined));
      const command = targets
        .map((target) => `mkdir -p "$(dirname '${target}')" 2>/dev/null; echo PWNED >> '${target}'`)
        .join('; ');
      await runWorktreeSetup(worktree.root, { command, source: 'policy' }, SETTINGS);
      assert.deepEqual(
        absolute.map((file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined)),
        before,
      );
    });
  });
});
