/**
 * The chat controller with a real session on the fake model server and a fake webview: the
 * chat that comes back is shown when the webview says it is ready, prompts sent mid-run are
 * queued and shown, an edit that lost the race is handed back, and hostile queue messages from
 * the webview are dropped.
 */
import assert from 'node:assert/strict';
import type * as vscode from 'vscode';
import { ChatController } from '../../../src/host/chat/chat-controller';
import { ChatKeeper } from '../../../src/core/session/chat-keeper';
import type { HostToWebview } from '../../../src/protocol/messages';
import { FakeWebview, noActions } from '../../fixtures/fake-chat-host';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { waitUntil } from '../../harness/patience';
import { openStore, tempDir } from '../store/store-helpers';
import { sessionOn } from '../core/session/session-harness';
import { MemoryKeeping } from '../core/session/memory-keeping';

type QueueStateMessage = Extract<HostToWebview, { type: 'queue_state' }>;

describe('the chat controller: queued messages and the chat that comes back', function () {
  this.timeout(60_000);
  let server: FakeModelServer;
  const disposers: Array<() => Promise<void> | void> = [];

  beforeEach(async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'chat-queue',
        turns: [{ match: 'slow', text: 'Slowly, one letter after another, to the end.', chunkSize: 1, delayMs: 50 }],
        whenExhausted: 'echo',
      },
    });
  });
  afterEach(async () => {
    for (const dispose of disposers.splice(0).reverse()) await dispose();
    await server.close();
  });

  /** A window: session, store, keeper, controller and its webview. */
  async function openWindow(directory: string, keeping: MemoryKeeping) {
    const { store } = await openStore(directory);
    const harness = sessionOn(server, { store: async () => store, clock: { now: () => Date.now() } });
    const keeper = new ChatKeeper({ session: harness.session, keeping, workspace: '/project' });
    const webview = new FakeWebview();
    const controller = new ChatController(webview as unknown as vscode.Webview, harness.session, noActions, keeper);
    disposers.push(
      () => store.close(),
      () => harness.session.dispose(),
      () => controller.dispose(),
    );
    const posted = <T extends HostToWebview['type']>(type: T) =>
      webview.posts.map((post) => post.message).filter((message) => message.type === type) as Array<
        Extract<HostToWebview, { type: T }>
      >;
    const lastQueue = () => posted('queue_state').at(-1) as QueueStateMessage | undefined;
    return { ...harness, keeper, webview, controller, posted, lastQueue };
  }

  /** A window whose webview sent a slow prompt, then `text` while it streams; the queued message's id. */
  async function queuedWhileRunning(text: string) {
    const window = await openWindow(tempDir(), new MemoryKeeping());
    window.webview.send({ type: 'webview_ready' });
    await waitUntil(() => window.posted('chat_status').length > 0, 'the webview to be ready');
    window.webview.send({ type: 'prompt_submit', requestId: 'r1', text: 'slow one' });
    await waitUntil(() => window.events.some((event) => event.type === 'text_delta'), 'the answer to stream');
    window.webview.send({ type: 'prompt_submit', requestId: 'r2', text });
    await waitUntil(() => window.lastQueue()?.items.length === 1, 'the queue');
    return { window, id: window.lastQueue()!.items[0]!.id };
  }

  it('shows the window’s last chat when the webview is ready: the conversation, the held queue and the draft', async () => {
    const directory = tempDir();
    const keeping = new MemoryKeeping();
    const before = await openWindow(directory, keeping);
    before.webview.send({ type: 'webview_ready' });
    await waitUntil(() => before.posted('chat_status').length > 0, 'the first webview to be ready');
    before.webview.send({ type: 'prompt_submit', requestId: 'r1', text: 'a slow question' });
    await waitUntil(() => before.events.some((event) => event.type === 'text_delta'), 'the answer to stream');
    before.webview.send({ type: 'prompt_submit', requestId: 'r2', text: 'queued while it answers' });
    await waitUntil(() => before.lastQueue()?.items.length === 1, 'the queue to be shown');
    assert.equal(before.lastQueue()?.items[0]?.text, 'queued while it answers');
    before.webview.send({ type: 'draft_change', text: 'half-typed' });
    await before.session.flush();
    await waitUntil(() => keeping.text?.includes('half-typed') === true, 'the draft to be kept');

    // Reload: a new window on the same store and keeping place.
    const after = await openWindow(directory, keeping);
    assert.equal(after.webview.posts.length, 0);
    after.webview.send({ type: 'webview_ready' });
    await waitUntil(() => after.posted('draft_restore').length > 0, 'the draft to come back');
    const types = after.webview.posts.map((post) => post.message.type);
    assert.deepEqual(types, ['chat_reset', 'agent_events', 'chat_status', 'queue_state', 'draft_restore']);
    const replayed = after.posted('agent_events')[0]!.events;
    assert.deepEqual(
      replayed
        .filter((event) => event.type === 'user_message')
        .map((event) => event.type === 'user_message' && event.text),
      ['a slow question'],
    );
    assert.deepEqual(after.lastQueue()?.held, { kind: 'reloaded' });
    assert.equal(after.posted('draft_restore')[0]?.text, 'half-typed');

    // Resume from the chat: the queued message goes out as the next prompt of the same conversation.
    after.webview.send({ type: 'queue_resume' });
    await waitUntil(
      () => after.events.some((event) => event.type === 'user_message' && event.text === 'queued while it answers'),
      'the resumed message to be sent',
    );
    assert.equal(after.session.currentId, before.session.currentId);
    await before.waitDone(1);
  });

  it('hands an edit back to the composer when its message was sent first, and drops hostile queue messages', async () => {
    const { window, id } = await queuedWhileRunning('queued');

    // Hostile or malformed: dropped, the queue is as it was.
    for (const hostile of [
      { type: 'queue_edit', id, text: 'x'.repeat(200_001) },
      { type: 'queue_edit', id, text: '   ' },
      { type: 'queue_edit', id, text: 'ok', __proto__: { polluted: true } },
      JSON.parse(`{"type":"queue_remove","id":"${id}","__proto__":{"polluted":true}}`),
      { type: 'queue_remove', id: 42 },
      { type: 'queue_remove', id: 'q'.repeat(65) },
      { type: 'queue_send_now' },
      { type: 'draft_change', text: 'y'.repeat(200_001) },
      { type: 'prompt_submit', requestId: 'r3', text: 'now', sendNow: false },
    ])
      window.webview.send(hostile);
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.deepEqual(
      window.session.queue.state.items.map((item) => item.text),
      ['queued'],
    );
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);

    await window.waitDone(2);
    // The message went out; an edit arriving now is handed back with a word.
    window.webview.send({ type: 'queue_edit', id, text: 'my careful rewording' });
    await waitUntil(() => window.posted('composer_insert').length > 0, 'the edit handed back');
    assert.equal(window.posted('composer_insert')[0]?.text, 'my careful rewording');
    assert.match(window.posted('chat_notice').at(-1)?.text ?? '', /sent before your edit arrived/);
  });

  it('lets the queue go on when the webview that was editing a message reloads', async () => {
    const { window, id } = await queuedWhileRunning('being edited');
    window.webview.send({ type: 'queue_editing', id });
    await waitUntil(() => window.lastQueue()?.editing === id, 'the edit to be marked');
    await window.waitDone(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(server.modelCalls.length, 1, 'not sent half-edited');
    // The webview reloads (the edit it had open is gone): the message goes as it was.
    window.webview.send({ type: 'webview_ready' });
    await window.waitDone(2);
    assert.equal(server.modelCalls.length, 2);
  });
});
