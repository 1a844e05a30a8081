/**
 * "Fork from here" into a new worktree (issue 33) on a real repository, a real store and a real
 * run of the fake model: the worktree starts from HEAD and holds every file the conversation had
 * changed by the message byte for byte as it was then — later turns changed them again, one
 * holds bytes that are not UTF-8, one binary bytes a command wrote, one was created only after
 * the message, one was deleted by it — while the workspace and the original conversation stay
 * as they are. A fork that fails after the worktree was added leaves nothing behind.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ConversationStore } from '../../../../src/core/ports';
import { forkIntoWorktree, type ForkFileAccess } from '../../../../src/core/session/worktree-fork';
import { NodeForkFiles } from '../../../../src/node/worktrees/fork-files';
import { GitWorktrees } from '../../../../src/node/worktrees/git-worktrees';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { openStore, tempDir } from '../../store/store-helpers';
import { makeRig } from '../../node/worktrees/worktree-rig';
import { forkSession } from './fork-harness';

const write = (id: string, file: string, content: string) => ({
  id,
  name: 'write_file',
  arguments: { path: file, content },
});

/** Bytes that are not UTF-8 (no NUL: the file tools still read them as text), CRLF line ends. */
const LATIN1 = Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x0d, 0x0a, 0x8f, 0x41, 0x0a]);
/** A binary file as a command (not the file tools) would write it. */
const BINARY = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0x00, 0xff, 0xfe, 0x00, 0x01]);

const SCENARIO = {
  name: 'worktree-fork',
  turns: [
    {
      match: 'one',
      toolCalls: [
        write('a1', 'crlf.txt', 'turn one\r\n'),
        write('a2', 'new/made.txt', 'made in one\n'),
        write('a3', 'gone.txt', 'edited in one\n'),
        write('a4', 'odd.txt', 'text in one\n'),
        write('a5', 'pic.bin', 'text in one\n'),
      ],
    },
    { text: 'Done one.' },
    {
      match: 'two',
      toolCalls: [
        write('b1', 'crlf.txt', 'turn two\r\n'),
        write('b2', 'odd.txt', 'utf-8 now\n'),
        write('b3', 'later.txt', 'made after\n'),
        write('b4', 'README.md', 'changed after\n'),
      ],
    },
    { text: 'Done two.' },
    {
      match: 'three',
      toolCalls: [write('c1', 'crlf.txt', 'turn three\r\n'), write('c2', 'new/made.txt', 'changed in three\n')],
    },
    { text: 'Done three.' },
  ],
  whenExhausted: 'echo' as const,
};

