/**
 * The chat that comes back: a window's conversation, half-typed prompt and queued messages are
 * kept per window and reopened after a reload (a new session and store handle on the same
 * store), and anything wrong with what was kept means a fresh chat, never an error.
 */
import assert from 'node:assert/strict';
import { ChatKeeper } from '../../../../src/core/session/chat-keeper';
import { MemoryKeeping } from './memory-keeping';
import type { ConversationStore } from '../../../../src/core/ports';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { waitUntil } from '../../../harness/patience';
import { openStore, tempDir } from '../../store/store-helpers';
import { sessionOn } from './session-harness';

describe('the chat that comes back (ChatKeeper)', function () {
  this.timeout(60_000);
  let server: FakeModelServer;
  let directory: string;
  const stores: ConversationStore[] = [];
  let ids = 0;

  beforeEach(async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'keeper',
        turns: [
          { match: 'slow', text: 'Slowly answering, letter by letter.', chunkSize: 1, delayMs: 40 },
          // Streams for minutes: a window that reloads mid-run is never overtaken by its end.
          { match: 'unfinished', text: 'Still answering. '.repeat(200), chunkSize: 1, delayMs: 40 },
        ],
        whenExhausted: 'echo',
      },
    });
    directory = tempDir();
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await server.close();
  });

  /** A window: a new session on the store folder (a store handle of its own), and its keeper. */
  async function openWindow(keeping: MemoryKeeping, workspace = '/work/project-a') {
    const { store } = await openStore(directory);
    stores.push(store);
    const storeErrors: unknown[] = [];
    const harness = sessionOn(server, {
      store: async () => store,
      newId: () => `conversation-${++ids}`,
      clock: { now: () => Date.now() },
      onStoreError: (error) => storeErrors.push(error),
    });
    const keeper = new ChatKeeper({ session: harness.session, keeping, workspace });
    return { ...harness, keeper, store, storeErrors };
  }

  it('reopens the conversation, the half-typed prompt and the queued messages after a reload', async () => {
    const keeping = new MemoryKeeping();
    const before = await openWindow(keeping);
    await before.keeper.restore();
    await before.run('What is the capital of France?');
    await before.session.submit('an unfinished answer please');
    await waitUntil(
      () => before.events.some((event) => event.type === 'text_delta' && event.text === 'S'),
      'streaming',
    );
    await before.session.submit('queued follow-up');
    before.keeper.setDraft('half-typed @file:src/app.ts and');
    await before.session.flush();
    await before.keeper.flush();
    const id = before.session.currentId;
    assert.deepEqual(keeping.kept, {
      version: 1,
      workspace: '/work/project-a',
      conversationId: id,
      draft: 'half-typed @file:src/app.ts and',
      queue: ['queued follow-up'],
    });

    // The window reloads mid-run: deactivation ends the old session (its answer never finishes,
    // whatever the machine's speed), and a new session starts with nothing in memory.
    await before.session.dispose();
    const after = await openWindow(keeping);
    assert.equal(after.keeper.draft, '', 'nothing is read before the chat view asks');
    await after.keeper.restore();
    assert.equal(after.session.currentId, id);
    assert.equal(after.keeper.draft, 'half-typed @file:src/app.ts and');
    assert.deepEqual(
      after.session.history.filter((event) => event.type === 'user_message').map((event) => event.text),
      ['What is the capital of France?', 'an unfinished answer please'],
    );
    assert.deepEqual(after.session.queue.state, {
      items: [{ id: after.session.queue.state.items[0]!.id, text: 'queued follow-up' }],
      held: { kind: 'reloaded' },
    });
    // The next prompt continues that conversation.
    await after.run('And of Italy?');
    assert.equal(after.session.currentId, id);
  });

  it('brings back a new, empty chat after New Chat, with its own half-typed text, not the old conversation', async () => {
    const keeping = new MemoryKeeping();
    const before = await openWindow(keeping);
    await before.keeper.restore();
    await before.run('an old question');
    before.session.reset();
    before.keeper.setDraft('the start of something new');
    await before.keeper.flush();

    const after = await openWindow(keeping);
    await after.keeper.restore();
    assert.equal(after.session.currentId, undefined);
    assert.equal(after.session.history.length, 0);
    assert.equal(after.keeper.draft, 'the start of something new');
  });

  it('starts fresh, without an error, when the kept conversation was deleted, or what was kept is damaged, foreign or unreadable', async () => {
    const keeping = new MemoryKeeping();
    const first = await openWindow(keeping);
    await first.keeper.restore();
    await first.run('soon deleted');
    const id = first.session.currentId!;
    // Everything of the run is in the store before the conversation is deleted.
    await first.session.flush();
    await first.keeper.flush();
    const good = keeping.text!;
    await first.store.deleteConversation(id);

    const cases: Array<[string, (keeping: MemoryKeeping) => void, string]> = [
      ['a deleted conversation', () => undefined, 'kept draft'],
      ['damaged JSON', (k) => (k.text = good.slice(0, good.length / 2)), ''],
      ['random bytes', (k) => (k.text = '\u0000\u00ff\ufffd{{'), ''],
      ['a future version', (k) => (k.text = JSON.stringify({ ...JSON.parse(good), version: 2 })), ''],
      ['another workspace', (k) => (k.text = JSON.stringify({ ...JSON.parse(good), workspace: '/elsewhere' })), ''],
      ['a wrong shape', (k) => (k.text = JSON.stringify({ ...JSON.parse(good), queue: 'not a list' })), ''],
      ['a huge document', (k) => (k.text = JSON.stringify({ ...JSON.parse(good), draft: 'x'.repeat(9_000_000) })), ''],
      ['an unreadable place', (k) => (k.failReads = true), ''],
    ];
    for (const [what, spoil, draft] of cases) {
      const kept = new MemoryKeeping();
      kept.text = JSON.stringify({ ...JSON.parse(good), draft: 'kept draft' });
      spoil(kept);
      const window = await openWindow(kept);
      await window.keeper.restore();
      assert.equal(window.session.currentId, undefined, what);
      assert.equal(window.session.history.length, 0, what);
      assert.equal(window.keeper.draft, draft, what);
      assert.deepEqual(window.storeErrors, [], `${what}: no error for the user`);
      // And the chat works: the next prompt starts a new conversation, kept in place of the old.
      await window.run(`fresh after ${what}`);
      await window.keeper.flush();
      if (!kept.failReads) assert.equal(kept.kept.conversationId, window.session.currentId, what);
    }
  });

  it('leaves a chat started before the view opened (a palette command) in place, and keeps the draft', async () => {
    const keeping = new MemoryKeeping();
    const before = await openWindow(keeping);
    await before.keeper.restore();
    await before.run('the window’s last chat');
    before.keeper.setDraft('still typing');
    await before.keeper.flush();

    const after = await openWindow(keeping);
    await after.run('Explain the selection');
    const started = after.session.currentId;
    await after.keeper.restore();
    assert.equal(after.session.currentId, started);
    assert.equal(after.keeper.draft, 'still typing');
    await after.keeper.flush();
    assert.equal(keeping.kept.conversationId, started, 'the chat on screen is now the one kept');
  });

  it('keeps a New Chat the user chose while the last chat was still being read back', async () => {
    const keeping = new MemoryKeeping();
    const before = await openWindow(keeping);
    await before.keeper.restore();
    await before.run('the window’s last chat');
    await before.keeper.flush();

    const after = await openWindow(keeping);
    // The chat view asks for its last chat; the user runs New Chat before it has been read.
    const restoring = after.keeper.restore();
    after.session.reset();
    await restoring;
    assert.equal(after.session.currentId, undefined, 'the old conversation did not come back over New Chat');
    assert.equal(after.session.history.length, 0);
    await after.keeper.flush();
    assert.equal(keeping.kept.conversationId, undefined, 'the new, empty chat is the one kept');
  });

  it('keeps each window’s own chat: two windows on two folders come back to their own', async () => {
    const keepingA = new MemoryKeeping();
    const keepingB = new MemoryKeeping();
    const windowA = await openWindow(keepingA, '/work/project-a');
    const windowB = await openWindow(keepingB, '/work/project-b');
    await Promise.all([windowA.keeper.restore(), windowB.keeper.restore()]);
    await windowA.run('question in A');
    await windowB.run('question in B');
    windowB.keeper.setDraft('draft in B');
    // Both windows reload, as deactivation ends them: the session's records first, then the chat kept.
    await Promise.all([windowA.session.flush(), windowB.session.flush()]);
    await Promise.all([windowA.keeper.flush(), windowB.keeper.flush()]);

    const againA = await openWindow(keepingA, '/work/project-a');
    const againB = await openWindow(keepingB, '/work/project-b');
    await Promise.all([againA.keeper.restore(), againB.keeper.restore()]);
    const firstPrompt = (window: typeof againA) =>
      window.session.history.find((event) => event.type === 'user_message');
    assert.equal(firstPrompt(againA)?.type === 'user_message' && firstPrompt(againA)?.text, 'question in A');
    assert.equal(firstPrompt(againB)?.type === 'user_message' && firstPrompt(againB)?.text, 'question in B');
    assert.equal(againA.keeper.draft, '');
    assert.equal(againB.keeper.draft, 'draft in B');
  });

  it('writes when something kept changes — not for every streamed token — and always ends with the newest state', async () => {
    const keeping = new MemoryKeeping();
    const window = await openWindow(keeping);
    await window.keeper.restore();
    await window.keeper.flush();
    const afterRestore = keeping.writes;
    await window.run('slow answer please');
    await window.keeper.flush();
    const deltas = window.events.filter((event) => event.type === 'text_delta').length;
    assert.ok(deltas > 20);
    assert.ok(keeping.writes - afterRestore <= 2, `${keeping.writes - afterRestore} writes for one prompt`);
    // A burst of drafts: one write at a time, the last one wins.
    for (let index = 0; index <= 200; index++) window.keeper.setDraft(`typing ${index}`);
    await window.keeper.flush();
    assert.equal(keeping.kept.draft, 'typing 200');
    assert.ok(keeping.writes - afterRestore < 10);
  });

  it('reports a failed write without losing the change: the next change writes it', async () => {
    const keeping = new MemoryKeeping();
    const failures: unknown[] = [];
    const window = await openWindow(keeping);
    const keeper = new ChatKeeper({
      session: window.session,
      keeping,
      workspace: '/work/project-a',
      onWriteError: (error) => failures.push(error),
    });
    window.keeper.dispose();
    await keeper.restore();
    await keeper.flush();
    keeping.failWrites = true;
    keeper.setDraft('written while the disk is full');
    await keeper.flush();
    assert.equal(failures.length, 1);
    assert.match(String(failures[0]), /ENOSPC/);
    keeping.failWrites = false;
    keeper.setDraft('written while the disk is full, and more');
    await keeper.flush();
    assert.equal(keeping.kept.draft, 'written while the disk is full, and more');
  });
});
