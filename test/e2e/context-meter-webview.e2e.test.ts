/**
 * The chat's context meter in plain Chromium (the built dist/webview/chat.js, fed host messages
 * as VS Code delivers them): it appears with the first model call, follows the lead's last
 * request, draws its parts against the window, survives nonsense figures, and the warnings are
 * lines of the transcript. Needs `npm run package` (or `node esbuild.mjs`) first.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import type { AgentEvent, AgentEventBody, ContextBreakdown } from '../../src/core/events/events';
import { deliver } from '../harness/webview-page';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { webviewPages } from './webview-pages';
import { screenshot } from './chat-helpers';

let seq = 0;
const events = (...bodies: AgentEventBody[]): { type: 'agent_events'; events: AgentEvent[] } => ({
  type: 'agent_events',
  events: bodies.map((body) => ({ conversationId: 'c1', agentId: 'lead', seq: seq++, time: 0, ...body }) as AgentEvent),
});

const context = (parts: Partial<ContextBreakdown> = {}): ContextBreakdown => ({
  window: 200_000,
  systemAndTools: 12_000,
  rulesAndMemory: 2_000,
  conversation: 30_000,
  toolResults: 56_000,
  counted: true,
  ...parts,
});

const call = (costUsd: number, extra: Partial<Extract<AgentEventBody, { type: 'usage' }>> = {}): AgentEventBody => ({
  type: 'usage',
  scope: 'call',
  model: 'claude-sonnet-4-5',
  provider: 'anthropic',
  work: 'chat',
  usage: { inputTokens: 100_000, outputTokens: 200, cacheReadTokens: 0, cacheWriteTokens: 0 },
  costUsd,
  reported: true,
  ...extra,
});

/** The segments' widths as a share of the bar. */
function segmentShares(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const bar = document.querySelector('.meter-bar')!.getBoundingClientRect().width;
    return [...document.querySelectorAll('.meter-segment')].map(
      (segment) => segment.getBoundingClientRect().width / bar,
    );
  });
}

describe('context meter in the chat webview (Chromium)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const pages = webviewPages({});
  let page: Page;
  beforeEach(() => (page = pages.page));

  it("appears with the first call and shows the lead's last request against the window", async () => {
    assert.equal(await page.locator('#meter').isHidden(), true, 'no meter before any model call');
    await deliver(page, [
      events(
        { type: 'user_message', text: 'Find the bug.' },
        call(0.3, { context: context() }),
        call(0.05, { work: 'subagent', context: context({ conversation: 190_000 }) }),
      ),
    ]);
    await page.locator('#meter .meter-total', { hasText: '100,000 of 200,000 tokens (50 %)' }).waitFor();
    assert.deepEqual(await page.locator('#meter .meter-part').allInnerTexts(), [
      'System + tools 12,000',
      'Rules & memory 2,000',
      'Conversation 30,000',
      'Tool results 56,000',
    ]);
    assert.equal(await page.locator('#meter .meter-cost').innerText(), 'This turn $0.35 · Conversation $0.35');
    const shares = await segmentShares(page);
    [0.06, 0.01, 0.15, 0.28].forEach((expected, index) =>
      assert.ok(Math.abs(shares[index]! - expected) < 0.01, `segment ${index}: ${shares[index]}`),
    );
    await screenshot(page, 'context-meter-webview.png');

    // The next prompt: its turn starts at zero, the conversation goes on adding up.
    await deliver(page, [events({ type: 'user_message', text: 'And now?' }, call(0.0123, { context: context() }))]);
    await page.locator('#meter .meter-cost', { hasText: 'This turn $0.0123 · Conversation $0.3623' }).waitFor();
  });

  it('holds up against nonsense: a window of 0, parts past the window, costs that are not numbers', async () => {
    await deliver(page, [
      events(
        { type: 'user_message', text: 'hello' },
        call(0.01, { context: context({ conversation: 900_000, counted: false }) }),
      ),
    ]);
    await page.locator('#meter .meter-total', { hasText: '~970,000 of 200,000 tokens (100 %)' }).waitFor();
    const shares = await segmentShares(page);
    assert.ok(shares.reduce((sum, share) => sum + share, 0) <= 1.001, `the bar never overflows: ${shares.join(', ')}`);
    // A breakdown with no window is left out; a cost that is not a number counts as nothing.
    await deliver(page, [events(call(Number.NaN, { context: context({ window: 0, conversation: 5 }) }))]);
    await page.locator('#meter .meter-cost', { hasText: 'This turn $0.01 · Conversation $0.01' }).waitFor();
    assert.match(await page.locator('#meter .meter-total').innerText(), /^~970,000 of 200,000/);
    // A new chat hides the meter until its first call.
    await deliver(page, [{ type: 'chat_reset' }]);
    await page.locator('#meter').waitFor({ state: 'hidden' });
  });

  it('says so when nothing costs anything (a local model or one without a price)', async () => {
    await deliver(page, [
      events({ type: 'user_message', text: 'hello' }, call(0, { reported: false, context: context() })),
    ]);
    await page.locator('#meter .meter-cost', { hasText: 'No cost counted' }).waitFor();
  });

  it('shows cache breaks and costly calls as warning lines in the transcript', async () => {
    await deliver(page, [
      events(
        { type: 'user_message', text: 'hello' },
        {
          type: 'cost_warning',
          provider: 'anthropic',
          model: 'claude-opus-4-1',
          inputTokens: 60_000,
          cachedTokens: 0,
          estimatedUsd: 1.125,
          thresholdUsd: 0.5,
        },
        { type: 'text_delta', text: 'Working.' },
        {
          type: 'cache_break',
          provider: 'anthropic',
          model: 'claude-opus-4-1',
          previousShare: 0.92,
          share: 0.01,
          missedTokens: 55_000,
          extraCostUsd: 0.7425,
          reasons: ['tools_changed'],
          secondsSinceLastCall: 4,
        },
      ),
    ]);
    const warnings = page.locator('.turn-warning');
    await warnings.nth(1).waitFor();
    assert.deepEqual(await warnings.allInnerTexts(), [
      'The next model call is estimated at $1.13 for its input alone (60,000 tokens), over your warning level of $0.50. ' +
        'Compacting the conversation or starting a new one makes calls cheaper.',
      'The prompt cache broke: this call read 1 % of its input from the cache, the previous one 92 %, so 55,000 tokens ' +
        'were paid for again (about $0.7425 more). Why: the tools offered changed.',
    ]);
    assert.equal(await page.locator('.turn-assistant').innerText(), 'Working.');
    await screenshot(page, 'context-meter-warnings-webview.png');
  });
});
