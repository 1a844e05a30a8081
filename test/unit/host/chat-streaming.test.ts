import assert from 'node:assert/strict';
import type { AgentEvent } from '../../../src/core/events/events';
import { coalesceTextDeltas } from '../../../src/host/chat/event-batcher';
import { fakeChatHost } from '../../fixtures/fake-chat-host';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function eventsOf(posts: ReturnType<typeof fakeChatHost>['webview']['posts']): AgentEvent[] {
  return posts.flatMap((post) => (post.message.type === 'agent_events' ? post.message.events : []));
}

describe('chat streaming cost (host → webview)', () => {
  it('posts a fast stream of 2,000 deltas at most once per frame, in bytes close to the text itself', async () => {
    const { webview, session, controller } = fakeChatHost();
    webview.send({ type: 'webview_ready' });
    await sleep(0);
    session.emit({ type: 'user_message', text: 'write a long answer' });
    await sleep(30);
    const before = webview.posts.length;

    const deltas = Array.from({ length: 2_000 }, (_, index) => `tok${index} `);
    const started = performance.now();
    for (let index = 0; index < deltas.length; index++) {
      session.emit({ type: 'text_delta', text: deltas[index]! });
      // 20 deltas per millisecond or so: many per frame.
      if (index % 20 === 19) await sleep(1);
    }
    session.emit({ type: 'done', stopReason: 'end_turn', turns: 1 });
    await sleep(40);
    const posts = webview.posts.slice(before);
    const elapsed = posts.at(-1)!.at - started;
    const frames = elapsed / 16;
    assert.ok(posts.length >= 2, 'the answer streams in several posts, not one at the end');
    assert.ok(posts.length <= Math.floor(frames) + 3, `${posts.length} posts in ${elapsed.toFixed(0)} ms`);

    const text = deltas.join('');
    const streamed = eventsOf(posts);
    assert.equal(
      streamed
        .filter((event) => event.type === 'text_delta')
        .map((event) => event.text)
        .join(''),
      text,
      'every delta arrives, in order',
    );
    // One event envelope per post instead of one per delta: bytes stay linear in the text.
    const bytes = posts.reduce((sum, post) => sum + post.bytes, 0);
    const overheadPerPost = 400;
    assert.ok(
      bytes <= Buffer.byteLength(text) + posts.length * overheadPerPost,
      `${bytes} bytes for ${Buffer.byteLength(text)} bytes of text in ${posts.length} posts`,
    );
    for (const post of posts) {
      const postText = (post.message.type === 'agent_events' ? post.message.events : [])
        .map((event) => (event.type === 'text_delta' ? event.text : ''))
        .join('');
      assert.ok(post.bytes <= Buffer.byteLength(postText) + overheadPerPost, 'each post carries only what is new');
    }
    // Nothing from before the stream is posted again while it streams.
    assert.ok(streamed.every((event) => event.type !== 'user_message'));
    controller.dispose();
  });

  it('sends the whole conversation only when a webview (re)loads, and nothing of it after a reset', async () => {
    const { webview, session, controller } = fakeChatHost();
    // Events before the webview is ready are not posted (it catches up on ready).
    session.emit({ type: 'user_message', text: 'hello' });
    for (const word of ['Hello', ' there', '!']) session.emit({ type: 'text_delta', text: word });
    session.emit({ type: 'done', stopReason: 'end_turn', turns: 1 });
    await sleep(30);
    assert.equal(webview.posts.length, 0);

    webview.send({ type: 'webview_ready' });
    await sleep(0);
    assert.deepEqual(
      webview.posts.map((post) => post.message.type),
      ['chat_reset', 'agent_events', 'chat_status'],
      'the conversation once, then what the composer shows (model, preset)',
    );
    const replay = eventsOf(webview.posts);
    assert.deepEqual(
      replay.map((event) => event.type),
      ['user_message', 'text_delta', 'done'],
      'the replayed deltas are merged into one',
    );
    assert.equal(replay[1]?.type === 'text_delta' && replay[1].text, 'Hello there!');

    const afterReplay = webview.posts.length;
    // Traces are the developer panel's: the chat never receives them.
    session.emit({ type: 'llm_request', requestId: 'r1', provider: 'anthropic', model: 'm', payload: { big: 'x' } });
    session.emit({ type: 'user_message', text: 'more' });
    session.emit({ type: 'text_delta', text: 'Sure.' });
    await sleep(30);
    assert.deepEqual(
      eventsOf(webview.posts.slice(afterReplay)).map((event) => event.seq),
      [6, 7],
      'only the new events are posted, traces left out',
    );

    const afterStream = webview.posts.length;
    session.reset();
    assert.deepEqual(
      webview.posts.slice(afterStream).map((post) => post.message),
      [{ type: 'chat_reset' }],
    );
    controller.dispose();
  });

  it('merges runs of text deltas per agent and keeps every other event as it is', () => {
    const base = { conversationId: 'c', time: 0 };
    const events: AgentEvent[] = [
      { ...base, agentId: 'lead', seq: 0, type: 'text_delta', text: 'a' },
      { ...base, agentId: 'lead', seq: 1, type: 'text_delta', text: 'b' },
      { ...base, agentId: 'sub-1', seq: 2, type: 'text_delta', text: 'x' },
      { ...base, agentId: 'lead', seq: 3, type: 'text_delta', text: 'c' },
      {
        ...base,
        agentId: 'lead',
        seq: 4,
        type: 'tool_result',
        toolCallId: 't',
        toolName: 'read_file',
        output: 'o',
        isError: false,
        durationMs: 1,
      },
      { ...base, agentId: 'lead', seq: 5, type: 'text_delta', text: 'd' },
      { ...base, agentId: 'lead', seq: 6, type: 'text_delta', text: 'e' },
    ];
    assert.deepEqual(coalesceTextDeltas(events), [
      { ...base, agentId: 'lead', seq: 1, type: 'text_delta', text: 'ab' },
      events[2],
      events[3],
      events[4],
      { ...base, agentId: 'lead', seq: 6, type: 'text_delta', text: 'de' },
    ]);
    assert.deepEqual(coalesceTextDeltas([]), []);
  });
});
