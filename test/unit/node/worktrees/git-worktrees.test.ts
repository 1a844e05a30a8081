import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WorktreeError, type WorktreeErrorKind } from '../../../../src/core/session/worktree-port';
import { GitWorktrees } from '../../../../src/node/worktrees/git-worktrees';
import { GitCommand } from '../../../../src/node/worktrees/git-command';
import { makeRig } from './worktree-rig';

async function rejectsWith(promise: Promise<unknown>, kind: WorktreeErrorKind, words: RegExp): Promise<void> {
  await assert.rejects(promise, (error: unknown) => {
    assert.ok(error instanceof WorktreeError, `a WorktreeError, got ${String(error)}`);
    assert.equal(error.kind, kind);
    assert.match(error.message, words);
    return true;
  });
}

describe('GitWorktrees: a session worktree on real git', function () {
  this.timeout(120_000);

  it('makes a worktree outside the workspace on openagent/<slug> from HEAD, with the files of HEAD', async () => {
    const rig = makeRig();
    const { worktree, notices } = await rig.worktrees.create({ name: 'Fix the login bug' });
    assert.equal(worktree.branch, 'openagent/fix-the-login-bug');
    assert.equal(worktree.root, path.join(rig.baseFolder, 'fix-the-login-bug'));
    assert.equal(worktree.name, 'Fix the login bug');
    assert.equal(worktree.base.branch, 'main');
    assert.equal(worktree.base.commit, rig.git(['rev-parse', 'HEAD']).trim());
    assert.equal(worktree.workspaceRoot, rig.workspace);
    assert.equal(worktree.gitDir, path.join(rig.workspace, '.git'));
    assert.equal(path.dirname(worktree.worktreeGitDir), path.join(rig.workspace, '.git', 'worktrees'));
    assert.deepEqual(notices, []);
    assert.equal(rig.read('src/app.ts', worktree.root), 'export const answer = 1;\n');
    assert.equal(rig.git(['branch', '--show-current'], worktree.root).trim(), 'openagent/fix-the-login-bug');
    assert.equal(rig.git(['status', '--porcelain']), '', 'the workspace is untouched');
  });

  it('starts from HEAD when the working tree is dirty, and says the uncommitted changes are not in it', async () => {
    const rig = makeRig();
    rig.write('src/app.ts', 'export const answer = 2;\n');
    rig.write('notes.txt', 'mine\n');
    const { worktree, notices } = await rig.worktrees.create({ name: 'try' });
    assert.equal(rig.read('src/app.ts', worktree.root), 'export const answer = 1;\n');
    assert.equal(rig.read('notes.txt', worktree.root), undefined);
    assert.equal(notices.length, 1);
    assert.match(notices[0]!, /Started from HEAD .* on main\): your uncommitted changes \(2 files\) are not in it/);
    assert.equal(rig.read('src/app.ts'), 'export const answer = 2;\n', "the user's change stays");
  });

  it('starts from another local branch when asked, and refuses one that does not exist', async () => {
    const rig = makeRig();
    rig.git(['checkout', '-q', '-b', 'feature']);
    rig.write('feature.txt', 'feature\n');
    rig.git(['add', '-A']);
    rig.git(['commit', '-q', '-m', 'feature']);
    rig.git(['checkout', '-q', 'main']);
    const { worktree } = await rig.worktrees.create({ name: 'on feature', baseBranch: 'feature' });
    assert.equal(worktree.base.branch, 'feature');
    assert.equal(rig.read('feature.txt', worktree.root), 'feature\n');
    await rejectsWith(
      rig.worktrees.create({ name: 'x', baseBranch: 'nope' }),
      'no-such-branch',
      /no local branch "nope"/,
    );
    await rejectsWith(rig.worktrees.create({ name: 'x', baseBranch: '--help' }), 'no-such-branch', /--help/);
  });

  it('takes the next free name when the branch is taken, and says so', async () => {
    const rig = makeRig();
    rig.git(['branch', 'openagent/refactor']);
    const first = await rig.worktrees.create({ name: 'refactor' });
    assert.equal(first.worktree.branch, 'openagent/refactor-2');
    assert.match(first.notices.join('\n'), /openagent\/refactor is taken: this session works on openagent\/refactor-2/);
    const second = await rig.worktrees.create({ name: 'refactor' });
    assert.equal(second.worktree.branch, 'openagent/refactor-3');
    // A folder in the way (made by hand) is skipped the same way, and no stray branch is left.
    fs.mkdirSync(path.join(rig.baseFolder, 'docs'));
    fs.writeFileSync(path.join(rig.baseFolder, 'docs', 'mine.txt'), 'mine');
    const third = await rig.worktrees.create({ name: 'docs' });
    assert.equal(third.worktree.branch, 'openagent/docs-2');
    assert.equal(fs.readFileSync(path.join(rig.baseFolder, 'docs', 'mine.txt'), 'utf8'), 'mine');
    assert.equal(rig.git(['branch', '--list', 'openagent/docs']).trim(), '');
  });

  it('two windows making the same session at once get two worktrees, neither failing', async () => {
    const rig = makeRig();
    const other = new GitWorktrees({ workspaceRoot: rig.workspace, baseFolder: () => rig.baseFolder });
    const made = await Promise.all([
      rig.worktrees.create({ name: 'same' }),
      other.create({ name: 'same' }),
      rig.worktrees.create({ name: 'same' }),
    ]);
    const branches = made.map((entry) => entry.worktree.branch).sort();
    assert.deepEqual(branches, ['openagent/same', 'openagent/same-2', 'openagent/same-3']);
    for (const entry of made) assert.ok(fs.existsSync(path.join(entry.worktree.root, 'README.md')));
    assert.equal((await rig.worktrees.list()).filter((entry) => entry.state === 'ready').length, 3);
  });

  it('refuses a folder that is not a git repository, saying so (the caller offers git init)', async () => {
    const rig = makeRig();
    const plain = path.join(rig.folder, 'plain');
    fs.mkdirSync(plain);
    const worktrees = new GitWorktrees({ workspaceRoot: plain, baseFolder: () => rig.baseFolder });
    await rejectsWith(worktrees.create({ name: 'x' }), 'not-a-repository', /not in a git repository.*git init/);
  });

  it('refuses a repository without commits, saying what to do', async () => {
    const rig = makeRig({ commit: false });
    await rejectsWith(rig.worktrees.create({ name: 'x' }), 'no-commits', /no commit yet.*Commit once/);
    assert.equal(fs.existsSync(rig.baseFolder), false, 'no folder made for nothing');
  });

  it('says which git is needed when git is missing', async () => {
    const rig = makeRig();
    const worktrees = new GitWorktrees({
      workspaceRoot: rig.workspace,
      baseFolder: () => rig.baseFolder,
      git: new GitCommand(path.join(rig.folder, 'no-git-here')),
    });
    await rejectsWith(worktrees.create({ name: 'x' }), 'git-missing', /git was not found.*git 2\.30 or later/);
  });

  it('says which git is needed when git is too old', async () => {
    const rig = makeRig();
    const fake = path.join(rig.folder, 'old-git');
    fs.writeFileSync(fake, '#!/bin/sh\necho "git version 2.17.1"\n', { mode: 0o755 });
    const worktrees = new GitWorktrees({
      workspaceRoot: rig.workspace,
      baseFolder: () => rig.baseFolder,
      git: new GitCommand(fake),
    });
    await rejectsWith(
      worktrees.create({ name: 'x' }),
      'git-too-old',
      /need git 2\.30 or later; this is git version 2\.17\.1/,
    );
  });

  it('passes a write failure through with a clear message, leaving no stray branch', async function () {
    if (process.getuid?.() === 0) this.skip(); // root writes anywhere
    const rig = makeRig();
    fs.mkdirSync(rig.baseFolder);
    fs.chmodSync(rig.baseFolder, 0o500);
    try {
      await rejectsWith(
        rig.worktrees.create({ name: 'locked out' }),
        'write-failed',
        /could not (write|be made)|Permission denied/i,
      );
    } finally {
      fs.chmodSync(rig.baseFolder, 0o700);
    }
    assert.equal(rig.git(['branch', '--list', 'openagent/*']).trim(), '');
  });

  it('says the disk is full when it is, leaving no stray branch or half a worktree', async function () {
    const rig = makeRig();
    rig.write('big.txt', 'x'.repeat(512 * 1024));
    rig.git(['add', '-A']);
    rig.git(['commit', '-q', '-m', 'big']);
    fs.mkdirSync(rig.baseFolder);
    // A 128 KB file system for the worktrees (needs mount rights: root in a container, as CI).
    try {
      execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=128k', 'tmpfs', rig.baseFolder], { stdio: 'ignore' });
    } catch {
      this.skip();
    }
    try {
      await rejectsWith(rig.worktrees.create({ name: 'too big' }), 'write-failed', /The disk is full/);
      assert.equal(rig.git(['branch', '--list', 'openagent/*']).trim(), '');
      assert.deepEqual(fs.readdirSync(rig.baseFolder), []);
      assert.equal((await rig.worktrees.list()).length, 0);
    } finally {
      execFileSync('umount', [rig.baseFolder]);
    }
  });

  it('notes submodules are not initialized, and leaves them empty', async () => {
    const rig = makeRig();
    const library = makeRig();
    rig.git(['-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', library.workspace, 'lib']);
    rig.git(['commit', '-q', '-m', 'submodule']);
    const { worktree, notices } = await rig.worktrees.create({ name: 'with submodule' });
    assert.match(notices.join('\n'), /submodules; they are not initialized/);
    assert.deepEqual(fs.readdirSync(path.join(worktree.root, 'lib')), []);
    // Keep and discard still work with it.
    await rig.worktrees.discard(worktree);
    assert.equal(fs.existsSync(worktree.root), false);
  });

  it('notes LFS files stay pointer files when no LFS filter is set up for the user', async () => {
    const rig = makeRig();
    rig.write('.gitattributes', '*.bin filter=lfs diff=lfs merge=lfs -text\n');
    rig.write('big.bin', 'version https://git-lfs.github.com/spec/v1\noid sha256:abc\nsize 3\n');
    rig.git(['add', '-A']);
    rig.git(['commit', '-q', '-m', 'lfs']);
    const { worktree, notices } = await rig.worktrees.create({ name: 'lfs' });
    assert.match(notices.join('\n'), /Git LFS.*pointer files/);
    assert.match(rig.read('big.bin', worktree.root)!, /^version https:\/\/git-lfs/);
  });
});
