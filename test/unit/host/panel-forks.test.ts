/**
 * The developer panel's Forks tab, host side (SPEC 5b): a real session on the fake model server
 * saving into a real store, the panel controller fed by it. The tree the panel is given names the
 * root, each fork under its parent with the message it was forked at and why, and which one is
 * shown; it follows forks and edits as they are made; a clicked row opens that conversation,
 * and a click the host should not follow (not in the tree, the agent working) is refused in words.
 */
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { PanelController } from '../../../src/host/panel/panel-controller';
import { openAcrossSessions, type ForksSession } from '../../../src/host/panel/panel-forks';
import type { ForkRow, HostToPanel } from '../../../src/protocol/messages';
import { hostToPanelSchema, parsePanelMessage } from '../../../src/protocol/messages';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { forkSession, tempWorkspace } from '../core/session/fork-harness';
import { openStore, tempDir } from '../store/store-helpers';

type Tree = Extract<HostToPanel, { type: 'fork_tree' }>;

/** The panel's webview: what the host posts, and the panel's messages sent for it. */
function recordingWebview() {
  const posts: HostToPanel[] = [];
  const listeners = new Set<(message: unknown) => void>();
  const webview = {
    postMessage: (message: HostToPanel) => (posts.push(structuredClone(message)), Promise.resolve(true)),
    onDidReceiveMessage: (listener: (message: unknown) => void) => (
      listeners.add(listener),
      { dispose: () => listeners.delete(listener) }
    ),
  } as unknown as vscode.Webview;
  const send = (message: unknown) => listeners.forEach((listener) => listener(message));
  return { webview, posts, send };
}