describe('fork into a new worktree', function () {
  this.timeout(60_000);
  let server: FakeModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  /** A repository, a conversation of three turns that changed files, and the message to fork at. */
  async function threeTurns(store: ConversationStore) {
    const rig = makeRig();
    rig.write('crlf.txt', 'at head\r\n');
    rig.write('gone.txt', 'at head\n');
    rig.git(['add', '-A']);
    rig.git(['commit', '-q', '-m', 'files']);
    server = await FakeModelServer.start({ scenario: SCENARIO });
    const harness = forkSession(server, store, rig.workspace);
    await harness.run('one');
    // Commands of turn one (not the file tools): a deletion, bytes that are not UTF-8, binary bytes.
    fs.rmSync(path.join(rig.workspace, 'gone.txt'));
    fs.writeFileSync(path.join(rig.workspace, 'odd.txt'), LATIN1);
    fs.writeFileSync(path.join(rig.workspace, 'pic.bin'), BINARY);
    await harness.run('two');
    await harness.run('three');
    const answer = (await harness.session.forks.points()).find((point) => point.text === 'Done one.')!;
    return { rig, ...harness, answer };
  }

  it('holds the files as they were at the message, byte for byte; the workspace and the original stay', async () => {
    const { store } = await openStore(tempDir());
    const { rig, session, answer } = await threeTurns(store);
    const parentId = session.currentId!;
    const parentBefore = await store.listMessages(parentId);
    const workspaceBefore = snapshot(rig.workspace);

    const outcome = await forkIntoWorktree(
      { forks: session.forks, worktrees: rig.worktrees, files: new NodeForkFiles(rig.workspace) },
      { name: 'Try another way', cutSeq: answer.cutSeq },
    );
    assert.equal(outcome.status, 'forked', JSON.stringify(outcome));
    if (outcome.status !== 'forked') return;
    const root = outcome.worktree.root;
    assert.equal(outcome.worktree.branch, 'openagent/try-another-way');
    assert.ok(!root.startsWith(rig.workspace + path.sep), 'the worktree is outside the workspace');
    const read = (file: string) => {
      const full = path.join(root, file);
      return fs.existsSync(full) ? new Uint8Array(fs.readFileSync(full)) : undefined;
    };
    // Changed by turn one, again after: as turn one left them.
    assert.deepEqual(read('crlf.txt'), bytes('turn one\r\n'));
    assert.deepEqual(read('new/made.txt'), bytes('made in one\n'));
    // Not UTF-8 at the message (a later turn rewrote it as text): the very bytes.
    assert.deepEqual(read('odd.txt'), LATIN1);
    // Binary, written by a command after turn one's file tools, changed by no later turn.
    assert.deepEqual(read('pic.bin'), BINARY);
    // Deleted by the message (it is in HEAD): absent.
    assert.equal(read('gone.txt'), undefined);
    // Made only after the message: absent; changed only after: as at HEAD.
    assert.equal(read('later.txt'), undefined);
    assert.deepEqual(read('README.md'), bytes('hello\n'));
    assert.deepEqual(read('src/app.ts'), bytes('export const answer = 1;\n'));
    assert.deepEqual(outcome.written.sort(), ['crlf.txt', 'new/made.txt', 'odd.txt', 'pic.bin']);
    assert.deepEqual(outcome.deleted, ['gone.txt']);
    assert.deepEqual(outcome.left, []);
    assert.match(outcome.notices[0]!, /starts from HEAD \([0-9a-f]{8} on main\)/);

    // The fork holds the conversation up to the message; the original and the workspace are as they were.
    assert.deepEqual(outcome.fork.forkedFrom, { conversationId: parentId, seq: answer.cutSeq, reason: 'fork' });
    const copied = await store.listMessages(outcome.fork.id);
    assert.ok(copied.some((message) => JSON.stringify(message.content).includes('Done one.')));
    assert.ok(!copied.some((message) => JSON.stringify(message.content).includes('Done two.')));
    assert.deepEqual(await store.listMessages(parentId), parentBefore);
    assert.deepEqual(snapshot(rig.workspace), workspaceBefore, 'the workspace is not touched');
    assert.equal(session.currentId, parentId, 'the session still shows the original');
    // Git sees the fork's files as the worktree's uncommitted changes (Review shows them).
    const status = rig.git(['status', '--porcelain'], root);
    assert.match(status, /crlf\.txt/);
    assert.match(status, /gone\.txt/);
    await store.close();
  });

  it('at the first prompt, nothing was changed yet: the worktree is HEAD', async () => {
    const { store } = await openStore(tempDir());
    const { rig, session } = await threeTurns(store);
    const first = (await session.forks.points())[0]!;
    const outcome = await forkIntoWorktree(
      { forks: session.forks, worktrees: rig.worktrees, files: new NodeForkFiles(rig.workspace) },
      { name: 'from the start', cutSeq: first.seq },
    );
    assert.equal(outcome.status, 'forked');
    if (outcome.status !== 'forked') return;
    assert.equal(rig.git(['status', '--porcelain'], outcome.worktree.root), '');
    assert.equal(fs.readFileSync(path.join(outcome.worktree.root, 'crlf.txt'), 'utf8'), 'at head\r\n');
    await store.close();
  });

  it('after a reload (no checkpoints) the files a later turn changed are named and left as at HEAD', async () => {
    const { store } = await openStore(tempDir());
    const { rig, session, answer } = await threeTurns(store);
    const id = session.currentId!;
    // Reopened: the same conversation, without the checkpoints of its turns.
    assert.equal(await session.open(id), true);
    const outcome = await forkIntoWorktree(
      { forks: session.forks, worktrees: rig.worktrees, files: new NodeForkFiles(rig.workspace) },
      { name: 'after reload', cutSeq: answer.cutSeq },
    );
    assert.equal(outcome.status, 'forked');
    if (outcome.status !== 'forked') return;
    assert.deepEqual(outcome.left.map((file) => file.path).sort(), ['crlf.txt', 'new/made.txt', 'odd.txt']);
    assert.match(outcome.notices.join(' '), /Left as at HEAD: .*crlf\.txt/);
    // Known: touched by turn one only.
    assert.deepEqual(new Uint8Array(fs.readFileSync(path.join(outcome.worktree.root, 'pic.bin'))), BINARY);
    assert.equal(fs.readFileSync(path.join(outcome.worktree.root, 'crlf.txt'), 'utf8'), 'at head\r\n');
    await store.close();
  });

  it('a write failing after the worktree was added removes it again; no conversation is forked', async () => {
    const { store } = await openStore(tempDir());
    const { rig, session, answer } = await threeTurns(store);
    const before = (await store.listConversations()).length;
    const real = new NodeForkFiles(rig.workspace);
    const failing: ForkFileAccess = {
      read: (file) => real.read(file),
      write: async () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      },
    };
    const outcome = await forkIntoWorktree(
      { forks: session.forks, worktrees: rig.worktrees, files: failing },
      { name: 'disk full', cutSeq: answer.cutSeq },
    );
    assert.equal(outcome.status, 'failed');
    if (outcome.status !== 'failed') return;
    assert.equal(outcome.stage, 'files');
    assert.match(outcome.message, /no space left.*removed again/);
    assert.deepEqual(await rig.worktrees.list(), [], 'no worktree or branch is left');
    assert.equal((await store.listConversations()).length, before, 'no fork was made');
    await store.close();
  });

  it('a conversation store that fails the fork: the worktree is removed again', async () => {
    const { store } = await openStore(tempDir());
    const { rig, session, answer } = await threeTurns(store);
    const forkConversation = store.forkConversation?.bind(store);
    store.forkConversation = async () => {
      throw new Error('database is locked');
    };
    const outcome = await forkIntoWorktree(
      { forks: session.forks, worktrees: rig.worktrees, files: new NodeForkFiles(rig.workspace) },
      { name: 'store fails', cutSeq: answer.cutSeq },
    );
    store.forkConversation = forkConversation;
    assert.equal(outcome.status, 'failed');
    if (outcome.status === 'failed') {
      assert.equal(outcome.stage, 'conversation');
      assert.match(outcome.message, /database is locked.*removed again/);
    }
    assert.deepEqual(await rig.worktrees.list(), []);
    assert.equal(fs.readdirSync(rig.baseFolder).length, 0, 'the folder is gone too');
    await store.close();
  });

  it('a workspace in a subfolder of the repository writes the same subfolder of the worktree', async () => {
    const { store } = await openStore(tempDir());
    const rig = makeRig();
    const sub = path.join(rig.workspace, 'packages', 'web');
    rig.write('packages/web/page.txt', 'at head\n');
    rig.git(['add', '-A']);
    rig.git(['commit', '-q', '-m', 'sub']);
    server = await FakeModelServer.start({
      scenario: {
        name: 'sub',
        turns: [
          { match: 'one', toolCalls: [write('s1', 'page.txt', 'turn one\n')] },
          { text: 'Done one.' },
          { match: 'two', toolCalls: [write('s2', 'page.txt', 'turn two\n')] },
          { text: 'Done two.' },
        ],
      },
    });
    const { session, run } = forkSession(server, store, sub);
    await run('one');
    await run('two');
    const answer = (await session.forks.points()).find((point) => point.text === 'Done one.')!;
    const worktrees = new GitWorktrees({ workspaceRoot: sub, baseFolder: () => rig.baseFolder });
    const outcome = await forkIntoWorktree(
      { forks: session.forks, worktrees, files: new NodeForkFiles(sub) },
      { name: 'sub', cutSeq: answer.cutSeq },
    );
    assert.equal(outcome.status, 'forked');
    if (outcome.status !== 'forked') return;
    assert.equal(fs.readFileSync(path.join(outcome.worktree.root, 'packages/web/page.txt'), 'utf8'), 'turn one\n');
    assert.equal(fs.existsSync(path.join(outcome.worktree.root, 'page.txt')), false);
    await store.close();
  });
});

function bytes(text: string): Uint8Array {
  return new Uint8Array(Buffer.from(text, 'utf8'));
}

/** Every file under `root` but .git, with its bytes (hex): to see that nothing changed. */
function snapshot(root: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      if (entry.name === '.git') continue;
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else files[path.relative(root, full)] = fs.readFileSync(full).toString('hex');
    }
  };
  walk(root);
  return files;
}
