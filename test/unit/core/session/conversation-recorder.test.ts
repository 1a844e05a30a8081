import assert from 'node:assert/strict';
import { ConversationRecorder } from '../../../../src/core/session/conversation-recorder';
import { restoreConversation } from '../../../../src/core/session/restore';
import { CLOSED_MID_RUN } from '../../../../src/core/session/run-ends';
import { nextToolOutcome, type ToolOutcome } from '../../../../src/core/events/tool-outcome';
import type { AgentEvent } from '../../../../src/core/events/events';
import { openStore, tempDir } from '../../store/store-helpers';
import { readCall, startHarness } from '../agent/loop-harness';

/** A recorder writing `harness`'s conversation into `store` (a store error fails the test). */
function recordInto(
  store: ConstructorParameters<typeof ConversationRecorder>[0]['store'],
  harness: Awaited<ReturnType<typeof startHarness>>,
  flushIntervalMs?: number,
): ConversationRecorder {
  const recorder = new ConversationRecorder({
    store,
    conversationId: 'conv-test',
    now: Date.now,
    settings: {},
    onError: (error) => assert.fail(String(error)),
    ...(flushIntervalMs ? { flushIntervalMs } : {}),
  });
  harness.conversation.subscribe((event) => recorder.record(event));
  return recorder;
}

/** Each lead tool call's outcome, worked out from events as the chat does it. */
function outcomes(events: readonly AgentEvent[]): Record<string, ToolOutcome> {
  const byCall: Record<string, ToolOutcome> = {};
  for (const event of events) {
    if (event.agentId !== 'lead') continue;
    if (event.type === 'tool_call') byCall[event.toolCallId] = { state: 'running' };
    else if (
      (event.type === 'tool_approval_request' ||
        event.type === 'tool_approval_result' ||
        event.type === 'tool_result') &&
      byCall[event.toolCallId]
    )
      byCall[event.toolCallId] = nextToolOutcome(byCall[event.toolCallId]!, event);
  }
  return byCall;
}

