import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { WorktreeError } from '../../../../src/core/session/worktree-port';
import { makeRig } from './worktree-rig';

describe('GitWorktrees: review, apply, keep, discard and recover', function () {
  this.timeout(120_000);

  it('lists the changes on the branch and those not committed yet, new files and renames too, against the base', async () => {
    const rig = makeRig();
    const { worktree } = await rig.worktrees.create({ name: 'work' });
    rig.write('src/app.ts', 'export const answer = 42;\n', worktree.root);
    rig.git(['commit', '-q', '-am', 'committed on the branch'], worktree.root);
    rig.write('src/new.ts', 'new\n', worktree.root);
    fs.mkdirSync(path.join(worktree.root, 'docs'));
    fs.renameSync(path.join(worktree.root, 'README.md'), path.join(worktree.root, 'docs', 'readme.md'));
    rig.write('node_modules/pkg/index.js', 'ignored\n', worktree.root);
    rig.write('debug.log', 'ignored\n', worktree.root);
    const indexBefore = fs.readFileSync(path.join(worktree.worktreeGitDir, 'index'));
    const changes = await rig.worktrees.changes(worktree);
    const byPath = Object.fromEntries(changes.map((change) => [change.path, change.kind]));
    assert.deepEqual(byPath, {
      'docs/readme.md': 'renamed',
      'src/app.ts': 'modified',
      'src/new.ts': 'added',
    });
    assert.equal(changes.find((change) => change.kind === 'renamed')!.previousPath, 'README.md');
    assert.deepEqual(
      fs.readFileSync(path.join(worktree.worktreeGitDir, 'index')),
      indexBefore,
      "the session's index is untouched",
    );
    assert.equal(
      Buffer.from((await rig.worktrees.original(worktree, 'src/app.ts'))!).toString(),
      'export const answer = 1;\n',
    );
    assert.equal(await rig.worktrees.original(worktree, 'src/new.ts'), undefined);
  });

  it('applies cleanly as a merge, uncommitted work in the worktree included, leaving the user untouched elsewhere', async () => {
    const rig = makeRig();
    const { worktree } = await rig.worktrees.create({ name: 'clean merge' });
    rig.write('src/app.ts', 'export const answer = 42;\n', worktree.root);
    rig.write('src/extra.ts', 'extra\n', worktree.root);
    rig.write('notes.txt', 'my own notes, not committed\n');
    const outcome = await rig.worktrees.apply(worktree, { mode: 'merge' });
    assert.equal(outcome.kind, 'applied');
    assert.ok(outcome.kind === 'applied');
    assert.deepEqual([...outcome.files].sort(), ['src/app.ts', 'src/extra.ts']);
    assert.match(outcome.notices.join('\n'), /committed to openagent\/clean-merge first/);
    assert.equal(rig.read('src/app.ts'), 'export const answer = 42;\n');
    assert.equal(rig.read('src/extra.ts'), 'extra\n');
    assert.equal(rig.read('notes.txt'), 'my own notes, not committed\n');
    assert.equal(outcome.commit, rig.git(['rev-parse', 'HEAD']).trim());
    assert.match(rig.git(['log', '-1', '--format=%s']), /Apply OpenAgent session: clean merge/);
    assert.equal(
      rig.git(['rev-list', '--count', 'HEAD^2..openagent/clean-merge']).trim(),
      '0',
      'the whole branch merged',
    );
    const again = await rig.worktrees.apply(worktree, { mode: 'merge' });
    assert.equal(again.kind, 'nothing-to-apply');
  });

  it('applies as a squash: changes staged in the working tree, not committed', async () => {
    const rig = makeRig();
    const head = rig.git(['rev-parse', 'HEAD']).trim();
    const { worktree } = await rig.worktrees.create({ name: 'squash' });
    rig.write('src/app.ts', 'export const answer = 7;\n', worktree.root);
    rig.git(['commit', '-q', '-am', 'one'], worktree.root);
    rig.write('README.md', 'hello again\n', worktree.root);
    const outcome = await rig.worktrees.apply(worktree, { mode: 'squash' });
    assert.equal(outcome.kind, 'applied');
    assert.equal(rig.git(['rev-parse', 'HEAD']).trim(), head, 'nothing committed');
    assert.deepEqual(rig.git(['diff', '--cached', '--name-only']).trim().split('\n').sort(), [
      'README.md',
      'src/app.ts',
    ]);
    assert.equal(rig.read('src/app.ts'), 'export const answer = 7;\n');
  });

  it('reports conflicts with the conflicted files, left for the merge editor', async () => {
    const rig = makeRig();
    const { worktree } = await rig.worktrees.create({ name: 'conflict' });
    rig.write('src/app.ts', 'export const answer = "session";\n', worktree.root);
    rig.write('src/only-session.ts', 'fine\n', worktree.root);
    rig.write('src/app.ts', 'export const answer = "user";\n');
    rig.git(['commit', '-q', '-am', 'user change']);
    const outcome = await rig.worktrees.apply(worktree, { mode: 'merge' });
    assert.equal(outcome.kind, 'conflicts');
    assert.ok(outcome.kind === 'conflicts');
    assert.deepEqual(outcome.files, ['src/app.ts']);
    assert.match(rig.read('src/app.ts')!, /<<<<<<<[\s\S]*"user"[\s\S]*=======[\s\S]*"session"[\s\S]*>>>>>>>/);
    assert.equal(rig.read('src/only-session.ts'), 'fine\n');
    assert.match(rig.git(['status']), /You have unmerged paths/);
    // A second apply while the merge is unfinished is refused, not stacked.
    const again = await rig.worktrees.apply(worktree, { mode: 'merge' });
    assert.ok(again.kind === 'refused' && again.reason === 'merge-in-progress');
  });

  it("refuses to apply over the user's uncommitted changes, listing the files, and changes nothing", async () => {
    const rig = makeRig();
    const { worktree } = await rig.worktrees.create({ name: 'overlap' });
    rig.write('src/app.ts', 'export const answer = 3;\n', worktree.root);
    rig.write('README.md', 'session readme\n', worktree.root);
    rig.write('new-file.txt', 'from the session\n', worktree.root);
    rig.write('build.log', 'ignored but the session force-adds it\n', worktree.root);
    rig.git(['add', '-f', 'build.log'], worktree.root);
    rig.write('src/app.ts', 'export const answer = "mine, unsaved";\n');
    rig.write('new-file.txt', 'my own untracked file\n');
    rig.write('build.log', 'my ignored log\n');
    const head = rig.git(['rev-parse', 'HEAD']).trim();
    for (const mode of ['merge', 'squash'] as const) {
      const outcome = await rig.worktrees.apply(worktree, { mode });
      assert.equal(outcome.kind, 'refused');
      assert.ok(outcome.kind === 'refused');
      assert.equal(outcome.reason, 'overlapping-changes');
      assert.deepEqual([...outcome.files].sort(), ['build.log', 'new-file.txt', 'src/app.ts']);
      assert.match(outcome.message, /Nothing was applied: commit or stash them/);
    }
    assert.equal(rig.read('src/app.ts'), 'export const answer = "mine, unsaved";\n');
    assert.equal(rig.read('new-file.txt'), 'my own untracked file\n');
    assert.equal(rig.read('build.log'), 'my ignored log\n');
    assert.equal(rig.read('README.md'), 'hello\n');
    assert.equal(rig.git(['rev-parse', 'HEAD']).trim(), head);
    // The session's work was committed to its branch, not lost.
    assert.equal(rig.git(['show', 'openagent/overlap:new-file.txt']), 'from the session\n');
  });

  it('refuses a merge while something is staged (git would), and says a squash can go on', async () => {
    const rig = makeRig();
    const { worktree } = await rig.worktrees.create({ name: 'staged' });
    rig.write('src/app.ts', 'export const answer = 5;\n', worktree.root);
    rig.write('README.md', 'staged by the user\n');
    rig.git(['add', 'README.md']);
    const refused = await rig.worktrees.apply(worktree, { mode: 'merge' });
    assert.ok(refused.kind === 'refused' && refused.reason === 'staged-changes');
    assert.deepEqual(refused.files, ['README.md']);
    const squashed = await rig.worktrees.apply(worktree, { mode: 'squash' });
    assert.equal(squashed.kind, 'applied');
    assert.equal(rig.read('README.md'), 'staged by the user\n');
    assert.equal(rig.read('src/app.ts'), 'export const answer = 5;\n');
  });

  it('keeps the branch (with uncommitted work committed to it) and removes the folder', async () => {
    const rig = makeRig();
    const { worktree } = await rig.worktrees.create({ name: 'keep me' });
    rig.write('src/app.ts', 'export const answer = 8;\n', worktree.root);
    rig.write('node_modules/pkg/index.js', 'installed\n', worktree.root);
    const { notices } = await rig.worktrees.keep(worktree);
    assert.match(
      notices.join('\n'),
      /openagent\/keep-me keeps the session's work \(what was not committed yet was committed to it first\)/,
    );
    assert.equal(fs.existsSync(worktree.root), false);
    assert.equal(rig.git(['show', 'openagent/keep-me:src/app.ts']), 'export const answer = 8;\n');
    const listed = await rig.worktrees.list();
    assert.deepEqual(
      listed.map((entry) => [entry.worktree.branch, entry.state]),
      [['openagent/keep-me', 'branch-only']],
    );
    assert.equal(listed[0]!.worktree.base.commit, worktree.base.commit, 'the base is found again');
    // Reopened, it holds the kept work.
    const { worktree: again } = await rig.worktrees.reopen(listed[0]!);
    assert.equal(rig.read('src/app.ts', again.root), 'export const answer = 8;\n');
  });

  it('discards the worktree and its branch, and touches no other branch', async () => {
    const rig = makeRig();
    const { worktree } = await rig.worktrees.create({ name: 'throw away' });
    const { worktree: other } = await rig.worktrees.create({ name: 'other' });
    rig.write('scratch.txt', 'uncommitted\n', worktree.root);
    await rig.worktrees.discard(worktree);
    assert.equal(fs.existsSync(worktree.root), false);
    assert.equal(rig.git(['branch', '--list', 'openagent/throw-away']).trim(), '');
    assert.deepEqual(
      (await rig.worktrees.list()).map((entry) => entry.worktree.branch),
      [other.branch],
    );
    await assert.rejects(
      rig.worktrees.discard({ ...other, branch: 'main' }),
      (error: unknown) => error instanceof WorktreeError && error.kind === 'not-a-session-worktree',
    );
    assert.equal(rig.git(['branch', '--list', 'main']).trim(), '* main');
  });

  it('recovers a worktree whose folder was deleted by hand: listed as missing, reopened with its committed work', async () => {
    const rig = makeRig();
    const { worktree } = await rig.worktrees.create({ name: 'Crash Test' });
    rig.write('src/app.ts', 'export const answer = 99;\n', worktree.root);
    rig.git(['commit', '-q', '-am', 'before the crash'], worktree.root);
    fs.rmSync(worktree.root, { recursive: true, force: true });
    const listed = await rig.worktrees.list();
    assert.equal(listed.length, 1);
    assert.equal(listed[0]!.state, 'folder-missing');
    assert.equal(listed[0]!.worktree.name, 'Crash Test', 'the name is remembered');
    assert.equal(listed[0]!.worktree.base.commit, worktree.base.commit);
    assert.match(listed[0]!.note!, /deleted or moved/);
    await assert.rejects(rig.worktrees.changes(listed[0]!.worktree), /not there \(deleted or moved\): reopen/);
    const { worktree: reopened, notices } = await rig.worktrees.reopen(listed[0]!);
    assert.match(notices.join('\n'), /Reopened openagent\/crash-test/);
    assert.equal(reopened.branch, 'openagent/crash-test');
    assert.equal(rig.read('src/app.ts', reopened.root), 'export const answer = 99;\n');
    assert.deepEqual(
      (await rig.worktrees.list()).map((entry) => [entry.worktree.name, entry.state]),
      [['Crash Test', 'ready']],
    );
    // Keep of a worktree whose folder is gone: the record goes, the branch stays.
    fs.rmSync(reopened.root, { recursive: true, force: true });
    await rig.worktrees.keep(reopened);
    assert.deepEqual(
      (await rig.worktrees.list()).map((entry) => entry.state),
      ['branch-only'],
    );
  });
});
