/**
 * The context meter's figures, cache breaks and cost warnings, from real conversations with the
 * fake model server over the real SDKs: the server counts the request it received (a quarter of
 * its JSON body's length, when the scenario scripts no usage), and the parts must add up to it.
 */
import assert from 'node:assert/strict';
import { sumParts } from '../../../../src/core/agent/context/context-breakdown';
import type { AgentEvent } from '../../../../src/core/events/events';
import { agentEventSchema } from '../../../../src/core/events/events';
import { contextWindowOf } from '../../../../src/core/llm/model-info';
import { ConversationRecorder } from '../../../../src/core/session/conversation-recorder';
import { restoreConversation } from '../../../../src/core/session/restore';
import { openStore, tempDir } from '../../store/store-helpers';
import type { ScenarioInput } from '../../../fixtures/fake-model-server/scenario';
import { clientFor, eventTrace, PROTOCOLS, startHarness, type Harness } from './loop-harness';

const RULES = '# Project rules\n' + 'Run npm test before you say you are done. Prefer small functions.\n'.repeat(20);
const MEMORY = '# Memory\n' + '- The user writes British English.\n'.repeat(10);
const SYSTEM = `You are a test agent.\n\n# Environment\n- Shell: bash\n\n${RULES}\n\n${MEMORY}\n`;

type EventOf<T extends AgentEvent['type']> = Extract<AgentEvent, { type: T }>;
const ofType = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((event): event is EventOf<T> => event.type === type);
const callUsage = (events: AgentEvent[]) => ofType(events, 'usage').filter((event) => event.scope === 'call');

/** Two calls: the first reads 9,000 of its 9,500 input tokens from the cache, the second 200. */
const CACHE_DROP: ScenarioInput = {
  name: 'cache-drop',
  turns: [
    {
      toolCalls: [{ id: 't1', name: 'think', arguments: { thought: 'look first' } }],
      usage: { input: 300, output: 20, cacheRead: 9_000, cacheWrite: 200 },
    },
    { text: 'Done.', usage: { input: 9_300, output: 20, cacheRead: 200 } },
  ],
};

/** What the fake server counted for a request: a quarter of its JSON body (wire-writer.ts). */
const serverCount = (body: unknown) => Math.ceil(JSON.stringify(body).length / 4);

