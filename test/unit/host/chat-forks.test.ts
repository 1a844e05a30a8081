/**
 * The chat's "Fork from here" and "Edit and resend" (SPEC 5b) from the webview's message to the
 * real session: the fake model answers, the store is the real one on disk. The webview names a
 * message by its event's seq, which is not the seq the store keeps it under; the host maps it. A
 * message it does not show, or another conversation's, is refused and changes nothing.
 */
import assert from 'node:assert/strict';
import { ChatController } from '../../../src/host/chat/chat-controller';
import type { AgentEvent } from '../../../src/core/events/events';
import type { ConversationSession } from '../../../src/core/session/conversation-session';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { FakeWebview, noActions } from '../../fixtures/fake-chat-host';
import { waitUntil } from '../../harness/patience';
import { openStore, tempDir } from '../store/store-helpers';
import { forkSession, tempWorkspace } from '../core/session/fork-harness';

function promptEvent(session: ConversationSession, text: string): AgentEvent {
  const event = session.history.find((item) => item.type === 'user_message' && item.text === text);
  assert.ok(event, `the chat shows "${text}"`);
  return event;
}

/** The prompts and answers the chat shows (an answer's streamed pieces joined). */
function shown(session: ConversationSession): string[] {
  const texts: string[] = [];
  let previous: AgentEvent['type'] | undefined;
  for (const event of session.history) {
    if (event.type === 'text_delta' && previous === 'text_delta') texts[texts.length - 1] += event.text;
    else if (event.type === 'user_message' || event.type === 'text_delta') texts.push(event.text);
    previous = event.type;
  }
  return texts;
}

