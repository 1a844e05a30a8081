import assert from 'node:assert/strict';
import { ConversationRecorder } from '../../../../src/core/session/conversation-recorder';
import { openStore, tempDir } from '../../store/store-helpers';
import { readCall, startHarness } from '../agent/loop-harness';

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
      const run = harness.conversation.submit('talk');
      await new Promise((resolve) => setTimeout(resolve, 700));
      const partial = (await store.listMessages('conv-test')).find((message) => message.role === 'assistant');
      const saved = (partial?.content as { text: string } | undefined)?.text ?? '';
      assert.ok(saved.length > 0 && saved.length < 150, `partial text saved mid-stream (${saved.length} chars)`);
      await run;
      await recorder.flush();
      const final = (await store.listMessages('conv-test')).find((message) => message.role === 'assistant');
      assert.equal((final?.content as { text: string }).text, 'word '.repeat(30));
    } finally {
      await harness.close();
      await store.close();
    }
  });
});
