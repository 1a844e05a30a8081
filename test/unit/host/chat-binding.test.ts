/**
 * The chat page says `webview_ready` once per load. A session shown while the first controller
 * was still catching up (reopening the window's last chat, which reads the store) must not leave
 * the page without a controller that answered it — the chat would stay blank and its composer
 * dead — nor let the old controller post its session's conversation over the new one's.
 */
import assert from 'node:assert/strict';
import type { ConversationSession } from '../../../src/core/session/conversation-session';
import type { ChatKeeper } from '../../../src/core/session/chat-keeper';
import { ChatBinding } from '../../../src/host/chat/chat-binding';
import type { ChatWebview } from '../../../src/host/chat/held-webview';
import type { HostToWebview } from '../../../src/protocol/messages';
import { FakeSession, FakeWebview, noActions } from '../../fixtures/fake-chat-host';

/** A keeper whose restore (the store read) finishes only when the test says so. */
function slowKeeper(): { keeper: ChatKeeper; finish: () => void } {
  let finish = () => {};
  const restored = new Promise<void>((resolve) => (finish = resolve));
  const keeper = { restore: () => restored, draft: undefined, setDraft: () => {} };
  return { keeper: keeper as unknown as ChatKeeper, finish };
}

const asSession = (session: FakeSession) => session as unknown as ConversationSession;
const settle = () => new Promise((resolve) => setImmediate(resolve));

/** The events the page was given, as the user text of each prompt event, after the last reset. */
function shownAfterLastReset(webview: FakeWebview): string[] {
  const messages = webview.posts.map((post) => post.message);
  const lastReset = messages.map((message) => message.type).lastIndexOf('chat_reset');
  return messages
    .slice(lastReset + 1)
    .flatMap((message: HostToWebview) => (message.type === 'agent_events' ? message.events : []))
    .map((event) => (event.type === 'user_message' ? event.text : event.type));
}

describe('the chat page and the shown session', () => {
  it('a session shown while the page is being caught up gets the page, and the old one posts nothing', async () => {
    const first = new FakeSession('first');
    first.emit({ type: 'user_message', text: 'the first session' } as never);
    const second = new FakeSession('second');
    second.emit({ type: 'user_message', text: 'the second session' } as never);
    const { keeper, finish } = slowKeeper();
    let readyCount = 0;
    const binding = new ChatBinding({ session: asSession(first), keeper }, noActions, () => readyCount++);
    const page = new FakeWebview();
    binding.bind(page as unknown as ChatWebview);

    page.send({ type: 'webview_ready' });
    await settle();
    // Still reading the store when the user starts a new session.
    binding.show({ session: asSession(second) });
    await settle();
    assert.deepEqual(shownAfterLastReset(page), ['the second session'], 'the page shows the new session at once');
    assert.equal(readyCount, 1);

    finish();
    await settle();
    assert.deepEqual(
      shownAfterLastReset(page),
      ['the second session'],
      "the first controller's late catch-up did not post its conversation over it",
    );
    assert.equal(readyCount, 1);
  });

  it('a page that has not said ready yet is caught up by the shown session when it does', async () => {
    const first = new FakeSession('first');
    const second = new FakeSession('second');
    second.emit({ type: 'user_message', text: 'the second session' } as never);
    const binding = new ChatBinding({ session: asSession(first) }, noActions, () => {});
    const page = new FakeWebview();
    binding.bind(page as unknown as ChatWebview);
    binding.show({ session: asSession(second) });
    await settle();
    assert.equal(page.posts.length, 0, 'nothing is posted before the page is ready');
    page.send({ type: 'webview_ready' });
    await settle();
    assert.deepEqual(shownAfterLastReset(page), ['the second session']);
  });

  it('a prompt typed after the switch goes to the shown session', async () => {
    const first = new FakeSession('first');
    const second = new FakeSession('second');
    const asked: string[] = [];
    first.submitWithMentions = async () => (asked.push('first'), undefined);
    second.submitWithMentions = async () => (asked.push('second'), undefined);
    const { keeper, finish } = slowKeeper();
    const binding = new ChatBinding({ session: asSession(first), keeper }, noActions, () => {});
    const page = new FakeWebview();
    binding.bind(page as unknown as ChatWebview);
    page.send({ type: 'webview_ready' });
    await settle();
    binding.show({ session: asSession(second) });
    page.send({ type: 'prompt_submit', requestId: 'r1', text: 'hello' });
    finish();
    await settle();
    assert.deepEqual(asked, ['second']);
    const results = page.posts.filter((post) => post.message.type === 'prompt_result');
    assert.equal(results.length, 1, 'the composer hears back about its prompt');
  });

  it('session after session: each one shown gets the page, however many switches came before', async () => {
    const sessions = ['first', 'second', 'third', 'fourth'].map((name) => {
      const session = new FakeSession(name);
      session.emit({ type: 'user_message', text: `the ${name} session` } as never);
      return session;
    });
    const binding = new ChatBinding({ session: asSession(sessions[0]!) }, noActions, () => {});
    const page = new FakeWebview();
    binding.bind(page as unknown as ChatWebview);
    page.send({ type: 'webview_ready' });
    await settle();
    for (const session of sessions.slice(1)) {
      binding.show({ session: asSession(session) });
      await settle();
      assert.deepEqual(shownAfterLastReset(page), [`the ${session.conversationId} session`]);
    }
    // And back to the first.
    binding.show({ session: asSession(sessions[0]!) });
    await settle();
    assert.deepEqual(shownAfterLastReset(page), ['the first session']);
  });
});
