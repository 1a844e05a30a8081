/**
 * The developer panel in the real VS Code UI (packaged extension, fake model): opened from the
 * Command Palette beside the sidebar chat, both watch one conversation with a tool call; the
 * panel shows the tool block's JSON, usage and cost per turn and per call (with the model that
 * served it), traces, a filterable event list and the audit log (Show Audit Log), and
 * its plan-mode switch shows up in the chat; a window reload brings the panel back. Screenshots
 * in the dark and light themes.
 */
import assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { costOf, priceOf } from '../../src/core/llm/model-info';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import type { WorkbenchSession } from '../harness/workbench-session';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { API_KEY, openChat, screenshot, send, startPackagedSession } from './chat-helpers';
import { findWebviewFrame, runCommand, setTheme } from './workbench-ui';

const MODEL = 'claude-haiku-4-5';

async function openTab(panel: Frame, tab: 'tools' | 'agents' | 'usage' | 'events' | 'traces' | 'audit'): Promise<void> {
  await panel.locator(`vscode-tab-header[data-tab="${tab}"]`).click();
  await panel.locator(`vscode-tab-panel[data-tab="${tab}"]`).waitFor({ state: 'visible' });
}

/** The inspector rows on screen, by type. */
async function eventTypesShown(panel: Frame): Promise<string[]> {
  return panel
    .locator('#events .event-row')
    .evaluateAll((rows) => rows.map((row) => (row as HTMLElement).dataset.type!));
}