describe('context meter and cost warnings in a conversation', () => {
  let harness: Harness | undefined;
  afterEach(() => harness?.close());

  for (const protocol of PROTOCOLS) {
    it(`adds the parts up to the input the server counted, over ${protocol}`, async () => {
      harness = await startHarness(
        protocol,
        {
          name: 'read-then-answer',
          turns: [
            { toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'src/app.ts' } }] },
            { text: 'It exports the answer.' },
          ],
        },
        { system: SYSTEM, knowledge: [RULES, MEMORY] },
      );
      await harness.conversation.submit('What does src/app.ts export?');
      const calls = callUsage(harness.events);
      const bodies = harness.bodies();
      assert.equal(calls.length, 2);
      calls.forEach((call, index) => {
        const context = call.context;
        assert.ok(context, `call ${index} carries its breakdown`);
        assert.equal(sumParts(context), serverCount(bodies[index]), `call ${index}: parts add up to the server count`);
        assert.equal(
          sumParts(context),
          call.usage.inputTokens + call.usage.cacheReadTokens + call.usage.cacheWriteTokens,
        );
        assert.equal(context.counted, true);
        assert.equal(context.window, contextWindowOf(call.model));
        // The rules and memory are a fixed part of every call; the conversation grows.
        assert.ok(context.rulesAndMemory > 100, `rules and memory: ${context.rulesAndMemory}`);
        assert.ok(context.systemAndTools > context.rulesAndMemory, 'the tool schemas weigh more');
        assert.ok(agentEventSchema.safeParse(call).success, 'the usage event fits the protocol');
      });
      assert.equal(calls[0]!.context!.toolResults, 0, 'no tool has run before the first call');
      assert.ok(calls[1]!.context!.toolResults > 0, 'the second call carries the file read');
      assert.ok(calls[1]!.context!.conversation > calls[0]!.context!.conversation);
    });
  }

  it('scales an estimate to the usage event when the server reports nothing, and says so', async () => {
    harness = await startHarness('openai', { name: 'silent', turns: [{ text: 'Hi.', usage: null }] });
    await harness.conversation.submit('hello');
    const [call] = callUsage(harness.events);
    assert.equal(call?.reported, false);
    assert.equal(call?.context?.counted, false);
    assert.equal(sumParts(call!.context!), call!.usage.inputTokens);
  });

  it('uses the context window setting for the meter', async () => {
    harness = await startHarness(
      'anthropic',
      { name: 'one', turns: [{ text: 'Hi.' }] },
      { limits: { contextWindow: 50_000 } },
    );
    await harness.conversation.submit('hello');
    assert.equal(callUsage(harness.events)[0]?.context?.window, 50_000);
  });

  it('raises a cache break when a call reads far less from the cache than the one before', async () => {
    harness = await startHarness('anthropic', CACHE_DROP);
    await harness.conversation.submit('hello');
    const trace = eventTrace(harness.events);
    assert.deepEqual(trace.slice(trace.lastIndexOf('usage:call')), [
      'usage:call',
      'cache_break',
      'usage:turn',
      'done:end_turn',
    ]);
    const [broke] = ofType(harness.events, 'cache_break');
    assert.ok(broke && agentEventSchema.safeParse(broke).success);
    assert.equal(broke.model, 'claude-sonnet-4-6');
    assert.equal(broke.previousShare, 9_000 / 9_500);
    assert.equal(broke.share, 200 / 9_500);
    assert.equal(broke.missedTokens, 9_000);
    assert.deepEqual(broke.reasons, []);
    // Sonnet: $3 per million in, $0.30 cached: 9,000 tokens paid in full cost $0.0243 more.
    assert.ok(Math.abs(broke.extraCostUsd - (9_000 * 2.7) / 1_000_000) < 1e-9, String(broke.extraCostUsd));
  });

  it('keeps the breakdown and the warning in the store: a reopened conversation shows them again', async () => {
    const { store } = await openStore(tempDir());
    harness = await startHarness('anthropic', CACHE_DROP);
    try {
      const recorder = new ConversationRecorder({
        store,
        conversationId: 'conv-test',
        now: Date.now,
        settings: {},
        onError: (error) => assert.fail(String(error)),
      });
      harness.conversation.subscribe((event) => recorder.record(event));
      await harness.conversation.submit('hello');
      await recorder.flush();
      const restored = restoreConversation('conv-test', await store.listMessages('conv-test'));
      const live = callUsage(harness.events).map((event) => event.context);
      assert.deepEqual(
        callUsage(restored.events).map((event) => event.context),
        live,
      );
      assert.equal(live.length, 2);
      assert.deepEqual(
        ofType(restored.events, 'cache_break').map(({ seq: _seq, time: _time, ...body }) => body),
        ofType(harness.events, 'cache_break').map(({ seq: _seq, time: _time, ...body }) => body),
      );
      assert.equal(ofType(restored.events, 'cache_break').length, 1);
    } finally {
      await store.close();
    }
  });

  it('names a model switch between prompts as the reason', async () => {
    harness = await startHarness('anthropic', {
      name: 'switch',
      turns: [
        { text: 'One.', usage: { input: 100, output: 5, cacheRead: 5_000 } },
        { text: 'Two.', usage: { input: 5_100, output: 5, cacheRead: 0, cacheWrite: 0 } },
      ],
    });
    await harness.conversation.submit('first');
    harness.conversation.useModel({ llm: clientFor('anthropic', harness.server), model: 'claude-opus-4-5' });
    await harness.conversation.submit('second');
    assert.deepEqual(ofType(harness.events, 'cache_break')[0]?.reasons, ['model_switched']);
  });

  it('stays quiet when the server never reports the cache', async () => {
    harness = await startHarness('openai', {
      name: 'no-cache',
      turns: [
        { toolCalls: [{ id: 't1', name: 'think', arguments: { thought: 'a' } }], usage: { input: 9_000, output: 5 } },
        { toolCalls: [{ id: 't2', name: 'think', arguments: { thought: 'b' } }], usage: { input: 12_000, output: 5 } },
        { text: 'Done.', usage: { input: 15_000, output: 5 } },
      ],
    });
    await harness.conversation.submit('hello');
    assert.equal(ofType(harness.events, 'cache_break').length, 0);
  });

  it('warns before a call whose input is estimated over the warning level, once per prompt unless it doubles', async () => {
    harness = await startHarness(
      'anthropic',
      {
        name: 'costly',
        turns: [
          { toolCalls: [{ id: 't1', name: 'think', arguments: { thought: 'a' } }] },
          { text: 'Done.' },
          { text: 'Again.' },
        ],
      },
      { system: SYSTEM, knowledge: [RULES, MEMORY], limits: { callCostWarningUsd: 0.001 } },
    );
    await harness.conversation.submit('hello');
    const trace = eventTrace(harness.events);
    // Before the call is sent: ahead of anything it answers.
    assert.deepEqual(trace.slice(0, 4), ['user_message', 'model_call:waiting', 'cost_warning', 'model_call:answering']);
    let warnings = ofType(harness.events, 'cost_warning');
    assert.equal(warnings.length, 1, 'the second call of the prompt costs about the same: not repeated');
    const [warning] = warnings;
    assert.ok(warning && agentEventSchema.safeParse(warning).success);
    assert.equal(warning.thresholdUsd, 0.001);
    assert.equal(warning.cachedTokens, 0, 'nothing is in the cache before the first call');
    // Everything not read from the cache is written to it: $3.75 per million for Sonnet.
    assert.ok(Math.abs(warning.estimatedUsd - (warning.inputTokens * 3.75) / 1_000_000) < 1e-12);
    // The first call's estimate, next to what the server counted.
    const counted = callUsage(harness.events)[0]!.usage.inputTokens;
    assert.ok(
      warning.inputTokens > 0.5 * counted && warning.inputTokens < 1.5 * counted,
      `${warning.inputTokens} vs ${counted}`,
    );

    await harness.conversation.submit('again');
    warnings = ofType(harness.events, 'cost_warning');
    assert.equal(warnings.length, 2, 'a new prompt warns again');
  });

  it('does not warn under the level, without a level, or for a model without a price', async () => {
    for (const [options, model] of [
      [{ limits: { callCostWarningUsd: 5 } }, undefined],
      [{ limits: {} }, undefined],
      [{ limits: { callCostWarningUsd: 0.000_001 } }, 'fake-model'],
    ] as const) {
      harness = await startHarness('anthropic', { name: 'cheap', turns: [{ text: 'Hi.' }] }, options);
      if (model) harness.conversation.useModel({ llm: clientFor('anthropic', harness.server), model });
      await harness.conversation.submit('hello');
      assert.equal(ofType(harness.events, 'cost_warning').length, 0, JSON.stringify(options));
      await harness.close();
      harness = undefined;
    }
  });
});
