/**
 * "Fork from here: where?" from the chat's message to a new session (issue 33), without VS Code:
 * the real chat controller, the real session registry, a real repository and store, the prompts
 * answered by the test. In a new worktree, the fork becomes a session of the list, is shown,
 * holds the conversation up to the message and works in a worktree whose files are as they were
 * then; "Here" forks in the chat as before; cancelling or a folder that is not a repository
 * makes nothing.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ConversationSession } from '../../../src/core/session/conversation-session';
import { SessionRegistry } from '../../../src/core/session/session-registry';
import { ChatController } from '../../../src/host/chat/chat-controller';
import { createForkPlacer, type ForkPlacerPrompts } from '../../../src/host/sessions/fork-placer';
import { NodeForkFiles } from '../../../src/node/worktrees/fork-files';
import { GitWorktrees } from '../../../src/node/worktrees/git-worktrees';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { FakeWebview, noActions } from '../../fixtures/fake-chat-host';
import { waitUntil } from '../../harness/patience';
import { openStore, tempDir } from '../store/store-helpers';
import { forkSession, tempWorkspace } from '../core/session/fork-harness';
import { makeRig } from '../node/worktrees/worktree-rig';

const write = (id: string, file: string, content: string) => ({
  id,
  name: 'write_file',
  arguments: { path: file, content },
});

describe('chat: fork from here into a new worktree', function () {
  this.timeout(60_000);
  let server: FakeModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function chat(
    where: 'here' | 'worktree' | undefined,
    options: { repository?: boolean; fallBack?: boolean } = {},
  ) {
    server = await FakeModelServer.start({
      scenario: {
        name: 'placer',
        turns: [
          { match: 'one', toolCalls: [write('a', 'notes.txt', 'turn one\n')] },
          { text: 'Done one.' },
          { match: 'two', toolCalls: [write('b', 'notes.txt', 'turn two\n')] },
          { text: 'Done two.' },
        ],
        whenExhausted: 'echo',
      },
    });
    const { store } = await openStore(tempDir());
    const rig = options.repository === false ? undefined : makeRig();
    const workspace = rig?.workspace ?? tempWorkspace();
    const here = forkSession(server, store, workspace);
    await here.run('one');
    await here.run('two');
    let ids = 0;
    const registry = new SessionRegistry(
      {
        compose: (place) => forkSession(server!, store, place.root!).session,
        workspace,
        exists: async () => true,
        newId: () => `session-${++ids}`,
      },
      { session: here.session, root: workspace },
    );
    const told: Array<{ level: string; text: string }> = [];
    const prompts: ForkPlacerPrompts = {
      where: async () => where,
      name: async (suggested) => suggested,
      progress: (_title, work) => work(),
      info: (text) => told.push({ level: 'info', text }),
      warning: (text) => told.push({ level: 'warning', text }),
      error: async (text) => {
        told.push({ level: 'error', text });
        return options.fallBack ?? false;
      },
    };
    const placeFork = createForkPlacer({
      registry,
      worktrees: () =>
        new GitWorktrees({ workspaceRoot: workspace, baseFolder: () => path.join(path.dirname(workspace), 'wt') }),
      files: (root) => new NodeForkFiles(root),
      workspaceRoot: () => workspace,
      prompts,
      focusChat: async () => undefined,
    });
    const webview = new FakeWebview();
    new ChatController(webview as never, here.session, { ...noActions, placeFork });
    webview.send({ type: 'webview_ready' });
    await waitUntil(() => webview.posts.some((post) => post.message.type === 'chat_status'), 'the handshake');
    const parentId = here.session.currentId!;
    const second = here.session.history.find((event) => event.type === 'user_message' && event.text === 'two')!;
    const notices = () =>
      webview.posts.flatMap((post) => (post.message.type === 'chat_notice' ? [post.message.text] : []));
    const forkAtSecond = () => webview.send({ type: 'message_fork', conversationId: parentId, seq: second.seq });
    return { rig, store, workspace, here: here.session, registry, told, parentId, notices, forkAtSecond };
  }

  it('in a new worktree: a new session in the list, shown, with the fork and the files as they were', async () => {
    const { store, workspace, here, registry, told, parentId, forkAtSecond } = await chat('worktree');
    forkAtSecond();
    await waitUntil(() => registry.list().length === 2 && told.length > 0, 'the new session');
    const [first, made] = registry.list();
    assert.equal(first!.shown, false);
    assert.equal(made!.shown, true, 'the new session is shown');
    assert.equal(made!.place.kind, 'worktree');
    if (made!.place.kind !== 'worktree') return;
    const session: ConversationSession = registry.get(made!.id)!.session;
    const fork = await store.getConversation(session.currentId!);
    assert.equal(fork?.forkedFrom?.conversationId, parentId);
    assert.equal(made!.name, `${(await store.getConversation(parentId))!.title} (fork)`);
    const texts = session.history.flatMap((event) => (event.type === 'user_message' ? [event.text] : []));
    assert.deepEqual(texts, ['one'], 'the fork holds the conversation up to the message');
    assert.equal(fs.readFileSync(path.join(made!.place.root, 'notes.txt'), 'utf8'), 'turn one\n');
    assert.equal(fs.readFileSync(path.join(workspace, 'notes.txt'), 'utf8'), 'turn two\n', 'the workspace stays');
    assert.equal(here.currentId, parentId, 'the window’s own session still shows the original');
    assert.match(told.at(-1)!.text, /starts from HEAD/);
    await store.close();
  });

  it('here: the chat forks as before, and no session is added', async () => {
    const { store, here, registry, parentId, notices, forkAtSecond } = await chat('here');
    forkAtSecond();
    await waitUntil(() => notices().some((text) => text.startsWith('This is a fork')), 'the fork opened');
    assert.notEqual(here.currentId, parentId);
    assert.equal(registry.list().length, 1);
    await store.close();
  });

  it('cancelled: nothing is made', async () => {
    const { store, registry, rig, here, parentId, forkAtSecond } = await chat(undefined);
    const before = (await store.listConversations()).length;
    forkAtSecond();
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal((await store.listConversations()).length, before);
    assert.equal(registry.list().length, 1);
    assert.equal(here.currentId, parentId);
    assert.deepEqual(await rig!.worktrees.list(), []);
    await store.close();
  });

  it('not a git repository: a clear error, nothing made; "Fork Here Instead" forks here', async () => {
    const refused = await chat('worktree', { repository: false });
    const before = (await refused.store.listConversations()).length;
    refused.forkAtSecond();
    await waitUntil(() => refused.told.length > 0, 'the error');
    assert.equal(refused.told[0]!.level, 'error');
    assert.match(refused.told[0]!.text, /nothing was forked: .* is not in a git repository/);
    assert.equal((await refused.store.listConversations()).length, before, 'no fork was made');
    assert.equal(refused.registry.list().length, 1);
    await refused.store.close();
    await server?.close();

    const fallBack = await chat('worktree', { repository: false, fallBack: true });
    fallBack.forkAtSecond();
    await waitUntil(() => fallBack.notices().some((text) => text.startsWith('This is a fork')), 'forked here');
    assert.equal(fallBack.registry.list().length, 1);
    await fallBack.store.close();
  });
});
