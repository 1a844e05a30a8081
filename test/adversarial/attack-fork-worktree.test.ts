/**
 * A fork into a new worktree (issue 33) against hostile input. The paths a conversation recorded
 * come from the store, which anyone with the disk can edit: `..`, absolute paths, a drive letter,
 * backslashes, `.git/…`, a link in the workspace to outside, a folder that is a link to outside
 * in the worktree (committed as such at HEAD), a file that is such a link. None of them reads
 * or writes a byte outside the workspace and the worktree; each is named and left as at HEAD,
 * and the fork is still made. Names taken or hostile, and a folder that is no repository (or
 * has no commit), get a clear answer and leave nothing half-made.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ConversationStore, StoredMessage } from '../../src/core/ports';
import { SessionForks } from '../../src/core/session/session-forks';
import { ForkFileRefusal, forkIntoWorktree } from '../../src/core/session/worktree-fork';
import type { Worktree } from '../../src/core/session/worktree-port';
import { NodeForkFiles } from '../../src/node/worktrees/fork-files';
import { GitWorktrees } from '../../src/node/worktrees/git-worktrees';
import { openStore, tempDir } from '../unit/store/store-helpers';
import { makeRig } from '../unit/node/worktrees/worktree-rig';

let ids = 0;

/** Forks of saved conversations only (none on screen, so no checkpoints: every file is "as now"). */
function forksOf(store: ConversationStore): SessionForks {
  return new SessionForks({
    store: async () => store,
    now: () => Date.now(),
    newId: () => `fork-${++ids}-${process.pid}`,
    currentId: () => undefined,
    isBusy: () => false,
    flush: async () => undefined,
    checkpoints: () => undefined,
    open: async () => true,
    submit: async () => undefined,
    tell: () => undefined,
  });
}

/** A saved conversation of one turn whose `files_changed` names `paths`. */
async function recorded(store: ConversationStore, paths: string[]): Promise<{ id: string; cutSeq: number }> {
  const id = `hostile-${++ids}`;
  await store.saveConversation({ id, title: 'Hostile', createdAt: 1, updatedAt: 1, settings: {} });
  const event = (seq: number, body: Record<string, unknown>): StoredMessage => ({
    id: `${id}-${seq}`,
    conversationId: id,
    seq,
    role: 'event',
    content: { conversationId: id, agentId: 'lead', seq, time: 1, ...body },
    createdAt: 1,
  });
  const messages: StoredMessage[] = [
    { id: `${id}-0`, conversationId: id, seq: 0, role: 'user', content: { text: 'change them' }, createdAt: 1 },
    event(1, { type: 'files_changed', turn: 1, files: paths.map((file) => ({ path: file, change: 'modified' })) }),
    { id: `${id}-2`, conversationId: id, seq: 2, role: 'assistant', content: { text: 'Changed.' }, createdAt: 1 },
    event(3, { type: 'done' }),
  ];
  for (const message of messages) await store.putMessage(message);
  return { id, cutSeq: 3 };
}

function listAll(folder: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of fs.readdirSync(folder, { withFileTypes: true, recursive: true })) {
    const full = path.join(entry.parentPath, entry.name);
    if (entry.isFile()) files[path.relative(folder, full)] = fs.readFileSync(full, 'hex');
  }
  return files;
}

