/**
 * The chat page is set before the code behind it loads (issue 23): what the page says
 * meanwhile — its webview_ready first — reaches the chat's controller once it listens, in order,
 * and nothing is lost or delivered twice.
 */
import assert from 'node:assert/strict';
import type { ConversationSession } from '../../../src/core/session/conversation-session';
import { ChatController } from '../../../src/host/chat/chat-controller';
import { holdMessages } from '../../../src/host/chat/held-webview';
import { FakeSession, FakeWebview, noActions } from '../../fixtures/fake-chat-host';
import { waitUntil } from '../../harness/patience';

describe('the chat page before its controller', () => {
  it('hands the controller the ready the page said while the runtime loaded: the chat shows', async () => {
    const page = new FakeWebview();
    const held = holdMessages(page);
    // The page loaded faster than the runtime: it said it is ready before anything listened.
    page.send({ type: 'webview_ready' });
    const session = new FakeSession();
    session.emit({ type: 'user_message', text: 'asked before the reload' });
    const controller = new ChatController(held, session as unknown as ConversationSession, noActions);
    let readyEvents = 0;
    controller.onDidBecomeReady(() => readyEvents++);
    held.release();
    await waitUntil(() => controller.isReady, 'the controller to take the held ready');
    await waitUntil(
      () => page.posts.some((post) => post.message.type === 'agent_events'),
      'the conversation so far to be posted',
    );
    assert.equal(readyEvents, 1);
    controller.dispose();
    held.dispose();
  });

  it('delivers held messages in order, before those sent after, each once', async () => {
    const page = new FakeWebview();
    const held = holdMessages(page);
    page.send('first');
    page.send('second');
    const received: unknown[] = [];
    held.onDidReceiveMessage((message) => received.push(message));
    held.release();
    // Sent after release but before the held ones went out: it still comes after them.
    page.send('third');
    await waitUntil(() => received.length >= 3 || undefined, 'three messages');
    page.send('fourth');
    assert.deepEqual(received, ['first', 'second', 'third', 'fourth']);
    held.dispose();
    page.send('after dispose');
    assert.equal(received.length, 4);
  });

  it('holds a bounded number of messages from a page that floods before anything listens', async () => {
    const page = new FakeWebview();
    const held = holdMessages(page);
    for (let index = 0; index < 10_000; index++) page.send({ type: 'noise', index });
    const received: unknown[] = [];
    held.onDidReceiveMessage((message) => received.push(message));
    held.release();
    await waitUntil(() => received.length > 0 || undefined, 'the held messages');
    assert.ok(received.length <= 100, `${received.length} held`);
    assert.deepEqual(received[0], { type: 'noise', index: 0 });
    held.dispose();
  });
});
