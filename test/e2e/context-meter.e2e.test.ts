/**
 * Context and cost at a glance, in the real VS Code UI (packaged extension, fake model): the
 * chat's context meter splits the last request into system + tools, rules and memory,
 * conversation and tool results, and its parts add up to what the fake model server counted in
 * the request it received; the developer panel shows the same breakdown per call; a call
 * estimated over the warning level and a scripted drop of cached tokens raise warnings in the chat.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { costOf, priceOf } from '../../src/core/llm/model-info';
import { formatUsd } from '../../src/core/events/cost-notes';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { loadScenario } from '../fixtures/fake-model-server/scenario';
import type { WorkbenchSession } from '../harness/workbench-session';
import { TEST_TIMEOUT_MS, waitUntil } from '../harness/patience';
import { API_KEY, openChat, screenshot, send, startPackagedSession } from './chat-helpers';
import { findWebviewFrame, runCommand } from './workbench-ui';

const MODEL = 'claude-sonnet-4-5';
const WARN_AT_USD = 0.002;
const PARTS = ['systemAndTools', 'rulesAndMemory', 'conversation', 'toolResults'] as const;

/** What the fake server counts for a request it received (wire-writer.ts): a quarter of its JSON. */
const serverCount = (body: unknown) => Math.ceil(JSON.stringify(body).length / 4);

/** The meter's parts as the chat shows them. */
async function meterParts(chat: Frame): Promise<Record<(typeof PARTS)[number], number>> {
  const entries = await chat
    .locator('#meter .meter-part')
    .evaluateAll((nodes) =>
      nodes.map((node) => [(node as HTMLElement).dataset.part, (node as HTMLElement).dataset.tokens]),
    );
  const parts = Object.fromEntries(entries.map(([name, tokens]) => [name, Number(tokens)]));
  return parts as Record<(typeof PARTS)[number], number>;
}

const sum = (parts: Record<string, number>) => Object.values(parts).reduce((total, part) => total + part, 0);

