/**
 * The built developer-panel webview (dist/webview/panel.js) in plain Chromium, fed host
 * messages as VS Code delivers them: sub-agent and teammate cards and the task board from
 * synthetic events (nothing emits them yet), tool blocks in every state, output shown as text,
 * the switches posting to the host, and a long event list kept to a bounded number of rows.
 * Needs `npm run package` (or `node esbuild.mjs`) first, like the other e2e tests.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import type { AgentEvent, AgentEventBody } from '../../src/core/events/events';
import { projectRoot } from '../harness/workbench-session';
import { countDomNodes, deliver, postedByWebview } from '../harness/webview-page';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { webviewPages } from './webview-pages';

let seq = 0;
function events(agentId: string, ...bodies: AgentEventBody[]): { type: 'agent_events'; events: AgentEvent[] } {
  return {
    type: 'agent_events',
    events: bodies.map(
      (body) => ({ conversationId: 'c1', agentId, seq: seq++, time: Date.now(), ...body }) as AgentEvent,
    ),
  };
}

const usage = (input: number, output: number) => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
});

async function openTab(page: Page, tab: string): Promise<void> {
  await page.locator(`vscode-tab-header[data-tab="${tab}"]`).click();
  await page.locator(`vscode-tab-panel[data-tab="${tab}"]`).waitFor({ state: 'visible' });
}

describe('developer panel webview in Chromium (synthetic events)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const pages = webviewPages({ name: 'panel', width: 1100, height: 800, readyMessage: 'panel_ready' });
  let page: Page;
  beforeEach(() => (page = pages.page));

  it('shows sub-agent cards with their usage, teammate cards and the task board', async () => {
    await deliver(page, [
      events(
        'lead',
        { type: 'user_message', text: 'Plan the release' },
        { type: 'subagent_start', subagentId: 'sa-1', kind: 'explore', description: 'Find every config loader' },
        { type: 'subagent_start', subagentId: 'sa-2', kind: 'review', description: 'Review the diff' },
        { type: 'teammate_status', name: 'tester', status: 'working' },
        { type: 'teammate_status', name: 'docs', status: 'idle' },
        { type: 'task_update', taskId: '1', subject: 'Bump the version', status: 'pending' },
        { type: 'task_update', taskId: '2', subject: 'Run the tests', status: 'in_progress', owner: 'tester' },
        { type: 'task_update', taskId: '3', subject: 'Update the changelog', status: 'completed', owner: 'docs' },
        { type: 'task_update', taskId: '4', subject: 'Dropped idea', status: 'pending' },
        { type: 'task_update', taskId: '4', subject: 'Dropped idea', status: 'deleted' },
        {
          type: 'subagent_end',
          subagentId: 'sa-1',
          summary: 'Two loaders: src/config.ts and src/env.ts',
          usage: usage(12_000, 800),
          costUsd: 0.0123,
        },
      ),
    ]);
    await openTab(page, 'agents');
    const cards = page.locator('.subagent');
    assert.equal(await cards.count(), 2);
    assert.match(
      await cards.nth(0).innerText(),
      /explore\s+done[\s\S]*Two loaders[\s\S]*12,000 in · 800 out .* \$0\.0123/,
    );
    assert.match(await cards.nth(1).innerText(), /review\s+running/);
    assert.deepEqual(await page.locator('.teammate header').allInnerTexts(), ['tester\nworking', 'docs\nidle']);
    const columns = await page.locator('.task-column').allInnerTexts();
    assert.match(columns[0] ?? '', /^pending \(1\)\nBump the version/i);
    assert.match(columns[1] ?? '', /^in progress \(1\)\nRun the tests\n+2 · tester/i);
    assert.match(columns[2] ?? '', /^completed \(1\)\nUpdate the changelog/i);
    assert.doesNotMatch(columns.join('\n'), /Dropped idea/);
    assert.equal(await page.locator('vscode-tab-header[data-tab="agents"] vscode-badge').innerText(), '7');
    fs.mkdirSync(path.join(projectRoot, 'test-results'), { recursive: true });
    await page.screenshot({ path: path.join(projectRoot, 'test-results', 'dev-panel-agents-webview.png') });
  });

  it('shows tool blocks in every state and tool output as text, never as HTML', async () => {
    await deliver(page, [
      events(
        'lead',
        { type: 'tool_call', toolCallId: 'a', toolName: 'bash', input: { command: 'npm test' } },
        {
          type: 'tool_approval_request',
          toolCallId: 'a',
          toolName: 'bash',
          input: { command: 'npm test' },
          summary: 'run npm test',
        },
        { type: 'tool_call', toolCallId: 'b', toolName: 'write_file', input: { path: '.env', content: 'X=1' } },
        { type: 'tool_approval_result', toolCallId: 'b', approved: false, source: 'user', reason: 'not there' },
        {
          type: 'tool_result',
          toolCallId: 'b',
          toolName: 'write_file',
          output: 'User denied',
          isError: true,
          durationMs: 3,
        },
        { type: 'tool_call', toolCallId: 'c', toolName: 'read_file', input: { path: 'x.html' } },
        {
          type: 'tool_result',
          toolCallId: 'c',
          toolName: 'read_file',
          output: '<img src="https://evil.test/x.png" onerror="alert(1)"><b>bold</b>',
          isError: false,
          durationMs: 4,
        },
      ),
      events('sub-1', { type: 'tool_call', toolCallId: 'd', toolName: 'grep', input: { pattern: 'TODO' } }),
    ]);
    const blocks = page.locator('.tool-block');
    assert.deepEqual(await blocks.evaluateAll((all) => all.map((block) => block.className)), [
      'tool-block state-awaiting_approval',
      'tool-block state-denied',
      'tool-block state-succeeded',
      'tool-block state-running',
    ]);
    assert.match(await blocks.nth(3).locator('summary').innerText(), /grep\s+TODO\s+running\s+sub-1/);
    await page.locator('#tools-expand').click();
    assert.match(await blocks.nth(0).locator('.tool-approval').innerText(), /Waiting for approval: run npm test/);
    assert.match(await blocks.nth(1).locator('.tool-approval').innerText(), /Denied by the user — not there/);
    const output = blocks.nth(2).locator('.tool-output');
    assert.equal(await output.innerText(), '<img src="https://evil.test/x.png" onerror="alert(1)"><b>bold</b>');
    assert.equal(await page.locator('img, b').count(), 0, 'tool output is text');
    await page.locator('#tools-collapse').click();
    assert.equal(await page.locator('.tool-block[open]').count(), 0);
  });

  it('posts the switches to the host and shows them as the host says they are', async () => {
    await deliver(page, [
      { type: 'toggles_change', toggles: { autoApprove: false, planMode: true, tracing: false, teams: false } },
    ]);
    assert.equal(
      await page.locator('#toggle-plan_mode').evaluate((toggle) => (toggle as unknown as { checked: boolean }).checked),
      true,
    );
    await page.locator('#toggle-auto_approve').click();
    await page.locator('#toggle-tracing').click();
    await page.locator('#toggle-teams').click();
    const posted = (await postedByWebview(page)).filter(
      (message) => (message as { type: string }).type === 'toggle_set',
    );
    assert.deepEqual(posted, [
      { type: 'toggle_set', toggle: 'auto_approve', on: true },
      { type: 'toggle_set', toggle: 'tracing', on: true },
      { type: 'toggle_set', toggle: 'teams', on: true },
    ]);
    // Malformed host messages are ignored.
    await deliver(page, [
      { type: 'toggles_change', toggles: { planMode: 'yes' } },
      { type: 'agent_events', events: [{}] },
    ]);
    assert.equal(await page.locator('#count-events').innerText(), '0');
  });

  it('shows each MCP server’s state, tool count or error, as text', async () => {
    const status = page.locator('#mcp-status');
    assert.equal(await status.innerText(), 'MCP: not started yet');
    await deliver(page, [{ type: 'mcp_status', started: true, servers: [] }]);
    assert.equal(await status.innerText(), 'MCP: no servers configured');
    await deliver(page, [
      {
        type: 'mcp_status',
        started: true,
        servers: [
          { name: 'everything', transport: 'stdio', state: 'connected', toolCount: 13 },
          { name: 'remote', transport: 'http', state: 'error', toolCount: 0, error: '<img src=x> fetch failed' },
        ],
      },
    ]);
    assert.equal(
      await status.innerText(),
      'MCP: everything connected (13 tools) · remote error (<img src=x> fetch failed)',
    );
    assert.equal(await status.locator('img').count(), 0, 'an error is text, never HTML');
    assert.equal(await status.locator('[data-state="error"]').getAttribute('data-server'), 'remote');
  });

  it('shows the policy in force: the team’s state and the layer behind each rule, as text', async () => {
    await openTab(page, 'policy');
    assert.equal(await page.locator('#policy').innerText(), 'The policy in force shows here.');
    await deliver(page, [
      {
        type: 'policy_status',
        team: {
          state: 'unreachable',
          text: 'The team database is unreachable (<img src=x> ECONNREFUSED). Records wait in the outbox.',
        },
        rules: [
          { rule: 'tools.deny "bash"', layer: 'team', decidedBy: 'the team policy (v3, by lead@example.com)' },
          { rule: 'budget.daily_usd: 10', layer: 'user', decidedBy: 'your openagent.policy setting' },
          { rule: 'tools.bash.deny "<b>rm</b>"', layer: 'workspace', decidedBy: '.openagent/agent.yaml' },
        ],
        total: 4,
      },
    ]);
    const team = page.locator('#policy .policy-team');
    assert.equal(await team.getAttribute('data-state'), 'unreachable');
    assert.match(await team.innerText(), /unreachable \(<img src=x> ECONNREFUSED\)/);
    const rows = page.locator('#policy tr.policy-rule');
    assert.deepEqual(await rows.allInnerTexts(), [
      'tools.deny "bash"\tthe team policy (v3, by lead@example.com)',
      'budget.daily_usd: 10\tyour openagent.policy setting',
      'tools.bash.deny "<b>rm</b>"\t.openagent/agent.yaml',
    ]);
    assert.equal(await rows.nth(2).getAttribute('data-layer'), 'workspace');
    assert.equal(await page.locator('#policy img, #policy b').count(), 0, 'rules and reasons are text, never HTML');
    assert.equal(await page.locator('#count-policy').innerText(), '4');
    assert.match(await page.locator('#policy').innerText(), /1 more rule\(s\) are in force but not shown/);

    await deliver(page, [{ type: 'policy_status', rules: [], total: 0 }]);
    assert.equal(await team.getAttribute('data-state'), 'none');
    assert.match(await page.locator('#policy').innerText(), /No team database[\s\S]*No rules are set/);
  });

  it('keeps a long conversation to a bounded number of inspector rows, and filters it', async () => {
    const bodies: AgentEventBody[] = [{ type: 'user_message', text: 'Write a long answer' }];
    for (let index = 0; index < 5_000; index++) bodies.push({ type: 'text_delta', text: `token${index} ` });
    bodies.push({ type: 'done', stopReason: 'end_turn', turns: 1 });
    await deliver(page, [events('lead', ...bodies)]);
    await openTab(page, 'events');
    assert.equal(await page.locator('#events .event-row').count(), 1000);
    assert.equal(await page.locator('#event-count').innerText(), '5,002 events (showing the last 1,000)');
    const { elements } = await countDomNodes(page);
    assert.ok(elements < 15_000, `${elements} elements`);
    await page.locator('#event-text input').fill('token4321');
    await page.waitForFunction(() => document.querySelectorAll('#events .event-row').length === 1);
    assert.equal(await page.locator('#event-count').innerText(), '1 of 5,002 events match');
  });
});
