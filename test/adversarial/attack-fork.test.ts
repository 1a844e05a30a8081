/**
 * Fork and rewind (SPEC 5b) against hostile input: message numbers out of range, negative, not
 * numbers, huge; forks of forks of forks; a fork or rewind while the agent works; files a later
 * turn changed that were replaced meanwhile by links out of the workspace (restoring never
 * writes or deletes through them); a conversation of 1,000 messages.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ConversationForks } from '../../src/core/session/conversation-forks';
import { restoreConversation } from '../../src/core/session/restore';
import { longConversation } from '../fixtures/long-conversation';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { openStore, tempDir } from '../unit/store/store-helpers';
import { assertValidHistory, forkSession, tempWorkspace } from '../unit/core/session/fork-harness';

const write = (id: string, file: string, content: string) => ({
  id,
  name: 'write_file',
  arguments: { path: file, content },
});

describe('attack: fork and rewind', function () {
  this.timeout(60_000);
  let server: FakeModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('message numbers out of range, negative, not numbers or huge are refused and make nothing', async () => {
    server = await FakeModelServer.start({ scenario: { name: 'n', turns: [], whenExhausted: 'echo' } });
    const { store } = await openStore(tempDir());
    const { session, run } = forkSession(server, store, tempWorkspace());
    assert.equal((await session.forks.fork(0)).status, 'refused', 'nothing to fork before the first prompt');
    await run('one');
    await run('two');
    const answer = (await session.forks.points())[1]!;
    for (const bad of [-1, -1e9, NaN, Infinity, 2.5, 1e20, Number.MAX_SAFE_INTEGER + 2, 10_000]) {
      const forked = await session.forks.fork(bad);
      assert.equal(forked.status, 'refused', `fork at ${bad}`);
      if (forked.status === 'refused') assert.match(forked.message, /No message .* in this conversation/);
      const rewound = await session.forks.rewind(bad, 'x', async () => 'restore');
      assert.equal(rewound.status, 'refused', `rewind at ${bad}`);
    }
    const atAnswer = await session.forks.rewind(answer.seq, 'x');
    assert.equal(atAnswer.status, 'refused');
    if (atAnswer.status === 'refused') assert.match(atAnswer.message, /only a prompt can be edited/);
    const empty = await session.forks.rewind(0, '   ');
    assert.equal(empty.status, 'refused');
    assert.equal((await store.listConversations()).length, 1, 'no conversation was made');
    await store.close();
  });

  it('a fork of a fork of a fork: each continues with its own history; the tree survives a deleted middle', async () => {
    server = await FakeModelServer.start({ scenario: { name: 'deep', turns: [], whenExhausted: 'echo' } });
    const { store } = await openStore(tempDir());
    const { session, run } = forkSession(server, store, tempWorkspace());
    await run('level 0');
    const ids = [session.currentId!];
    for (let level = 1; level <= 3; level++) {
      const forked = await session.forks.fork(undefined, { open: true });
      assert.equal(forked.status, 'forked');
      ids.push(session.currentId!);
      await run(`level ${level}`);
      const sent = JSON.stringify(server.modelCalls.at(-1)?.body);
      for (let earlier = 0; earlier <= level; earlier++) assert.match(sent, new RegExp(`level ${earlier}`));
      const restored = restoreConversation(ids[level]!, await store.listMessages(ids[level]!));
      assertValidHistory(restored.history, `level ${level}`);
    }
    const chain = await Promise.all(ids.map((id) => store.getConversation(id)));
    for (let level = 1; level <= 3; level++) assert.equal(chain[level]?.forkedFrom?.conversationId, ids[level - 1]);
    let tree = await session.forks.tree(ids[3]);
    const depth = (node: typeof tree): number => (node ? 1 + Math.max(0, ...node.forks.map(depth)) : 0);
    assert.equal(tree?.conversation.id, ids[0]);
    assert.equal(depth(tree), 4);
    // The middle deleted: its fork keeps its messages, and is the root of what is left of its tree.
    await session.deleteConversation(ids[1]!);
    tree = await session.forks.tree(ids[3]);
    assert.equal(tree?.conversation.id, ids[2]);
    assert.ok((await store.listMessages(ids[3]!)).length > 0);
    await store.close();
  });

  it('while the agent works, fork and rewind are refused with the reason, and nothing changes', async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'slow',
        turns: [
          { match: 'quick', text: 'Quick.' },
          { match: 'slow', text: 'a slow answer that takes its time', chunkSize: 1, delayMs: 100 },
        ],
      },
    });
    const { store } = await openStore(tempDir());
    const { session, run, waitDone } = forkSession(server, store, tempWorkspace());
    await run('quick one');
    const before = await store.listMessages(session.currentId!);
    await session.submit('slow one');
    while (!session.isRunning) await new Promise((resolve) => setTimeout(resolve, 10));
    const forked = await session.forks.fork(0);
    const rewound = await session.forks.rewind(0, 'edited', async () => 'restore');
    for (const outcome of [forked, rewound]) {
      assert.equal(outcome.status, 'refused');
      if (outcome.status === 'refused') assert.match(outcome.message, /The agent is working: stop it first/);
    }
    session.stop();
    await waitDone(1).catch(() => undefined);
    while (session.isBusy) await new Promise((resolve) => setTimeout(resolve, 10));
    assert.equal((await store.listConversations()).length, 1);
    const after = await store.listMessages(session.currentId!);
    for (const message of before) assert.ok(after.some((kept) => kept.id === message.id && kept.seq === message.seq));
    await store.close();
  });

  it('a restore never writes or deletes through links that replaced the files meanwhile', async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'links',
        turns: [
          { match: 'first', text: 'One.' },
          {
            match: 'second',
            toolCalls: [
              write('l1', 'target.txt', 'agent\n'),
              write('l2', 'sub/inner.txt', 'agent inner\n'),
              write('l3', 'made.txt', 'agent made\n'),
            ],
          },
          { text: 'Two.' },
          { match: 'edited', text: 'Edited.' },
        ],
      },
    });
    const outside = tempWorkspace({
      'target.txt': 'OUTSIDE\n',
      'inner.txt': 'OUTSIDE INNER\n',
      'made.txt': 'OUTSIDE MADE\n',
    });
    const root = tempWorkspace({ 'target.txt': 'original\n', 'sub/inner.txt': 'original inner\n' });
    const { store } = await openStore(tempDir());
    const { session, run } = forkSession(server, store, root);
    await run('first');
    await run('second');
    // Meanwhile each file the turn wrote becomes a link out of the workspace (a folder on the way too).
    fs.rmSync(path.join(root, 'target.txt'));
    fs.symlinkSync(path.join(outside, 'target.txt'), path.join(root, 'target.txt'));
    fs.rmSync(path.join(root, 'made.txt'));
    fs.symlinkSync(path.join(outside, 'made.txt'), path.join(root, 'made.txt'));
    fs.rmSync(path.join(root, 'sub'), { recursive: true });
    fs.symlinkSync(outside, path.join(root, 'sub'));
    const second = (await session.forks.points()).find((point) => point.text === 'second')!;
    const outcome = await session.forks.rewind(second.seq, 'edited', async (plan) => {
      assert.deepEqual(
        plan.files.filter((file) => !file.changedSince),
        [],
        'every replaced file is named as changed',
      );
      return 'restore';
    });
    assert.equal(outcome.status, 'rewound');
    for (const [name, content] of [
      ['target.txt', 'OUTSIDE\n'],
      ['inner.txt', 'OUTSIDE INNER\n'],
      ['made.txt', 'OUTSIDE MADE\n'],
    ])
      assert.equal(fs.readFileSync(path.join(outside, name!), 'utf8'), content, `${name} outside is untouched`);
    if (outcome.status !== 'rewound') return;
    // The link at a file's name is replaced by the file (not followed); the linked folder is refused.
    assert.equal(fs.lstatSync(path.join(root, 'target.txt')).isSymbolicLink(), false);
    assert.equal(fs.readFileSync(path.join(root, 'target.txt'), 'utf8'), 'original\n');
    assert.deepEqual(
      outcome.files?.failed.map((failed) => failed.path),
      ['sub/inner.txt'],
    );
    assert.equal(fs.existsSync(path.join(root, 'made.txt')), false, 'the link is removed, not what it leads to');
    await store.close();
  });

  it('a conversation of 1,000 messages forks whole and at a middle prompt with a valid history', async () => {
    const directory = tempDir();
    const { store } = await openStore(directory);
    await store.saveConversation({ id: 'long', title: 'long', createdAt: 0, updatedAt: 0, settings: {} });
    const messages = longConversation('long', 200);
    assert.equal(messages.length, 1_000);
    for (const message of messages) await store.putMessage(message);
    let next = 0;
    const forks = new ConversationForks({ store, now: () => 1, newId: () => `fork-${next++}` });
    const points = await forks.points('long');
    assert.equal(points.length, 400);
    for (const cut of [points.at(-1)!.cutSeq, points[199]!.cutSeq, points[200]!.seq]) {
      const fork = await forks.fork('long', cut);
      const copied = await store.listMessages(fork.id);
      const restored = restoreConversation(fork.id, copied);
      assertValidHistory(restored.history, `cut at ${cut}`);
      assert.equal(copied.filter((message) => message.seq <= cut).length, cut + 1);
    }
    const { fork } = await forks.rewind('long', points[2]!.seq);
    // Every message it had, and the marker that says where it came from.
    assert.equal((await store.listMessages(fork.id)).length, 1_001);
    assert.equal((await store.listMessages('long')).length, points[2]!.seq + 1, 'what came before, and the marker');
    await store.close();
  });
});