describe('ConversationRecorder', () => {
  it('records the conversation, its messages, events, usage and audit trail in the store', async () => {
    const { store } = await openStore(tempDir());
    const errors: unknown[] = [];
    const harness = await startHarness('anthropic', {
      name: 'recorded',
      turns: [
        { text: 'Reading.', toolCalls: [readCall], usage: { input: 1_000, output: 100 } },
        { text: 'It exports answer.', usage: { input: 1_200, output: 20 } },
      ],
    });
    try {
      const recorder = new ConversationRecorder({
        store,
        conversationId: 'conv-test',
        now: Date.now,
        settings: { model: 'claude-sonnet-4-5' },
        onError: (error) => errors.push(error),
      });
      harness.conversation.subscribe((event) => recorder.record(event));
      await harness.conversation.submit('What does   src/app.ts export?');
      await recorder.flush();
      assert.deepEqual(errors, []);

      const [conversation] = await store.listConversations();
      assert.equal(conversation?.title, 'What does src/app.ts export?');
      const messages = await store.listMessages('conv-test');
      assert.deepEqual(
        messages.map((message) =>
          message.role === 'event' ? (message.content as { type: string }).type : message.role,
        ),
        // A usage event per model call and one for the whole run: a reopened conversation shows its cost.
        ['user', 'assistant', 'tool_call', 'usage', 'tool_result', 'assistant', 'usage', 'usage', 'done'],
      );
      assert.deepEqual(messages[1]?.content, { text: 'Reading.' });
      assert.deepEqual(messages[5]?.content, { text: 'It exports answer.' });
      const totals = await store.usageTotals({ conversationId: 'conv-test' });
      assert.equal(totals.calls, 2);
      assert.equal(totals.inputTokens, 2_200);
      assert.ok(Math.abs(totals.costUsd - (2_200 * 3 + 120 * 15) / 1e6) < 1e-9);
      const toolAudit = await store.listAudit({ kind: 'tool_call' });
      assert.deepEqual(toolAudit[0]?.data.input, { path: 'src/app.ts' });
      assert.equal((await store.listAudit({ kind: 'model_call' })).length, 2);
    } finally {
      await harness.close();
      await store.close();
    }
  });

  it('saves streaming text while it streams, so a crash loses at most the last interval', async () => {
    const { store } = await openStore(tempDir());
    const errors: unknown[] = [];
    const harness = await startHarness('openai', {
      name: 'slow',
      turns: [{ text: 'word '.repeat(30), chunkSize: 5, delayMs: 40 }],
    });
    try {
      const recorder = new ConversationRecorder({
        store,
        conversationId: 'conv-test',
        now: Date.now,
        settings: {},
        onError: (error) => errors.push(error),
        flushIntervalMs: 200,
      });
      harness.conversation.subscribe((event) => recorder.record(event));
      // What reached the store while the answer streamed (not after a fixed wait: the machine may be slow).
      const written: string[] = [];
      const putMessage = store.putMessage.bind(store);
      store.putMessage = async (message) => {
        if (message.role === 'assistant' && !harness.events.some((event) => event.type === 'done'))
          written.push((message.content as { text: string }).text);
        return putMessage(message);
      };
      await harness.conversation.submit('talk');
      const partial = written.filter((text) => text.length > 0 && text.length < 150);
      assert.ok(partial.length > 0, `partial text saved mid-stream (${written.map((text) => text.length)} chars)`);
      await recorder.flush();
      const final = (await store.listMessages('conv-test')).find((message) => message.role === 'assistant');
      assert.equal((final?.content as { text: string }).text, 'word '.repeat(30));
    } finally {
      await harness.close();
      await store.close();
    }
  });

  it('keeps who decided each call, so a reopened conversation shows the same outcomes as the live one', async () => {
    const { store } = await openStore(tempDir());
    const harness = await startHarness(
      'anthropic',
      {
        name: 'decisions',
        turns: [
          {
            toolCalls: [
              { id: 'w_ok', name: 'write_file', arguments: { path: 'a.md', content: 'a' } },
              { id: 'w_no', name: 'write_file', arguments: { path: 'b.md', content: 'b' } },
              { id: 'r_missing', name: 'read_file', arguments: { path: 'missing.txt' } },
            ],
          },
          { text: 'Done.' },
        ],
      },
      {
        approvals: {
          request: async (request) =>
            request.toolCallId === 'w_ok'
              ? { approved: true, source: 'user' }
              : // Not the user's no: without the decision kept, the refusal's words would say it was.
                { approved: false, source: 'timeout', reason: 'No answer within 5 minutes.' },
        },
      },
    );
    try {
      const recorder = recordInto(store, harness);
      await harness.conversation.submit('write both');
      await recorder.flush();
      const live = outcomes(harness.events);
      assert.deepEqual(live, {
        w_ok: { state: 'ran', summary: 'Wrote 1 characters to a.md.' },
        w_no: { state: 'denied', by: 'timeout', reason: 'No answer within 5 minutes.' },
        r_missing: { state: 'failed', reason: 'No such file: missing.txt' },
      });
      const reopened = restoreConversation('conv-test', await store.listMessages('conv-test'));
      assert.deepEqual(outcomes(reopened.events), live);
    } finally {
      await harness.close();
      await store.close();
    }
  });

  it('a window closed mid-answer leaves the saved part, which reopens marked as interrupted', async () => {
    const { store } = await openStore(tempDir());
    const harness = await startHarness('openai', {
      name: 'slow',
      turns: [{ text: 'word '.repeat(60), chunkSize: 5, delayMs: 40 }],
    });
    try {
      recordInto(store, harness, 200);
      const run = harness.conversation.submit('talk');
      let saved = '';
      while (!saved) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const partial = (await store.listMessages('conv-test')).find((message) => message.role === 'assistant');
        saved = (partial?.content as { text: string } | undefined)?.text ?? '';
      }
      // The window closes: what is in the store now is all a new window finds.
      const left = await store.listMessages('conv-test');
      harness.conversation.stop();
      await run;
      const { events } = restoreConversation('conv-test', left);
      assert.deepEqual(
        events.map((event) => event.type),
        ['user_message', 'text_delta', 'interrupted'],
      );
      const last = events.at(-1)!;
      assert.equal(last.type === 'interrupted' && last.reason, CLOSED_MID_RUN);
      assert.ok((events[1] as { text: string }).text.length < 'word '.repeat(60).length, 'the answer was cut');
    } finally {
      await harness.close();
      await store.close();
    }
  });
});