describe('chat controller: fork and edit a message', function () {
  this.timeout(60_000);
  let server: FakeModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  async function chatOnTwoExchanges() {
    server = await FakeModelServer.start({
      scenario: {
        name: 'chat-forks',
        turns: [
          { match: 'prompt one', text: 'Answer one.' },
          { match: 'prompt two', text: 'Answer two.' },
        ],
        whenExhausted: 'echo',
      },
    });
    const { store } = await openStore(tempDir());
    const harness = forkSession(server, store, tempWorkspace());
    await harness.run('prompt one');
    await harness.run('prompt two');
    const webview = new FakeWebview();
    const notified: string[] = [];
    const controller = new ChatController(webview as never, harness.session, {
      ...noActions,
      notify: (text) => notified.push(text),
    });
    webview.send({ type: 'webview_ready' });
    await waitUntil(() => webview.posts.some((post) => post.message.type === 'chat_status'), 'the handshake');
    const notices = () =>
      webview.posts.flatMap((post) => (post.message.type === 'chat_notice' ? [post.message.text] : []));
    return { ...harness, store, webview, controller, notified, notices };
  }

  it('a fork from the second prompt opens a conversation with the first exchange only; the original stays', async () => {
    const { session, store, webview, controller, notices } = await chatOnTwoExchanges();
    const parentId = session.currentId!;
    const before = await store.listMessages(parentId);
    const second = promptEvent(session, 'prompt two');
    webview.send({ type: 'message_fork', conversationId: parentId, seq: second.seq });
    await waitUntil(() => notices().some((text) => text.startsWith('This is a fork')), 'the fork opened');
    assert.notEqual(session.currentId, parentId);
    assert.deepEqual(shown(session), ['prompt one', 'Answer one.']);
    assert.deepEqual(await store.listMessages(parentId), before, 'the original is not changed');
    // The chat caught up with the fork: it was reset and shown the fork's events.
    assert.ok(webview.posts.some((post) => post.message.type === 'chat_reset'));
    // Fork from the answer of the fork's only exchange: that whole exchange.
    const answer = session.history.find((event) => event.type === 'text_delta')!;
    const forkId = session.currentId!;
    webview.send({ type: 'message_fork', conversationId: forkId, seq: answer.seq });
    await waitUntil(() => session.currentId !== forkId, 'the fork of the fork opened');
    assert.deepEqual(shown(session), ['prompt one', 'Answer one.']);
    const tree = await session.forks.tree();
    assert.equal(tree?.conversation.id, parentId);
    assert.deepEqual(
      tree?.forks[0]?.forks.map((fork) => fork.conversation.id),
      [session.currentId],
    );
    controller.dispose();
    await store.close();
  });

  it('an edit resends the new text and keeps the old part as a fork', async () => {
    const { session, store, webview, controller, notified } = await chatOnTwoExchanges();
    const parentId = session.currentId!;
    const second = promptEvent(session, 'prompt two');
    webview.send({ type: 'message_edit', conversationId: parentId, seq: second.seq, text: 'prompt two, edited' });
    await waitUntil(() => notified.length > 0, 'the outcome');
    assert.match(notified[0]!, /^Sent again\. The conversation as it was is kept as a fork/);
    await waitUntil(() => session.history.at(-1)?.type === 'done' && !session.isBusy, 'the run');
    assert.equal(session.currentId, parentId, 'the same conversation goes on');
    assert.deepEqual(shown(session), [
      'prompt one',
      'Answer one.',
      'prompt two, edited',
      'You said: prompt two, edited',
    ]);
    const sent = JSON.stringify(server!.modelCalls.at(-1)?.body);
    assert.match(sent, /prompt two, edited/);
    assert.doesNotMatch(sent, /Answer two/);
    // The old part is kept, whole, in a fork.
    const kept = (await store.listConversations()).find((conversation) => conversation.forkedFrom?.reason === 'rewind');
    assert.ok(kept, 'a fork keeps the old part');
    const keptText = JSON.stringify(await store.listMessages(kept.id));
    assert.match(keptText, /"prompt two"/);
    assert.match(keptText, /Answer two\./);
    controller.dispose();
    await store.close();
  });

  it('refuses a message it does not show, or another conversation, and changes nothing', async () => {
    const { session, store, webview, controller, notices, notified } = await chatOnTwoExchanges();
    const parentId = session.currentId!;
    const before = await store.listMessages(parentId);
    const conversations = (await store.listConversations()).length;
    const second = promptEvent(session, 'prompt two');
    const answer = session.history.find((event) => event.type === 'text_delta')!;
    const forged = [
      { type: 'message_fork', conversationId: 'someone-else', seq: second.seq },
      { type: 'message_edit', conversationId: 'someone-else', seq: second.seq, text: 'x' },
      { type: 'message_fork', conversationId: parentId, seq: 999_999 },
      { type: 'message_edit', conversationId: parentId, seq: 999_999, text: 'x' },
      // An answer cannot be edited.
      { type: 'message_edit', conversationId: parentId, seq: answer.seq, text: 'x' },
    ];
    for (const message of forged) webview.send(message);
    await waitUntil(() => notices().length >= forged.length, 'a refusal each');
    assert.deepEqual(
      notices(),
      forged.map(() => 'That message is not part of the conversation the chat shows now: nothing was changed.'),
    );
    // Malformed ones never reach the session (no notice either).
    for (const raw of [
      { type: 'message_fork', conversationId: parentId, seq: -1 },
      { type: 'message_fork', conversationId: parentId, seq: 1.5 },
      { type: 'message_edit', conversationId: parentId, seq: second.seq, text: '   ' },
      { type: 'message_edit', conversationId: parentId, seq: second.seq, text: 'x', open: true },
    ])
      webview.send(raw);
    // The first prompt has nothing before it to fork.
    webview.send({ type: 'message_fork', conversationId: parentId, seq: promptEvent(session, 'prompt one').seq });
    await waitUntil(() => notices().length > forged.length, 'the first prompt refused');
    assert.match(notices().at(-1)!, /nothing before the first prompt/);
    assert.equal(notices().length, forged.length + 1);
    assert.equal(session.currentId, parentId);
    assert.deepEqual(await store.listMessages(parentId), before);
    assert.equal((await store.listConversations()).length, conversations);
    assert.deepEqual(notified, []);
    controller.dispose();
    await store.close();
  });
});