describe('developer panel (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let fake: FakeModelServer;
  let session: WorkbenchSession;

  before(async () => {
    fake = await FakeModelServer.start({
      scenario: {
        name: 'read-greet',
        turns: [
          {
            text: 'Let me look.',
            toolCalls: [{ id: 'toolu_read', name: 'read_file', arguments: { path: 'src/greet.js' } }],
            usage: { input: 300, output: 40, cacheRead: 100, cacheWrite: 50 },
          },
          { text: 'It returns a **greeting** for a name.', usage: { input: 420, output: 9 } },
        ],
      },
    });
    session = await startPackagedSession({
      workspace: 'sample',
      settings: {
        'openagent.provider': 'anthropic',
        'openagent.model': MODEL,
        'openagent.baseUrl': fake.anthropicBaseUrl,
        'workbench.colorTheme': 'Default Dark Modern',
      },
      env: { ANTHROPIC_API_KEY: API_KEY, OPENAI_API_KEY: undefined, OPENAGENT_API_KEY: undefined },
    });
  });
  after(async () => {
    await session?.stop();
    await fake?.close();
  });

  afterEach(async function () {
    if (this.currentTest?.state !== 'failed') return;
    const [page] = session.browser.contexts().flatMap((context) => context.pages());
    if (page) await screenshot(page, 'dev-panel-failure.png');
  });

  it('watches the chat’s conversation: tool JSON, usage and cost, traces, event filter, plan mode', async () => {
    const { page, chat } = await openChat(session);
    await runCommand(page, 'OpenAgent: Open Developer Panel');
    const panel = await findWebviewFrame(page, '#openagent-panel');
    await panel.locator('#run-status', { hasText: 'no conversation yet' }).waitFor();

    // Tracing on for this conversation, from the panel, before the prompt.
    await panel.locator('#toggle-tracing').click();
    await panel.locator('#traces .empty-note', { hasText: 'Tracing is on' }).waitFor({ state: 'attached' });

    await send(chat, 'What does greet do?');
    await chat.locator('.turn-assistant strong', { hasText: 'greeting' }).waitFor();
    await panel.locator('#run-status', { hasText: 'idle' }).waitFor();

    // The tool block: name, target, state, and its full JSON input and result when opened.
    const block = panel.locator('.tool-block').first();
    await block.locator('summary', { hasText: 'read_file' }).waitFor();
    assert.match(await block.locator('summary').innerText(), /read_file\s+src\/greet\.js\s+succeeded/);
    await block.locator('summary').click();
    assert.deepEqual(JSON.parse(await block.locator('.tool-input').innerText()), { path: 'src/greet.js' });
    assert.match(await block.locator('.tool-output').innerText(), /function greet\(name\)/);
    assert.match(await block.locator('.tool-approval').innerText(), /Not asked/);
    assert.equal(await panel.locator('.tool-block').count(), 1);

    // Usage and cost: per turn and in total, the cost as the price list makes it.
    const expectedCost = costOf(priceOf('anthropic', MODEL), {
      inputTokens: 720,
      outputTokens: 49,
      cacheReadTokens: 100,
      cacheWriteTokens: 50,
    });
    const cost = `$${expectedCost.toFixed(4)}`;
    assert.equal(
      await panel.locator('#usage-summary').innerText(),
      `720 in · 49 out · 100 cache read · 50 cache write · ${cost} · 2 calls`,
    );
    await openTab(panel, 'usage');
    const rows = await panel.locator('.usage-table:not(.calls-table) tr').allInnerTexts();
    assert.match(rows[1] ?? '', new RegExp(`^1\\s+lead\\s+${MODEL}\\s+2\\s+720\\s+49\\s+100\\s+50\\s+\\${cost}$`));
    assert.match(rows.at(-1) ?? '', new RegExp(`^Total\\s+2\\s+720\\s+49\\s+100\\s+50\\s+\\${cost}$`));
    // Each model call with the provider/model that served it and the kind of work.
    const calls = await panel.locator('.calls-table tbody tr').allInnerTexts();
    assert.equal(calls.length, 2);
    for (const [index, call] of calls.entries())
      assert.match(call, new RegExp(`^${index + 1}\\s+lead\\s+chat\\s+anthropic/${MODEL}\\s`));
    await screenshot(page, 'dev-panel-usage-dark.png');

    // LLM traces: one pair per model call, the request carrying the prompt, no key anywhere.
    await openTab(panel, 'traces');
    await panel.locator('.trace-pair').nth(1).waitFor();
    assert.equal(await panel.locator('.trace-pair').count(), 2);
    for (const pair of await panel.locator('.trace-pair summary').all()) await pair.click();
    assert.match(await panel.locator('.trace-request').first().innerText(), /What does greet do\?/);
    assert.match(await panel.locator('.trace-response').nth(1).innerText(), /It returns a \*\*greeting\*\*/);
    assert.ok(!(await panel.content()).includes(API_KEY), 'the API key never reaches the panel');

    // The raw event inspector: every event, filtered by type and by text.
    await openTab(panel, 'events');
    const all = await eventTypesShown(panel);
    assert.ok(all.length > 10, `${all.length} events`);
    assert.deepEqual([all[0], all.at(-1)], ['user_message', 'done']);
    await panel.locator('#event-type').click();
    await panel.locator('#event-type').getByRole('option', { name: 'tool_call', exact: true }).click();
    await panel.waitForFunction(() => document.querySelectorAll('#events .event-row').length === 1);
    assert.deepEqual(await eventTypesShown(panel), ['tool_call']);
    assert.match(await panel.locator('#event-count').innerText(), /^1 of \d+ events match$/);
    await panel.locator('#event-type').click();
    await panel.locator('#event-type').getByRole('option', { name: 'All types', exact: true }).click();
    await panel.locator('#event-text input').fill('greet.js');
    await panel.waitForFunction((total) => document.querySelectorAll('#events .event-row').length < total, all.length);
    const matching = await eventTypesShown(panel);
    assert.ok(matching.includes('tool_call') && matching.includes('llm_request'), matching.join(', '));
    await panel.locator('#events .event-row summary').first().click();
    assert.match(await panel.locator('#events .event-json').first().innerText(), /"seq": \d+/);
    await screenshot(page, 'dev-panel-events-dark.png');

    await openTab(panel, 'tools');
    await screenshot(page, 'dev-panel-dark.png');

    // Show Audit Log: the panel's Audit Log tab, newest first — the two model calls and the
    // read (run without asking: read-only), each expandable to its record.
    await runCommand(page, 'OpenAgent: Show Audit Log');
    await panel.locator('vscode-tab-panel[data-tab="audit"]').waitFor({ state: 'visible' });
    await panel.locator('#audit .audit-record').nth(2).waitFor();
    const records = await panel.locator('#audit .audit-record summary').allInnerTexts();
    assert.equal(records.length, 3, records.join('\n'));
    assert.match(records[0]!, new RegExp(`model_call\\s+lead\\s+anthropic/${MODEL} \\(chat\\)\\s+420 in · 9 out`));
    assert.match(
      records[1]!,
      /tool_call\s+lead\s+read_file src\/greet\.js\s+approved \(read_only\)\s+ok · [\d,]+ chars/,
    );
    assert.match(records[2]!, /model_call\s+lead/);
    await panel.locator('#audit-kind').click();
    await panel.locator('#audit-kind').getByRole('option', { name: 'Tool calls', exact: true }).click();
    await panel.waitForFunction(() => document.querySelectorAll('#audit .audit-record').length === 1);
    await panel.locator('#audit .audit-record summary').click();
    assert.match(await panel.locator('#audit .audit-record pre').innerText(), /"kind": "tool_call"/);
    assert.ok(!(await panel.content()).includes(API_KEY), 'the API key is not in the audit trail');
    await screenshot(page, 'dev-panel-audit-dark.png');

    // Plan mode switched in the panel shows in the chat, which watches the same conversation.
    await panel.locator('#toggle-plan_mode').click();
    await chat.locator('.turn-status', { hasText: 'Plan mode is on' }).waitFor();
    assert.equal(
      await panel
        .locator('#toggle-plan_mode')
        .evaluate((toggle) => (toggle as unknown as { checked: boolean }).checked),
      true,
    );
    // Teams switched on from the panel: the host answers with the switch as it now is.
    await panel.locator('#toggle-teams').click();
    await panel.waitForFunction(
      () => (document.querySelector('#toggle-teams') as unknown as { checked: boolean } | null)?.checked === true,
    );

    await setTheme(page, panel, 'Light Modern');
    await screenshot(page, 'dev-panel-light.png');
    await openTab(panel, 'traces');
    await screenshot(page, 'dev-panel-traces-light.png');

    // The panel stays open across a window reload: VS Code restores it through OpenAgent, and
    // it follows the conversation the chat comes back with — the one it showed before.
    const shown = (await panel.locator('#conversation-id').innerText()).trim();
    assert.match(shown, /^Conversation \S+/);
    await page.reload();
    const restored = await findWebviewFrame(page, '#openagent-panel');
    await runCommand(page, 'OpenAgent: Focus Chat');
    await restored.locator('#conversation-id', { hasText: shown }).waitFor();
    await restored.locator('#run-status', { hasText: 'idle' }).waitFor();
    await page.close();
  });
});
