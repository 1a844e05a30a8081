/** The context meter's figures (chat) and the per-call breakdown (developer panel), from events alone. */
import assert from 'node:assert/strict';
import {
  describeCacheBreak,
  describeContextParts,
  describeContextTotal,
  describeCostWarning,
} from '../../../src/core/events/cost-notes';
import type { AgentEvent, AgentEventBody, ContextBreakdown } from '../../../src/core/events/events';
import { describeEvent } from '../../../webview/panel/event-inspector';
import { PanelModel } from '../../../webview/panel/panel-model';
import { ContextFigures } from '../../../webview/shared/context-figures';

let seq = 0;
function stamp(body: AgentEventBody, agentId = 'lead'): AgentEvent {
  return { ...body, conversationId: 'c1', agentId, seq: seq++, time: 1_700_000_000_000 } as AgentEvent;
}

const context = (conversation: number, counted = true): ContextBreakdown => ({
  window: 200_000,
  systemAndTools: 3_000,
  rulesAndMemory: 500,
  conversation,
  toolResults: 1_500,
  counted,
});

function call(
  costUsd: number,
  extra: Partial<Extract<AgentEventBody, { type: 'usage' }>> = {},
): Extract<AgentEventBody, { type: 'usage' }> {
  return {
    type: 'usage',
    scope: 'call',
    model: 'claude-sonnet-4-5',
    provider: 'anthropic',
    work: 'chat',
    usage: { inputTokens: 5_000, outputTokens: 100, cacheReadTokens: 0, cacheWriteTokens: 0 },
    costUsd,
    reported: true,
    ...extra,
  };
}

describe('context meter figures', () => {
  it("shows the lead's last answer's context, not a sub-agent's, a teammate's or the summariser's", () => {
    const figures = new ContextFigures();
    figures.apply([
      stamp({ type: 'user_message', text: 'hello' }),
      stamp(call(0.01, { context: context(1_000) })),
      stamp(call(0.02, { work: 'subagent', context: context(90_000) })),
      stamp(call(0.01, { work: 'compaction', context: context(150_000) })),
      stamp(call(0.03, { context: context(50_000) }), 'alice'),
    ]);
    assert.equal(figures.context?.conversation, 1_000);
    assert.equal(figures.context?.model, 'claude-sonnet-4-5');
    figures.apply([stamp(call(0.01, { work: 'final_summary', context: context(2_000) }))]);
    assert.equal(figures.context?.conversation, 2_000, 'the final summary answers in the same window');
  });

  it('adds up the cost of this turn and of the conversation, every agent included', () => {
    const figures = new ContextFigures();
    figures.apply([
      stamp({ type: 'user_message', text: 'one' }),
      stamp(call(0.01)),
      stamp(call(0.02, { work: 'subagent' })),
      stamp({ type: 'usage', scope: 'turn', model: 'm', usage: call(0).usage, costUsd: 0.03, reported: true }),
    ]);
    assert.ok(Math.abs(figures.turnUsd - 0.03) < 1e-12);
    figures.apply([stamp({ type: 'user_message', text: 'two' }), stamp(call(0.005))]);
    assert.ok(Math.abs(figures.turnUsd - 0.005) < 1e-12);
    assert.ok(Math.abs(figures.conversationUsd - 0.035) < 1e-12);
    assert.equal(figures.estimated, false);
    figures.apply([stamp(call(0, { reported: false }))]);
    assert.equal(figures.estimated, true, 'a cost without a price or usage is an estimate');
    // A cost no server could mean does not poison the totals.
    figures.apply([stamp(call(Number.NaN)), stamp(call(Infinity))]);
    assert.ok(Number.isFinite(figures.conversationUsd));
    figures.reset();
    assert.deepEqual([figures.calls, figures.conversationUsd, figures.context], [0, 0, undefined]);
  });

  it('writes the breakdown and the warnings the same way for every surface', () => {
    assert.equal(describeContextTotal(context(15_000)), '20,000 of 200,000 tokens (10 %)');
    assert.equal(describeContextTotal(context(15_000, false)), '~20,000 of 200,000 tokens (10 %)');
    assert.equal(
      describeContextParts(context(15_000)),
      'System + tools 3,000 · Rules & memory 500 · Conversation 15,000 · Tool results 1,500',
    );
    // A request over its window says so without passing 100 %.
    assert.match(describeContextTotal({ ...context(400_000), window: 200_000 }), /\(100 %\)$/);
    const broke = {
      previousShare: 0.95,
      share: 0.02,
      missedTokens: 41_200,
      extraCostUsd: 0.1112,
      reasons: ['system_prompt_changed', 'cache_expired'] as const,
    };
    assert.equal(
      describeCacheBreak({ ...broke, reasons: [...broke.reasons] }),
      'The prompt cache broke: this call read 2 % of its input from the cache, the previous one 95 %, so 41,200 tokens ' +
        'were paid for again (about $0.1112 more). Why: the system prompt changed; the cache expired (more than 5 minutes ' +
        'since the previous call).',
    );
    assert.match(
      describeCacheBreak({ ...broke, reasons: [], extraCostUsd: 0 }),
      /paid for again\. OpenAgent cannot tell why: the provider may have dropped it\.$/,
    );
    assert.equal(
      describeCostWarning({ inputTokens: 183_000, cachedTokens: 0, estimatedUsd: 0.6863, thresholdUsd: 0.5 }),
      'The next model call is estimated at $0.6863 for its input alone (183,000 tokens), over your warning level of ' +
        '$0.50. Compacting the conversation or starting a new one makes calls cheaper.',
    );
    assert.match(
      describeCostWarning({ inputTokens: 183_000, cachedTokens: 170_000, estimatedUsd: 2, thresholdUsd: 1 }),
      /\(183,000 tokens, 170,000 of them expected from the cache\), over your warning level of \$1\.00\./,
    );
  });

  it('gives the developer panel each call with its breakdown, and inspector lines for the warnings', () => {
    const model = new PanelModel();
    const breakdown = context(7_000);
    model.apply([
      stamp({ type: 'user_message', text: 'hello' }),
      stamp(call(0.01, { context: breakdown })),
      stamp(call(0.01)),
    ]);
    assert.deepEqual(model.calls[0]?.context, breakdown);
    assert.equal(model.calls[1]?.context, undefined, 'a call recorded before the meter has none');
    const cacheBreak = stamp({
      type: 'cache_break',
      provider: 'anthropic',
      model: 'claude-sonnet-4-5',
      previousShare: 0.9,
      share: 0.1,
      missedTokens: 9_000,
      extraCostUsd: 0.0243,
      reasons: [],
      secondsSinceLastCall: 12,
    });
    assert.match(describeEvent(cacheBreak), /^The prompt cache broke: this call read 10 %/);
    const warning = stamp({
      type: 'cost_warning',
      provider: 'anthropic',
      model: 'claude-opus-4-1',
      inputTokens: 50_000,
      cachedTokens: 0,
      estimatedUsd: 0.9375,
      thresholdUsd: 0.5,
    });
    assert.match(describeEvent(warning), /^The next model call is estimated at \$0\.9375/);
  });
});
