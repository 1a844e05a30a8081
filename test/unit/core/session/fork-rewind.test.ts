/**
 * Fork and rewind (SPEC 5b) on real conversations: the fake model answers, the store is the real
 * one on disk, the file tools write real files. A fork copies the history up to a message and
 * leaves the parent as it was; its history is valid at every cut, mid tool call included. A
 * rewind keeps the abandoned part as a fork, restores the files byte for byte after asking, and
 * sends the edited prompt.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { restoreConversation } from '../../../../src/core/session/restore';
import type { RewindFilePlan } from '../../../../src/core/session/session-forks';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { openStore, tempDir } from '../../store/store-helpers';
import { assertValidHistory, forkSession, tempWorkspace } from './fork-harness';

const write = (id: string, file: string, content: string) => ({
  id,
  name: 'write_file',
  arguments: { path: file, content },
});

/** Bytes that are not UTF-8 (no NUL, so not binary to the tools), and CRLF line ends. */
const LATIN1 = Uint8Array.from([0x63, 0x61, 0x66, 0xe9, 0x0d, 0x0a, 0x8f, 0x41, 0x0a]);
const CRLF = 'alpha\r\nbeta\r\n';

describe('fork and rewind', function () {
  this.timeout(60_000);
  let server: FakeModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('a fork holds the history up to the message, reopens, and continues; the parent is untouched', async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'fork',
        turns: [
          { match: 'one', text: 'Answer one.' },
          { match: 'two', text: 'Answer two.' },
        ],
        whenExhausted: 'echo',
      },
    });
    const { store } = await openStore(tempDir());
    const { session, run } = forkSession(server, store, tempWorkspace());
    await run('prompt one');
    await run('prompt two');
    const parentId = session.currentId!;
    const parentBefore = await store.listMessages(parentId);

    const points = await session.forks.points();
    assert.deepEqual(
      points.map((point) => `${point.number} ${point.role} ${point.text}`),
      ['1 user prompt one', '2 assistant Answer one.', '3 user prompt two', '4 assistant Answer two.'],
    );
    const told: unknown[] = [];
    session.onEvent((event) => event.type === 'conversation_forked' && told.push(event));
    const forked = await session.forks.fork(points[1]!.cutSeq);
    assert.equal(forked.status, 'forked');
    if (forked.status !== 'forked') return;
    assert.deepEqual(forked.fork.forkedFrom, { conversationId: parentId, seq: points[1]!.cutSeq, reason: 'fork' });
    assert.equal(told.length, 1);
    assert.deepEqual(await store.listMessages(parentId), parentBefore, 'the parent is not changed');

    // Reopened, the fork shows the copied events and continues with just that history.
    assert.equal(await session.open(forked.fork.id), true);
    const shown = session.history.flatMap((event) =>
      event.type === 'user_message' || event.type === 'text_delta' ? [event.text] : [],
    );
    assert.deepEqual(shown, ['prompt one', 'Answer one.']);
    assert.ok(session.history.some((event) => event.type === 'conversation_forked'));
    await run('prompt three');
    const sent = JSON.stringify(server.modelCalls.at(-1)?.body);
    assert.match(sent, /prompt one/);
    assert.match(sent, /prompt three/);
    assert.doesNotMatch(sent, /prompt two/);
    // The tree: the parent with its fork below.
    const tree = await session.forks.tree(forked.fork.id);
    assert.equal(tree?.conversation.id, parentId);
    assert.deepEqual(
      tree?.forks.map((fork) => fork.conversation.id),
      [forked.fork.id],
    );
    await store.close();
  });

  it('the history of a fork is valid at every cut, between parallel tool calls and their results too', async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'parallel',
        turns: [
          {
            match: 'two files',
            text: 'Writing both.',
            toolCalls: [write('w1', 'a.txt', 'a\n'), write('w2', 'b.txt', 'b\n')],
          },
          { text: 'Now one more.', toolCalls: [write('w3', 'c.txt', 'c\n')] },
          { text: 'All written.' },
        ],
        whenExhausted: 'echo',
      },
    });
    const { store } = await openStore(tempDir());
    const { session, run } = forkSession(server, store, tempWorkspace());
    await run('write two files');
    await run('and then?');
    const parentId = session.currentId!;
    const stored = await store.listMessages(parentId);
    assert.ok(stored.some((message) => (message.content as { type?: string }).type === 'tool_result'));
    for (const message of stored) {
      const forked = await session.forks.fork(message.seq);
      assert.equal(forked.status, 'forked', `fork at ${message.seq}`);
      if (forked.status !== 'forked') continue;
      const copied = await store.listMessages(forked.fork.id);
      const restored = restoreConversation(forked.fork.id, copied);
      assertValidHistory(restored.history, `cut at seq ${message.seq}`);
      // Everything up to the cut, and the marker (and a run end when the cut was inside a run).
      assert.equal(
        copied.filter((copy) => copy.seq <= message.seq).length,
        stored.filter((m) => m.seq <= message.seq).length,
      );
      assert.ok(restored.events.some((event) => event.type === 'conversation_forked'));
    }
    // A fork at a call whose result was not there yet continues with a valid request.
    const call = stored.find(
      (message) => (message.content as { toolCallId?: string; type?: string }).type === 'tool_call',
    )!;
    const forked = await session.forks.fork(call.seq, { open: true });
    assert.equal(forked.status, 'forked');
    await run('go on');
    const body = server.modelCalls.at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
    assert.match(JSON.stringify(body.messages.at(-1)), /go on/);
    assert.doesNotMatch(JSON.stringify(body.messages), /"w1"/, 'the call with no result is left out');
    await store.close();
  });

  it('rewind keeps the abandoned part as a fork, restores files byte for byte after asking, and resends', async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'rewind',
        turns: [
          { match: 'first', toolCalls: [write('k1', 'keep.txt', 'turn one\n')] },
          { text: 'Done one.' },
          {
            match: 'second',
            toolCalls: [
              write('s1', 'crlf.txt', 'changed\r\n'),
              write('s2', 'latin.txt', 'now utf-8\n'),
              write('s3', 'new/created.txt', 'made by turn two\n'),
            ],
          },
          { text: 'Done two.' },
          { match: 'third', toolCalls: [write('t1', 'crlf.txt', 'changed again\r\n')] },
          { text: 'Done three.' },
          { match: 'edited', text: 'Answer to the edit.' },
        ],
      },
    });
    const root = tempWorkspace({ 'crlf.txt': CRLF, 'latin.txt': LATIN1, 'keep.txt': 'original\n' });
    const { store } = await openStore(tempDir());
    const { session, run } = forkSession(server, store, root);
    await run('first');
    await run('second');
    await run('third');
    // Deleted since the agent wrote it (a command, the user): restored too, after being named.
    fs.rmSync(path.join(root, 'latin.txt'));
    const id = session.currentId!;
    const before = await store.listMessages(id);
    const second = (await session.forks.points()).find((point) => point.text === 'second')!;

    // The files as they were at the first answer, for a fork into a fresh worktree (nothing written).
    const firstAnswer = (await session.forks.points()).find((point) => point.text === 'Done one.')!;
    const atPoint = await session.forks.filesAt(firstAnswer.cutSeq);
    assert.ok(!('status' in atPoint));
    if (!('status' in atPoint)) {
      const byPath = new Map(atPoint.files.map((file) => [file.path, file.bytes]));
      assert.deepEqual([...byPath.keys()].sort(), ['crlf.txt', 'latin.txt', 'new/created.txt']);
      assert.equal(Buffer.from(byPath.get('crlf.txt')!).toString('latin1'), CRLF);
      assert.deepEqual([...byPath.get('latin.txt')!], [...LATIN1]);
      assert.equal(byPath.get('new/created.txt'), null);
      assert.deepEqual(atPoint.unknown, []);
    }
    assert.equal(fs.readFileSync(path.join(root, 'crlf.txt'), 'latin1'), 'changed again\r\n');

    let asked: RewindFilePlan | undefined;
    const outcome = await session.forks.rewind(second.seq, 'second, edited', async (plan) => {
      asked = plan;
      return 'restore';
    });
    assert.equal(outcome.status, 'rewound');
    if (outcome.status !== 'rewound') return;
    assert.ok(asked);
    assert.deepEqual(asked.turns, [3, 2]);
    assert.equal(asked.restorable, true);
    assert.deepEqual(
      asked.files.map((file) => `${file.path} ${file.change}${file.changedSince ? ' changed-since' : ''}`).sort(),
      ['crlf.txt modified', 'latin.txt modified changed-since', 'new/created.txt created'],
    );
    assert.deepEqual(outcome.files?.failed, []);
    assert.equal(fs.readFileSync(path.join(root, 'crlf.txt'), 'latin1'), CRLF);
    assert.deepEqual([...fs.readFileSync(path.join(root, 'latin.txt'))], [...LATIN1]);
    assert.equal(fs.existsSync(path.join(root, 'new', 'created.txt')), false);
    assert.equal(fs.readFileSync(path.join(root, 'keep.txt'), 'utf8'), 'turn one\n', 'turn one is before the point');

    // The abandoned part is a fork holding everything the conversation had.
    const abandoned = await store.listMessages(outcome.fork.id);
    assert.deepEqual(outcome.fork.forkedFrom, { conversationId: id, seq: second.seq - 1, reason: 'rewind' });
    for (const message of before)
      assert.deepEqual(
        abandoned.find((copy) => copy.seq === message.seq)?.content,
        message.content,
        `message ${message.seq} kept in the fork`,
      );
    // The edited prompt went out with the history before it only.
    await session.flush();
    const request = JSON.stringify(server.modelCalls.at(-1)?.body);
    assert.match(request, /second, edited/);
    assert.match(request, /first/);
    assert.doesNotMatch(request, /"second"|third/);
    const now = (await store.listMessages(id)).map((message) => message.content as { text?: string; type?: string });
    assert.ok(now.some((content) => content.text === 'second, edited'));
    assert.ok(!now.some((content) => content.text === 'third'));
    assert.ok(now.some((content) => content.type === 'conversation_forked'));
    assert.deepEqual(
      (await session.forks.tree(id))?.forks.map((fork) => fork.conversation.id),
      [outcome.fork.id],
    );
    await store.close();
  });

  it('after a reload the files cannot be restored: it says why, and the history can still go back', async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'reload',
        turns: [
          { match: 'make', toolCalls: [write('m1', 'made.txt', 'made\n')] },
          { text: 'Made.' },
          { match: 'instead', text: 'Fine.' },
        ],
      },
    });
    const root = tempWorkspace();
    const directory = tempDir();
    const first = await openStore(directory);
    const before = forkSession(server, first.store, root);
    await before.run('make a file');
    const id = before.session.currentId!;
    await first.store.close();

    const second = await openStore(directory);
    const after = forkSession(server, second.store, root);
    assert.equal(await after.session.open(id), true);
    const prompt = (await after.session.forks.points())[0]!;
    const cancelled = await after.session.forks.rewind(prompt.seq, 'something else instead', async (plan) => {
      assert.equal(plan.restorable, false);
      assert.match(plan.reason ?? '', /not kept any more.*turn 1 was run before the window was reloaded/);
      assert.deepEqual(plan.files, [{ path: 'made.txt', change: 'created', changedSince: false }]);
      return 'cancel';
    });
    assert.equal(cancelled.status, 'cancelled');
    assert.equal((await second.store.listConversations()).length, 1, 'a cancelled rewind keeps nothing new');
    const outcome = await after.session.forks.rewind(prompt.seq, 'something else instead', async () => 'history_only');
    assert.equal(outcome.status, 'rewound');
    if (outcome.status === 'rewound') assert.match(outcome.filesLeft ?? '', /not kept any more/);
    assert.equal(fs.readFileSync(path.join(root, 'made.txt'), 'utf8'), 'made\n', 'the file is left as it is');
    await after.session.flush();
    assert.match(JSON.stringify(server.modelCalls.at(-1)?.body), /something else instead/);
    await second.store.close();
  });
});
