/**
 * Replay and compare in the real editor (issue 34), as a user meets them: the packaged extension
 * in code-server, driven through the workbench with Playwright against the fake model. Two
 * conversations ask the same question; the model reads the same file both times but answers
 * differently the second time. "OpenAgent: Replay Conversation" replays one with recorded tools
 * (no model call) and says it reproduced the run; "Show in Developer Panel" opens the Compare
 * tab. There the two conversations are chosen as A and B: steps aligned, the first point where
 * they part — step 4, the model's answer — highlighted. A screenshot is kept for the README
 * (docs/images/compare.png with OPENAGENT_UPDATE_README_IMAGES=1).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Frame, Page } from 'playwright-core';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { installVsix } from '../harness/code-server';
import { projectRoot, WorkbenchSession } from '../harness/workbench-session';
import { API_KEY, openChat, screenshot, send, VSIX } from './chat-helpers';
import { clickNotificationButton, findWebviewFrame, runCommand, waitForNotification } from './workbench-ui';

const PROMPT = 'What does greet do?';
const read = (id: string) => ({
  text: 'Let me look at it.',
  toolCalls: [{ id, name: 'read_file', arguments: { path: 'src/greet.js' } }],
  usage: { input: 300, output: 40 },
});

describe('replay and compare (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS * 2);
  let fake: FakeModelServer;
  let session: WorkbenchSession;
  let page: Page | undefined;
  let worktreesFolder: string | undefined;

  before(async () => {
    fake = await FakeModelServer.start({
      scenario: {
        name: 'two answers',
        turns: [
          read('toolu_read_1'),
          { text: 'It returns a greeting for a name.', usage: { input: 420, output: 9 } },
          read('toolu_read_2'),
          {
            text: 'It builds a message that says hello, loudly, with the name in capitals.',
            usage: { input: 420, output: 30 },
          },
          // The re-run's live part, from step 3 on, with another model.
          { model: 'fake-model-large', text: 'The large model says: it greets whoever it is given.' },
        ],
      },
    });
    worktreesFolder = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'openagent-e2e-rerun-'));
    session = await WorkbenchSession.start({
      workspace: 'sample',
      settings: {
        'openagent.provider': 'anthropic',
        'openagent.model': 'claude-haiku-4-5',
        'openagent.baseUrl': fake.anthropicBaseUrl,
        'openagent.worktreesFolder': worktreesFolder,
        'workbench.colorTheme': 'Default Dark Modern',
      },
      env: { ANTHROPIC_API_KEY: API_KEY, OPENAI_API_KEY: undefined, OPENAGENT_API_KEY: undefined },
      // A git repository: a re-run works in a worktree at the recorded commit, as a session.
      prepare: ({ userDataDir, extensionsDir, workspaceDir }) => {
        installVsix(VSIX, extensionsDir, userDataDir);
        const git = (...args: string[]) =>
          execFileSync('git', ['-c', 'user.name=Tester', '-c', 'user.email=tester@example.com', ...args], {
            cwd: workspaceDir,
            stdio: 'ignore',
          });
        git('init', '-q', '-b', 'main');
        git('add', '-A');
        git('commit', '-q', '-m', 'The sample project');
      },
    });
  });
  after(async () => {
    await session?.stop();
    await fake?.close();
    if (worktreesFolder) fs.rmSync(worktreesFolder, { recursive: true, force: true });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page) await screenshot(page, 'compare-failure.png');
  });

  it('replays a recorded conversation, then compares two runs with their first divergence highlighted', async () => {
    const opened = await openChat(session);
    page = opened.page;
    const { chat } = opened;
    await send(chat, PROMPT);
    await chat.locator('.turn-assistant', { hasText: 'greeting for a name' }).waitFor();
    await runCommand(page, 'OpenAgent: New Chat');
    await send(chat, PROMPT);
    await chat.locator('.turn-assistant', { hasText: 'says hello, loudly' }).waitFor();
    const callsBefore = fake.modelCalls.length;

    // Replay the newest conversation with recorded tools: reproduced, no model called.
    await runCommand(page, 'OpenAgent: Replay Conversation');
    // Newest first: the second conversation.
    await page.locator('.quick-input-list .monaco-list-row').first().click();
    const toast = await waitForNotification(page, 'reproduced the run (4 of 4 steps, recorded tools)');
    assert.equal(fake.modelCalls.length, callsBefore, 'the replay called no model');
    await clickNotificationButton(toast, 'Show in Developer Panel');
    const panel = await findWebviewFrame(page, '#openagent-panel');
    await panel.locator('vscode-tab-panel[data-tab="compare"]').waitFor({ state: 'visible' });
    await panel.locator('.compare-replay', { hasText: 'the run was reproduced' }).waitFor();
    assert.match(await panel.locator('.compare-same').innerText(), /same thing at every step/);

    // The two conversations side by side: the older as A, the newer as B.
    await chooseRuns(panel);
    await panel.locator('#compare-go').click();
    const first = panel.locator('.compare-steps tr.compare-first');
    await first.waitFor();
    assert.equal(await panel.locator('.compare-steps tr.compare-first').count(), 1);
    const cells = await first.locator('td').allInnerTexts();
    assert.equal(cells[0], '4', `A's step: ${cells.join(' | ')}`);
    assert.match(cells[1]!, /model chat \(claude-haiku-4-5\) "It returns a greeting/);
    assert.equal(cells[3], '4');
    assert.match(cells[4]!, /says hello, loudly/);
    assert.match(
      await panel.locator('.compare-divergence').innerText(),
      /They first part at step 4: the model answered differently/,
    );
    // The steps before it are the same in both runs, and not highlighted.
    const rows = panel.locator('.compare-steps tr.compare-row');
    assert.equal(await rows.count(), 4);
    for (let index = 0; index < 3; index++)
      assert.doesNotMatch((await rows.nth(index).getAttribute('class')) ?? '', /compare-differs/);
    const highlight = await first.evaluate((row) => getComputedStyle(row).outlineStyle);
    assert.equal(highlight, 'solid', 'the first divergence is outlined');
    await first.hover();
    await screenshot(page, 'compare-two-runs.png');
  });

  it('"Re-run from here with…" on step 3 with another model, then Compare shows the original and the re-run', async () => {
    const shown = page!;
    const panel = await findWebviewFrame(shown, '#openagent-panel');
    const callsBefore = fake.modelCalls.length;
    const stepThree = panel.locator('.compare-steps tr.compare-row').nth(2);
    await stepThree.hover();
    await stepThree.locator('.compare-rerun').first().click();
    await quickPickRowLabelled(shown, 'Model: fake-model-large').click();
    await panel.locator('#compare-notice', { hasText: 'Re-ran from step 3' }).waitFor();
    // Only the live part reached the model, under the model chosen.
    const live = fake.modelCalls.slice(callsBefore).map((call) => (call.body as { model: string }).model);
    assert.deepEqual(live, ['fake-model-large']);
    const first = panel.locator('.compare-steps tr.compare-first');
    await first.locator('td', { hasText: 'The large model says' }).waitFor();
    const cells = await first.locator('td').allInnerTexts();
    assert.equal(cells[0], '4', cells.join(' | '));
    assert.match(cells[4]!, /model chat \(fake-model-large\) "The large model says/);
    assert.match(
      await panel.locator('.compare-divergence').innerText(),
      /They first part at step 4: the model answered differently/,
    );
    const rows = panel.locator('.compare-steps tr.compare-row');
    for (let index = 0; index < 3; index++)
      assert.doesNotMatch((await rows.nth(index).getAttribute('class')) ?? '', /compare-differs/, `step ${index + 1}`);
    assert.equal(await panel.locator('#compare-b').inputValue(), await bValue(panel));
    // The re-run is a session of the window, in its own worktree: it is in the Sessions list.
    await shown
      .locator('.pane')
      .filter({ has: shown.locator('.pane-header .title', { hasText: /^Sessions$/ }) })
      .locator('.monaco-list-row .label-name', { hasText: 'Re-run from step 3 (model fake-model-large)' })
      .waitFor();
    assert.ok(
      fs.readdirSync(worktreesFolder!).some((entry) => entry.includes('rerun')),
      'the re-run worked in a worktree',
    );
    // The notes of the re-run (where it worked) are read; the picture is of the comparison.
    await runCommand(shown, 'Notifications: Clear All Notifications');
    await first.hover();
    await saveCompareScreenshot(shown);
  });
});

/** The open quick pick's row whose label starts with `label` (a description may follow). */
function quickPickRowLabelled(page: Page, label: string) {
  return page
    .locator('.quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: label }) })
    .first();
}

/** The conversation B the Compare view shows (its totals' id), as the picker holds it. */
async function bValue(panel: Frame): Promise<string> {
  const short = (await panel.locator('.compare-totals tr').nth(1).locator('td').nth(1).innerText()).trim();
  const values = await panel
    .locator('#compare-b option')
    .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
  return values.find((value) => value.startsWith(short)) ?? `(no option for ${short})`;
}

/** Picks the older conversation as A and the newer as B (the pickers list newest first). */
async function chooseRuns(panel: Frame): Promise<void> {
  const a = panel.locator('#compare-a');
  await a.locator('option:not([value=""])').nth(1).waitFor({ state: 'attached' });
  const ids = await a
    .locator('option:not([value=""])')
    .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value));
  assert.ok(ids.length >= 2, `two recorded conversations listed: ${ids.length}`);
  await a.selectOption(ids[1]!);
  await panel.locator('#compare-b').selectOption(ids[0]!);
}

/**
 * The picture of the Compare tab: under test-results/ like every e2e screenshot; with
 * OPENAGENT_UPDATE_README_IMAGES=1 also as the README's docs/images/compare.png.
 */
async function saveCompareScreenshot(page: Page): Promise<void> {
  await screenshot(page, 'compare.png');
  if (process.env.OPENAGENT_UPDATE_README_IMAGES !== '1') return;
  const file = path.join(projectRoot, 'docs', 'images', 'compare.png');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.copyFileSync(path.join(projectRoot, 'test-results', 'compare.png'), file);
}