describe('attack: fork into a new worktree', function () {
  this.timeout(60_000);

  it('recorded paths pointing outside (.., absolute, links in the workspace or the worktree) write nothing outside', async () => {
    const rig = makeRig();
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-outside-')));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'outside secret\n');
    fs.writeFileSync(path.join(outside, 'target.txt'), 'outside target\n');
    // Committed at HEAD: a folder that is a link out, and a file that is a link out.
    fs.symlinkSync(outside, path.join(rig.workspace, 'dir'));
    fs.symlinkSync(path.join(outside, 'target.txt'), path.join(rig.workspace, 'file-link.txt'));
    rig.git(['add', '-A']);
    rig.git(['commit', '-q', '-m', 'links']);
    // In the workspace (uncommitted), both are plain again: reading them there is fine.
    fs.rmSync(path.join(rig.workspace, 'dir'));
    rig.write('dir/inside.txt', 'plain in the workspace\n');
    fs.rmSync(path.join(rig.workspace, 'file-link.txt'));
    rig.write('file-link.txt', 'plain file now\n');
    // A link in the workspace to outside: reading through it is refused.
    fs.symlinkSync(outside, path.join(rig.workspace, 'peek'));
    rig.write('ok.txt', 'the one honest file\n');
    const outsideBefore = listAll(outside);

    const { store } = await openStore(tempDir());
    const hostile = [
      '../outside.txt',
      'a/../../b.txt',
      path.join(outside, 'secret.txt'),
      'C:/Windows/win.ini',
      'bad\\..\\x.txt',
      '.git/config',
      'sub/.GIT/hooks/post-checkout',
      'peek/secret.txt',
      'dir/inside.txt',
      'file-link.txt',
      '',
      'x\u0000y',
    ];
    const { id, cutSeq } = await recorded(store, [...hostile, 'ok.txt']);
    const outcome = await forkIntoWorktree(
      { forks: forksOf(store), worktrees: rig.worktrees, files: new NodeForkFiles(rig.workspace) },
      { name: 'hostile paths', cutSeq, conversationId: id },
    );
    assert.equal(outcome.status, 'forked', JSON.stringify(outcome));
    if (outcome.status !== 'forked') return;
    const root = outcome.worktree.root;
    assert.deepEqual(outcome.written, ['ok.txt']);
    assert.deepEqual(outcome.deleted, []);
    assert.deepEqual(outcome.left.map((file) => file.path).sort(), [...hostile].sort());
    for (const file of outcome.left) assert.ok(file.reason.length > 10, `${file.path}: ${file.reason}`);
    const why = (file: string) => outcome.left.find((left) => left.path === file)?.reason;
    // Read fine in the workspace, refused at the worktree: the link there is HEAD's.
    assert.match(why('dir/inside.txt')!, /dir in its path is a link in the worktree/);
    assert.match(why('file-link.txt')!, /is a link in the worktree/);
    assert.match(why('peek/secret.txt')!, /could not be read .*link to outside the workspace/);
    assert.equal(fs.readFileSync(path.join(root, 'ok.txt'), 'utf8'), 'the one honest file\n');
    // Nothing outside changed or appeared; the worktree's links are as at HEAD; its .git is git's.
    assert.deepEqual(listAll(outside), outsideBefore);
    assert.equal(fs.readlinkSync(path.join(root, 'dir')), outside);
    assert.equal(fs.readlinkSync(path.join(root, 'file-link.txt')), path.join(outside, 'target.txt'));
    assert.match(fs.readFileSync(path.join(root, '.git'), 'utf8'), /^gitdir: /);
    assert.ok(!fs.existsSync(path.join(path.dirname(root), 'outside.txt')));
    assert.ok(!fs.existsSync(path.join(path.dirname(root), 'b.txt')));
    assert.ok(!fs.existsSync(path.join(root, 'secret.txt')), 'an absolute path is not copied in');
    await store.close();
  });

  it('the file access alone: writes and deletes through links are refused or touch only the link', async () => {
    const outside = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-outside-')));
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-fake-worktree-')));
    const source = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-source-')));
    fs.writeFileSync(path.join(outside, 'target.txt'), 'keep me\n');
    fs.symlinkSync(outside, path.join(root, 'out'));
    fs.symlinkSync(path.join(outside, 'target.txt'), path.join(root, 'link.txt'));
    fs.symlinkSync(path.join(outside, 'target.txt'), path.join(root, 'gone-link.txt'));
    const worktree = { root } as Worktree;
    const files = new NodeForkFiles(source);
    const bytes = new Uint8Array(Buffer.from('evil\n'));
    for (const file of ['out/new.txt', 'out/target.txt', 'link.txt', '../x.txt', '/etc/x', '.git', 'out']) {
      await assert.rejects(files.write(worktree, file, bytes), ForkFileRefusal, file);
    }
    await assert.rejects(files.write(worktree, 'out/target.txt', null), ForkFileRefusal);
    // Deleting a link removes the link, never its target.
    await files.write(worktree, 'gone-link.txt', null);
    assert.ok(!fs.existsSync(path.join(root, 'gone-link.txt')));
    assert.equal(fs.readFileSync(path.join(outside, 'target.txt'), 'utf8'), 'keep me\n');
    assert.deepEqual(fs.readdirSync(outside), ['target.txt']);
    // Reads stay in the source folder too.
    fs.symlinkSync(path.join(outside, 'target.txt'), path.join(source, 'peek.txt'));
    await assert.rejects(files.read('peek.txt'), ForkFileRefusal);
    await assert.rejects(files.read('../outside.txt'), ForkFileRefusal);
    assert.equal(await files.read('missing.txt'), null);
  });

  it('a name taken moves on to the next branch (and says so); hostile names stay inside openagent/', async () => {
    const rig = makeRig();
    rig.write('ok.txt', 'v1\n');
    const { store } = await openStore(tempDir());
    const { id, cutSeq } = await recorded(store, ['ok.txt']);
    const deps = { forks: forksOf(store), worktrees: rig.worktrees, files: new NodeForkFiles(rig.workspace) };
    const first = await forkIntoWorktree(deps, { name: 'same', cutSeq, conversationId: id });
    assert.equal(first.status, 'forked');
    if (first.status !== 'forked') return;
    fs.writeFileSync(path.join(first.worktree.root, 'ok.txt'), 'work in the first\n');
    const second = await forkIntoWorktree(deps, { name: 'same', cutSeq, conversationId: id });
    assert.equal(second.status, 'forked');
    if (second.status !== 'forked') return;
    assert.equal(second.worktree.branch, 'openagent/same-2');
    assert.match(second.notices.join(' '), /openagent\/same is taken/);
    assert.equal(fs.readFileSync(path.join(first.worktree.root, 'ok.txt'), 'utf8'), 'work in the first\n');
    for (const name of ['../../etc', '-rf --force', 'a\u0000b\nc\u202e', 'x'.repeat(10_000), '..']) {
      const made = await forkIntoWorktree(deps, { name, cutSeq, conversationId: id });
      assert.equal(made.status, 'forked', JSON.stringify(name.slice(0, 20)));
      if (made.status !== 'forked') continue;
      assert.match(made.worktree.branch, /^openagent\/[a-z0-9][a-z0-9-]*$/);
      assert.equal(path.dirname(made.worktree.root), fs.realpathSync(rig.baseFolder));
    }
    await store.close();
  });

  it('not a repository, or no commit yet: a clear message; no worktree, no fork', async () => {
    const { store } = await openStore(tempDir());
    const plain = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-plain-')));
    fs.writeFileSync(path.join(plain, 'ok.txt'), 'v1\n');
    const { id, cutSeq } = await recorded(store, ['ok.txt']);
    const before = (await store.listConversations()).length;
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-base-'));
    const notRepo = await forkIntoWorktree(
      {
        forks: forksOf(store),
        worktrees: new GitWorktrees({ workspaceRoot: plain, baseFolder: () => base }),
        files: new NodeForkFiles(plain),
      },
      { name: 'nowhere', cutSeq, conversationId: id },
    );
    assert.equal(notRepo.status, 'failed');
    if (notRepo.status === 'failed') {
      assert.equal(notRepo.kind, 'not-a-repository');
      assert.match(notRepo.message, /nothing was forked: .*is not in a git repository/);
    }
    const empty = makeRig({ commit: false });
    const noCommit = await forkIntoWorktree(
      { forks: forksOf(store), worktrees: empty.worktrees, files: new NodeForkFiles(empty.workspace) },
      { name: 'nothing yet', cutSeq, conversationId: id },
    );
    assert.equal(noCommit.status, 'failed');
    if (noCommit.status === 'failed') assert.equal(noCommit.kind, 'no-commits');
    assert.equal((await store.listConversations()).length, before, 'no fork was made');
    assert.deepEqual(fs.readdirSync(base), []);
    assert.ok(!fs.existsSync(empty.baseFolder) || fs.readdirSync(empty.baseFolder).length === 0);
    // A message that is not there: refused before git is asked.
    const rig = makeRig();
    for (const bad of [-1, 99, NaN, 2.5]) {
      const refused = await forkIntoWorktree(
        { forks: forksOf(store), worktrees: rig.worktrees, files: new NodeForkFiles(rig.workspace) },
        { name: 'bad', cutSeq: bad, conversationId: id },
      );
      assert.equal(refused.status, 'refused', String(bad));
    }
    assert.deepEqual(await rig.worktrees.list(), []);
    await store.close();
  });
});