/** Waits (generously) for the first post after `from` that `accept` takes. */
async function nextPost<T extends HostToPanel>(
  posts: HostToPanel[],
  from: number,
  accept: (post: HostToPanel) => post is T,
): Promise<T> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const found = posts.slice(from).find(accept);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`no such post; posted: ${JSON.stringify(posts.slice(from))}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
const isTree = (post: HostToPanel): post is Tree => post.type === 'fork_tree';
const treeWith =
  (count: number) =>
  (post: HostToPanel): post is Tree =>
    isTree(post) && post.rows.length === count;
const isNotice = (post: HostToPanel): post is Extract<HostToPanel, { type: 'forks_notice' }> =>
  post.type === 'forks_notice';

/** A row, its origin in short, for comparing. */
function outline(row: ForkRow): string {
  const origin = row.origin
    ? ` ${row.origin.reason}@${row.origin.number ?? '-'}/${row.origin.role ?? '-'} "${row.origin.text ?? ''}"`
    : '';
  return `${'  '.repeat(row.depth)}${row.title}${origin}${row.shown ? ' [shown]' : ''}`;
}

describe('developer panel: the tree of forks (real session, real store)', function () {
  this.timeout(60_000);
  let server: FakeModelServer;
  beforeEach(async () => {
    server = await FakeModelServer.start({ scenario: { name: 'echo', turns: [], whenExhausted: 'echo' } });
  });
  afterEach(() => server.close());

  it('shows the root and its forks with where and why each was forked, live, and opens a clicked one', async () => {
    const { store } = await openStore(tempDir());
    const { session, run } = forkSession(server, store, tempWorkspace());
    const { webview, posts, send } = recordingWebview();
    const panel = new PanelController(webview, session);
    send({ type: 'panel_ready' });
    const empty = await nextPost(posts, 0, isTree);
    assert.deepEqual(empty.rows, [], 'no saved conversation yet: no rows');

    await run('first question');
    await run('second question');
    const rootId = session.currentId!;
    const points = await session.forks.points();
    assert.equal(points.length, 4);
    // "Fork from here" on the first answer, kept aside (the root stays shown).
    let mark = posts.length;
    const forked = await session.forks.fork(points[1]!.cutSeq);
    assert.equal(forked.status, 'forked');
    let tree = await nextPost(posts, mark, treeWith(2));
    const rootTitle = tree.rows[0]!.title;
    assert.deepEqual(tree.rows.map(outline), [
      `${rootTitle} [shown]`,
      `  ${rootTitle} (fork) fork@2/assistant "${points[1]!.text}"`,
    ]);
    assert.equal(tree.total, 2);
    assert.equal(tree.rows[1]!.id, forked.status === 'forked' ? forked.fork.id : '');
    assert.ok(hostToPanelSchema.safeParse(tree).success, 'the message fits the protocol');

    // Edit and resend of the second prompt: the part it leaves behind shows up as a rewind.
    mark = posts.length;
    const rewound = await session.forks.rewind(points[2]!.seq, 'second question, asked better');
    assert.equal(rewound.status, 'rewound');
    tree = await nextPost(posts, mark, treeWith(3));
    assert.deepEqual(tree.rows.map(outline), [
      `${rootTitle} [shown]`,
      `  ${rootTitle} (fork) fork@2/assistant "${points[1]!.text}"`,
      `  ${rootTitle} (before edit) rewind@2/assistant "${points[1]!.text}"`,
    ]);
    await nextPostAfterRun(session);

    // A click on the fork: the session shows it, and the tree says so.
    const forkId = tree.rows[1]!.id;
    mark = posts.length;
    send({ type: 'fork_open', conversationId: forkId });
    tree = await nextPost(posts, mark, (post): post is Tree => isTree(post) && post.rows[1]?.shown === true);
    assert.equal(session.currentId, forkId);
    assert.equal(tree.rows[0]!.shown, false);
    assert.equal(posts.slice(mark).filter(isNotice).length, 0, 'no complaint when it opened');

    // A fork of the fork goes under it.
    mark = posts.length;
    assert.equal((await session.forks.fork()).status, 'forked');
    tree = await nextPost(posts, mark, treeWith(4));
    assert.deepEqual(
      tree.rows.map((row) => [row.depth, row.id === forkId || row.id === rootId]),
      [
        [0, true],
        [1, true],
        [2, false],
        [1, false],
      ],
    );

    // A conversation outside the tree is not opened, whatever the webview says.
    session.reset();
    await run('unrelated');
    const stranger = session.currentId!;
    mark = posts.length;
    await session.open(forkId);
    await nextPost(posts, mark, isTree);
    mark = posts.length;
    send({ type: 'fork_open', conversationId: stranger });
    const notice = await nextPost(posts, mark, isNotice);
    assert.match(notice.text, /not in this tree/);
    assert.equal(session.currentId, forkId);
    panel.dispose();
    await store.close();
  });

  it('refuses to open a fork while the agent works, and says so', async () => {
    const { store } = await openStore(tempDir());
    const { session, run } = forkSession(server, store, tempWorkspace());
    await run('one');
    const forked = await session.forks.fork();
    assert.equal(forked.status, 'forked');
    const { webview, posts, send } = recordingWebview();
    const panel = new PanelController(webview, session);
    send({ type: 'panel_ready' });
    await nextPost(posts, 0, treeWith(2));
    const busy: ForksSession = Object.create(session, { isBusy: { value: true } }) as ForksSession;
    const problem = await openAcrossSessions({ list: () => [], get: () => undefined, show: () => undefined })(
      forked.status === 'forked' ? forked.fork.id : '',
      busy,
    );
    assert.match(problem ?? '', /agent is working/);
    assert.notEqual(session.currentId, forked.status === 'forked' ? forked.fork.id : '');
    panel.dispose();
    await store.close();
  });

  it('takes only well-formed fork_open and forks_request messages from the webview', () => {
    assert.deepEqual(parsePanelMessage({ type: 'fork_open', conversationId: 'c1' }), {
      type: 'fork_open',
      conversationId: 'c1',
    });
    assert.deepEqual(parsePanelMessage({ type: 'forks_request' }), { type: 'forks_request' });
    for (const bad of [
      { type: 'fork_open' },
      { type: 'fork_open', conversationId: '' },
      { type: 'fork_open', conversationId: 'x'.repeat(201) },
      { type: 'fork_open', conversationId: 7 },
      { type: 'fork_open', conversationId: 'c1', __proto__: { polluted: true }, extra: 1 },
      { type: 'forks_request', all: true },
    ])
      assert.equal(parsePanelMessage(bad), undefined, JSON.stringify(bad));
  });

  it('brings forward a session of the window that already shows the clicked fork', async () => {
    const { store } = await openStore(tempDir());
    const { session, run } = forkSession(server, store, tempWorkspace());
    await run('one');
    const shown: string[] = [];
    const other = { session: { currentId: 'conv-elsewhere' } };
    const opener = openAcrossSessions({
      list: () => [{ id: 'here' }, { id: 'worktree-1' }],
      get: (id) => (id === 'worktree-1' ? other : { session }),
      show: (id) => shown.push(id),
    });
    const before = session.currentId;
    assert.equal(await opener('conv-elsewhere', session), undefined);
    assert.deepEqual(shown, ['worktree-1'], 'the session showing it came forward');
    assert.equal(session.currentId, before, 'the followed session was left as it was');
    await store.close();
  });
});

/** Lets the resent prompt's run finish (a fork cannot be opened while it works). */
async function nextPostAfterRun(session: { isBusy: boolean }): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (session.isBusy && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
}
