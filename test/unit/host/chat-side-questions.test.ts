/**
 * The chat controller and `/btw`: a side question from the composer is answered through the
 * session's side questions and shown as side_answer updates — never as conversation events —
 * a bare one is refused with what to type, and a malformed or oversized message is dropped.
 */
import assert from 'node:assert/strict';
import { fakeChatHost } from '../../fixtures/fake-chat-host';
import { waitUntil } from '../../harness/patience';

async function readyHost() {
  const host = fakeChatHost();
  host.webview.send({ type: 'webview_ready' });
  await waitUntil(() => host.webview.posts.some((post) => post.message.type === 'chat_status'), 'the handshake');
  const sideAnswers = () =>
    host.webview.posts.flatMap((post) => (post.message.type === 'side_answer' ? [post.message] : []));
  return { ...host, sideAnswers };
}

describe('chat controller: side questions (/btw)', () => {
  it('answers in side_answer updates, apart from the conversation', async () => {
    const { webview, session, sideAnswers } = await readyHost();
    const postsBefore = webview.posts.length;
    webview.send({ type: 'side_question_ask', text: ' why sql.js?' });
    await waitUntil(() => sideAnswers().some((answer) => answer.status === 'answered'), 'the answer');
    const final = sideAnswers().at(-1)!;
    assert.equal(final.question, 'why sql.js?');
    assert.equal(final.text, 'A side answer.');
    assert.deepEqual(final.usage, { inputTokens: 10, outputTokens: 3, costUsd: 0, model: 'fake-model' });
    assert.ok(sideAnswers().some((answer) => answer.status === 'answering'));
    const others = webview.posts.slice(postsBefore).filter((post) => post.message.type !== 'side_answer');
    assert.deepEqual(others, [], 'nothing else was posted: no conversation events');
    assert.equal(session.history.length, 0);
  });

  it('refuses a bare /btw and one with no conversation yet, saying why', async () => {
    const { webview, session, sideAnswers } = await readyHost();
    webview.send({ type: 'side_question_ask', text: '' });
    await waitUntil(() => sideAnswers().length > 0, 'the refusal');
    assert.equal(sideAnswers()[0]!.status, 'refused');
    assert.match(sideAnswers()[0]!.note ?? '', /Nothing to ask/);
    session.sideContext = undefined;
    webview.send({ type: 'side_question_ask', text: 'anything?' });
    await waitUntil(
      () => sideAnswers().some((answer) => /no conversation yet/.test(answer.note ?? '')),
      'no conversation',
    );
  });

  it('drops a malformed or oversized side question before it reaches the session', async () => {
    const { webview, sideAnswers } = await readyHost();
    webview.send({ type: 'side_question_ask', text: 'x'.repeat(200_001) });
    webview.send({ type: 'side_question_ask', text: 'hi', extra: true });
    webview.send({ type: 'side_question_ask', text: 42 });
    webview.send({ type: 'side_question_stop', id: '' });
    // A well-formed one after them is answered, and only it.
    webview.send({ type: 'side_question_ask', text: 'the real one' });
    await waitUntil(() => sideAnswers().some((answer) => answer.status === 'answered'), 'the real answer');
    assert.deepEqual([...new Set(sideAnswers().map((answer) => answer.question))], ['the real one']);
  });
});