describe('context meter and cost warnings (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let fake: FakeModelServer;
  let session: WorkbenchSession;

  before(async () => {
    fake = await FakeModelServer.start();
    session = await startPackagedSession({
      workspace: 'sample',
      settings: {
        'openagent.provider': 'anthropic',
        'openagent.model': MODEL,
        'openagent.baseUrl': fake.anthropicBaseUrl,
        'openagent.callCostWarningUsd': WARN_AT_USD,
      },
      env: { ANTHROPIC_API_KEY: API_KEY, OPENAI_API_KEY: undefined, OPENAGENT_API_KEY: undefined },
    });
    // Project rules and memory, read when the conversation starts: the meter shows them apart.
    fs.writeFileSync(
      path.join(session.workspaceDir, 'AGENTS.md'),
      '# Agent rules\n' + 'Run `npm test` before you say you are done, and keep functions small.\n'.repeat(12),
    );
    fs.mkdirSync(path.join(session.workspaceDir, '.openagent'), { recursive: true });
    fs.writeFileSync(
      path.join(session.workspaceDir, '.openagent', 'memory.md'),
      '- greet.js is used by the CLI banner; keep its output stable.\n'.repeat(6),
    );
  });
  after(async () => {
    await session?.stop();
    await fake?.close();
  });
  beforeEach(() => {
    fake.requests.length = 0;
  });
  afterEach(async function () {
    if (this.currentTest?.state !== 'failed') return;
    const [page] = session.browser.contexts().flatMap((context) => context.pages());
    if (page) await screenshot(page, 'context-meter-failure.png');
  });

  it("adds the meter's parts up to the request the server received, with cost per turn, and in the panel", async () => {
    fake.setScenario(loadScenario('read-greet'));
    const { page, chat } = await openChat(session);
    await send(chat, 'What does greet do?');
    await chat.locator('.turn-assistant strong', { hasText: 'greeting' }).waitFor();

    // The first call was estimated over the warning level before it was sent: said in the chat.
    const warning = chat.locator('.turn-warning', { hasText: 'The next model call is estimated at' }).first();
    await warning.waitFor();
    assert.match(
      await warning.innerText(),
      /for its input alone \([\d,]+ tokens\), over your warning level of \$0\.0020\./,
    );

    // The meter shows the second (last) request: its parts add up to what the server counted.
    const [, second] = await waitUntil(
      () => (fake.modelCalls.length === 2 ? fake.modelCalls : undefined),
      'two model calls',
    );
    const counted = serverCount(second!.body);
    let shown = {} as Awaited<ReturnType<typeof meterParts>>;
    const parts = await waitUntil(
      async () => {
        shown = await meterParts(chat);
        return sum(shown) > 0 && Math.abs(sum(shown) - counted) <= counted * 0.02 ? shown : undefined;
      },
      () => `the meter to add up to ${counted}: ${JSON.stringify(shown)}`,
    );
    for (const name of PARTS) assert.ok(parts[name] > 0, `${name}: ${parts[name]}`);
    assert.ok(parts.systemAndTools > parts.rulesAndMemory, 'instructions and tool schemas weigh most');
    const used = sum(parts);
    assert.equal(
      await chat.locator('#meter .meter-total').innerText(),
      `${used.toLocaleString('en-US')} of 200,000 tokens (${Math.round((used / 200_000) * 100)} %)`,
    );
    assert.equal(
      await chat.locator('#meter .meter-part[data-part="toolResults"]').innerText(),
      `Tool results ${parts.toolResults.toLocaleString('en-US')}`,
    );

    // This turn's cost: both calls as the server counted them, at the model's prices.
    const price = priceOf('anthropic', MODEL);
    const outputs = [
      Math.ceil(('Let me look.' + JSON.stringify({ path: 'src/greet.js' })).length / 4),
      Math.ceil('It returns a **greeting** for a name.'.length / 4),
    ];
    const turnUsd = fake.modelCalls.reduce(
      (total, call, index) =>
        total +
        costOf(price, {
          inputTokens: serverCount(call.body),
          outputTokens: outputs[index]!,
          cacheReadTokens: 0,
          cacheWriteTokens: 0,
        }),
      0,
    );
    assert.equal(
      await chat.locator('#meter .meter-cost').innerText(),
      `This turn ${formatUsd(turnUsd)} · Conversation ${formatUsd(turnUsd)}`,
    );
    await screenshot(page, 'context-meter-chat.png');

    // The developer panel: the same breakdown for each call.
    await runCommand(page, 'OpenAgent: Open Developer Panel');
    const panel = await findWebviewFrame(page, '#openagent-panel');
    await panel.locator('vscode-tab-header[data-tab="usage"]').click();
    const lastCall = panel.locator('.calls-table tbody tr').nth(1);
    await lastCall.waitFor();
    assert.equal(
      await lastCall.locator('.context-parts').innerText(),
      `System + tools ${parts.systemAndTools.toLocaleString('en-US')} · Rules & memory ${parts.rulesAndMemory.toLocaleString('en-US')} · ` +
        `Conversation ${parts.conversation.toLocaleString('en-US')} · Tool results ${parts.toolResults.toLocaleString('en-US')}`,
    );
    const firstCall = panel.locator('.calls-table tbody tr').first();
    const firstTotal = await firstCall.locator('.context-total').innerText();
    assert.equal(firstTotal.split(' of ')[0], serverCount(fake.modelCalls[0]!.body).toLocaleString('en-US'));
    assert.match(await firstCall.locator('.context-parts').innerText(), /Tool results 0$/);
    await screenshot(page, 'context-meter-panel.png');
    await page.close();
  });

  it('warns in the chat when the server reads far less from the prompt cache than on the call before', async () => {
    fake.setScenario({
      name: 'cache-drop',
      turns: [
        {
          toolCalls: [{ id: 'toolu_think', name: 'think', arguments: { thought: 'Check the cache.' } }],
          usage: { input: 300, output: 20, cacheRead: 9_000, cacheWrite: 200 },
        },
        { text: 'Checked.', usage: { input: 9_300, output: 5, cacheRead: 200 } },
      ],
    });
    const { page, chat } = await openChat(session);
    await send(chat, 'Check the prompt cache.');
    const warning = chat.locator('.turn-warning', { hasText: 'The prompt cache broke' });
    await warning.waitFor();
    // Sonnet: $3 per million in, $0.30 read from the cache; 9,000 tokens paid in full cost $0.0243 more.
    assert.equal(
      await warning.innerText(),
      'The prompt cache broke: this call read 2 % of its input from the cache, the previous one 95 %, so 9,000 ' +
        'tokens were paid for again (about $0.0243 more). OpenAgent cannot tell why: the provider may have dropped it.',
    );
    await chat.locator('.turn-assistant', { hasText: 'Checked.' }).waitFor();
    // The meter follows the server's count of the last request: 9,300 + 200 read from the cache.
    await chat.locator('#meter .meter-total', { hasText: '9,500 of 200,000 tokens (5 %)' }).waitFor();
    assert.equal(sum(await meterParts(chat)), 9_500);
    await screenshot(page, 'context-meter-cache-break.png');
    await page.close();
  });
});
