/**
 * Sessions side by side in the real editor (issue 33), as a user meets them: the packaged
 * extension in code-server, driven through the workbench with Playwright. Three sessions are
 * started one after another through the UI (the palette's "OpenAgent: New Session" and the
 * Sessions view's title button, answering its name box and "In a new worktree"), each in a git
 * worktree of its own, and run at once against the fake model: each writes src/greet.js its own
 * way (an approval whose notification names the session) and runs a command (allowed by the
 * user's policy). Each change lands only in its own worktree. Then, from the Sessions view's
 * context menu: Alpha is applied (merged into the workspace), Beta's branch kept (its folder
 * goes), and Gamma discarded through the real modal dialog (which, unlike in the integration
 * tests, the workbench shows): the workspace ends with exactly Alpha's change. A screenshot of
 * the list with a session running, one waiting for the user and one done is kept for the README.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Frame, Locator, Page } from 'playwright-core';
import type { ScenarioInput } from '../fixtures/fake-model-server/scenario';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { installVsix } from '../harness/code-server';
import { TEST_TIMEOUT_MS, waitUntil } from '../harness/patience';
import { projectRoot, WorkbenchSession } from '../harness/workbench-session';
import { API_KEY, openChat, screenshot, send, VSIX } from './chat-helpers';
import {
  chooseInQuickPick,
  clickNotificationButton,
  findWebviewFrame,
  runCommand,
  waitForNotification,
} from './workbench-ui';

const NAMES = ['Alpha', 'Beta', 'Gamma'] as const;
type Name = (typeof NAMES)[number];
const greet = (name: string) => `export function greet() {\n  return 'hello from ${name.toLowerCase()}';\n}\n`;
const approvalText = (name: Name) => `OpenAgent (session “${name}”) wants to write src/greet.js`;

/**
 * Each session's prompt gets one answer with two calls: write src/greet.js its own way and run a
 * command that says where it runs. What follows a tool result carries no user text to match:
 * those get the echo, so the sessions can run in any order, at once.
 */
const SCENARIO: ScenarioInput = {
  name: 'three sessions',
  turns: NAMES.map((name) => ({
    match: `${name.toLowerCase()} task`,
    text: `Changing the greeting for ${name}.`,
    toolCalls: [
      { id: `write_${name}`, name: 'write_file', arguments: { path: 'src/greet.js', content: greet(name) } },
      { id: `bash_${name}`, name: 'bash', arguments: { command: `pwd > where-${name}.txt` } },
    ],
  })),
  whenExhausted: 'echo',
};

/** A follow-up slow enough (about 45 s) to photograph its session running. */
const SLOW_FOLLOW_UP: ScenarioInput = {
  name: 'a slow follow-up',
  turns: [
    {
      text:
        'The greeting now says hello from beta, and the command wrote where it ran. ' +
        'Both changes are in this session’s own worktree, on the branch openagent/beta: ' +
        'the workspace and the other sessions do not see them until you apply this one. ' +
        'Review shows them side by side with the commit the session started from, ' +
        'and Keep Branch or Discard ends the session when you are done with it.',
      chunkSize: 4,
      delayMs: 500,
    },
  ],
  whenExhausted: 'echo',
};

describe('sessions side by side in git worktrees (packaged extension, real VS Code UI)', function () {
  this.timeout(TEST_TIMEOUT_MS * 2);
  let fake: FakeModelServer;
  let session: WorkbenchSession;
  let worktreesFolder: string;
  let page: Page | undefined;

  before(async () => {
    if (!fs.existsSync(VSIX)) throw new Error(`${VSIX} is missing: run "npm run package" first`);
    fake = await FakeModelServer.start({ scenario: SCENARIO });
    worktreesFolder = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'openagent-e2e-worktrees-'));
    session = await WorkbenchSession.start({
      workspace: 'sample',
      settings: {
        'openagent.provider': 'anthropic',
        'openagent.model': 'fake-model',
        'openagent.baseUrl': fake.anthropicBaseUrl,
        'openagent.worktreesFolder': worktreesFolder,
        // Commands run without asking, so each session's write approval is the one that waits.
        'openagent.policy': { approvals: { auto_approve: ['bash'] } },
      },
      env: { ANTHROPIC_API_KEY: API_KEY, OPENAI_API_KEY: undefined, OPENAGENT_API_KEY: undefined },
      prepare: ({ userDataDir, extensionsDir, workspaceDir }) => {
        installVsix(VSIX, extensionsDir, userDataDir);
        makeRepository(workspaceDir);
      },
    });
  });
  afterEach(async function () {
    if (this.currentTest?.state === 'failed' && page) {
      await screenshot(page, 'sessions-worktrees-failure.png').catch(() => undefined);
      console.log(session.diagnostics());
    }
  });
  after(async () => {
    await session?.stop();
    await fake?.close();
    if (worktreesFolder) fs.rmSync(worktreesFolder, { recursive: true, force: true });
  });

  it('runs three worktree sessions at once, then applies one, keeps one and discards one', async () => {
    const root = session.workspaceDir;
    const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
    const original = fs.readFileSync(path.join(root, 'src', 'greet.js'), 'utf8');
    const opened = await openChat(session);
    page = opened.page;
    const chat = opened.chat;
    const list = sessionsList(page);

    // Started one after another: from the palette, the Sessions view's title button, the palette.
    const folders: Partial<Record<Name, string>> = {};
    for (const name of NAMES) {
      if (name === 'Beta') await clickViewTitleButton(page, 'Sessions', 'New Session');
      else await runCommand(page, 'OpenAgent: New Session');
      await answerNewSession(page, name);
      const row = list.row(name);
      await row.waitFor();
      const folder = await waitUntil(
        () => fs.readdirSync(worktreesFolder).find((entry) => entry.toLowerCase().includes(name.toLowerCase())),
        `${name}'s worktree folder in ${worktreesFolder}`,
      );
      folders[name] = fs.realpathSync(path.join(worktreesFolder, folder));
      assert.equal(git('-C', folders[name]!, 'branch', '--show-current'), `openagent/${name.toLowerCase()}`);
      // The new session is the one the chat shows: the prompt goes to it, and it stops at its
      // approval (named after it) while the next one starts.
      await waitUntil(async () => (await list.description(name)).startsWith('shown'), `${name} shown in the chat`);
      await send(await chatFrame(chat), `${name.toLowerCase()} task: change greet`);
      await waitForNotification(page, approvalText(name));
      await list.waitForState(name, 'waiting for you');
    }

    // Three sessions wait at once, each approval naming its session (all of them in the
    // notification center, where toasts go after a while).
    await runCommand(page, 'Notifications: Show Notifications');
    const approvals = page.locator('.notifications-center .notification-list-item', { hasText: 'wants to write' });
    await waitUntil(async () => (await approvals.count()) === 3, 'three approvals in the notification center');
    assert.deepEqual(
      (await approvals.allInnerTexts()).map((text) => /session “(\w+)”/.exec(text)?.[1]).sort(),
      [...NAMES],
      'each approval names its session',
    );
    for (const name of NAMES) await list.waitForState(name, 'waiting for you');
    // Each model call came from its own session, whose system prompt names its worktree.
    for (const name of NAMES) {
      const call = fake.modelCalls.find((request) =>
        JSON.stringify(request.body).includes(`${name.toLowerCase()} task`),
      );
      assert.ok(call, `${name}'s prompt reached the model`);
      assert.ok(JSON.stringify(call.body).includes(folders[name]!), `${name}'s system prompt names its worktree`);
    }

    // Alpha approved: it writes, runs its command and is done.
    await approveIn(page, 'Alpha');
    await list.waitForState('Alpha', 'done');
    // Beta approved: its next answer streams slowly, so it is running while Gamma still waits.
    fake.setScenario(SLOW_FOLLOW_UP);
    await approveIn(page, 'Beta');
    await waitUntil(
      () => fake.modelCalls.some((request) => JSON.stringify(request.body).includes('where-Beta.txt')),
      'Beta’s command result sent back to the model',
    );
    await list.waitForState('Beta', 'running');
    // The chat shows Beta streaming (clicking its row shows it); the list shows all three states.
    await list.row('Beta').click();
    const betaChat = await chatFrame(chat);
    await betaChat.locator('.turn-assistant', { hasText: 'hello from beta' }).first().waitFor();
    await page.keyboard.press('Escape'); // closes the notification center for a clean picture
    // Alpha's Review (its row's inline button): the branch's changes in the multi-file diff.
    await list.inlineButton('Alpha', 'Review Session Changes');
    const review = page.locator('.tabs-container .tab', { hasText: 'Session “Alpha” (openagent/alpha)' });
    await review.waitFor();
    await page.locator('.editor-group-container', { hasText: 'greet.js' }).first().waitFor();
    await list.waitForState('Gamma', 'waiting for you');
    await list.waitForState('Alpha', 'done');
    await list.waitForState('Beta', 'running');
    await saveSessionsScreenshot(page);
    // Taken while the states held (Beta was still streaming when the picture was taken).
    assert.match(await list.description('Beta'), /running/);
    assert.match(await list.description('Gamma'), /waiting for you/);
    assert.match(await list.description('Alpha'), /done/);

    await approveIn(page, 'Gamma');
    for (const name of NAMES) await list.waitForState(name, 'done');

    // Each change landed only in its own worktree; the commands ran there.
    for (const name of NAMES) {
      const folder = folders[name]!;
      assert.equal(fs.readFileSync(path.join(folder, 'src', 'greet.js'), 'utf8'), greet(name));
      assert.equal(fs.readFileSync(path.join(folder, `where-${name}.txt`), 'utf8').trim(), folder);
      for (const other of NAMES.filter((each) => each !== name))
        assert.ok(
          !fs.existsSync(path.join(folder, `where-${other}.txt`)),
          `${other}'s command stayed out of ${name}'s`,
        );
    }
    assert.equal(fs.readFileSync(path.join(root, 'src', 'greet.js'), 'utf8'), original, 'the workspace is untouched');
    assert.deepEqual(
      NAMES.filter((name) => fs.existsSync(path.join(root, `where-${name}.txt`))),
      [],
      'no command wrote into the workspace',
    );

    // Alpha applied from its row's context menu: merged, then its branch kept.
    await list.contextMenu('Alpha', 'Apply Session to Working Tree');
    await chooseInQuickPick(page, 'Merge');
    await clickNotificationButton(await waitForNotification(page, 'The session “Alpha” was merged'), 'Keep Branch');
    await list.row('Alpha').waitFor({ state: 'detached' });
    await waitUntil(() => !fs.existsSync(folders.Alpha!), 'Alpha’s worktree folder removed');
    assert.equal(fs.readFileSync(path.join(root, 'src', 'greet.js'), 'utf8'), greet('Alpha'));
    assert.equal(fs.readFileSync(path.join(root, 'where-Alpha.txt'), 'utf8').trim(), folders.Alpha);

    // Beta's branch kept: its commit holds its work, its folder is gone.
    await list.contextMenu('Beta', 'Keep Session Branch');
    await list.row('Beta').waitFor({ state: 'detached' });
    await waitUntil(() => !fs.existsSync(folders.Beta!), 'Beta’s worktree folder removed');
    assert.equal(git('show', 'openagent/beta:src/greet.js') + '\n', greet('Beta'));
    assert.equal(git('show', 'openagent/beta:where-Beta.txt'), folders.Beta);
    assert.ok(Number(git('rev-list', '--count', 'main..openagent/beta')) >= 1, 'Beta’s branch has its commit');

    // Gamma discarded: the modal dialog asks; Cancel removes nothing, "Discard" its folder and branch.
    const dialog = page.locator('.monaco-dialog-box', { hasText: 'Discard the session “Gamma”?' });
    await list.contextMenu('Gamma', 'Discard Session');
    await dialog.waitFor();
    await clickNotificationButton(dialog, 'Cancel');
    await dialog.waitFor({ state: 'hidden' });
    await list.row('Gamma').waitFor();
    assert.equal(fs.readFileSync(path.join(folders.Gamma!, 'src', 'greet.js'), 'utf8'), greet('Gamma'));
    assert.equal(git('branch', '--list', '--format=%(refname:short)', 'openagent/gamma'), 'openagent/gamma');
    await list.contextMenu('Gamma', 'Discard Session');
    await dialog.waitFor();
    assert.ok(fs.existsSync(folders.Gamma!), 'nothing is removed before the answer');
    await clickNotificationButton(dialog, 'Discard');
    await list.row('Gamma').waitFor({ state: 'detached' });
    await waitUntil(() => !fs.existsSync(folders.Gamma!), 'Gamma’s worktree folder removed');
    assert.equal(git('branch', '--list', 'openagent/gamma'), '', 'Gamma’s branch is gone');

    // The workspace holds exactly the applied change, committed by the merge.
    assert.equal(fs.readFileSync(path.join(root, 'src', 'greet.js'), 'utf8'), greet('Alpha'));
    assert.deepEqual(
      NAMES.filter((name) => fs.existsSync(path.join(root, `where-${name}.txt`))),
      ['Alpha'],
    );
    assert.equal(git('status', '--porcelain'), '', 'the merge left nothing uncommitted');
    assert.match(git('log', '-1', '--format=%s'), /OpenAgent session: Alpha/);
    assert.deepEqual(git('branch', '--list', '--format=%(refname:short)').split('\n').sort(), [
      'main',
      'openagent/alpha',
      'openagent/beta',
    ]);
    assert.equal(
      git('worktree', 'list', '--porcelain').match(/^worktree /gm)?.length,
      1,
      'only the workspace is a worktree',
    );
  });
});

/** The sample workspace as a git repository with one commit, on `main`. */
function makeRepository(workspaceDir: string): void {
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Tester', '-c', 'user.email=tester@example.com', ...args], {
      cwd: workspaceDir,
      stdio: 'ignore',
    });
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'The sample project');
}

/** The chat webview's frame (found again if the workbench replaced it). */
async function chatFrame(known: Frame): Promise<Frame> {
  return known.isDetached() ? findWebviewFrame(known.page(), '#openagent-chat') : known;
}

/** Answers New Session's questions: the name, then "In a new worktree". */
async function answerNewSession(page: Page, name: string): Promise<void> {
  const input = page.locator('.quick-input-widget input');
  await page.locator('.quick-input-widget', { hasText: 'A name for the session' }).waitFor();
  await input.fill(name);
  await input.press('Enter');
  await chooseInQuickPick(page, 'In a new worktree');
}

/** Clicks a button in a view's title bar (shown when the pointer is over the view). */
async function clickViewTitleButton(page: Page, view: string, label: string): Promise<void> {
  const pane = viewPane(page, view);
  await pane.locator('.pane-header').hover();
  await pane.locator(`.pane-header .actions .action-label[aria-label="${label}"]`).click();
}

function viewPane(page: Page, view: string): Locator {
  return page
    .locator('.pane')
    .filter({ has: page.locator('.pane-header .title', { hasText: new RegExp(`^${view}$`) }) });
}

/** Clicks Approve on the session's write approval, as a toast or in the notification center. */
async function approveIn(page: Page, name: Name): Promise<void> {
  const shownNow = page.locator('.notification-toast, .notifications-center .notification-list-item', {
    hasText: approvalText(name),
  });
  if (!(await shownNow.isVisible())) await runCommand(page, 'Notifications: Show Notifications');
  await clickNotificationButton(await waitForNotification(page, approvalText(name)), 'Approve');
}

/** The Sessions view's rows: a session's row, its description (state, files, cost), its menu. */
function sessionsList(page: Page) {
  const pane = viewPane(page, 'Sessions');
  const row = (name: string) =>
    pane
      .locator('.monaco-list-row')
      .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^${name}$`) }) })
      .first();
  const description = async (name: string) => (await row(name).locator('.label-description').innerText()).trim();
  return {
    row,
    description,
    async waitForState(name: string, state: string): Promise<void> {
      let last = '';
      await waitUntil(
        async () => (last = await description(name).catch(() => '')).includes(state),
        () => `${name}'s row to say "${state}" (it says "${last}")`,
      );
    },
    async inlineButton(name: string, label: string): Promise<void> {
      await row(name).hover();
      await row(name).locator(`.actions .action-label[aria-label="${label}"]`).click();
    },
    /**
     * Right-clicks the row and clicks `item` in its menu. The workbench ignores a click that comes
     * a moment after the menu opened (faster than a hand moves): until the menu closes on the
     * click, the pointer rests on the item and clicks again.
     */
    async contextMenu(name: string, item: string): Promise<void> {
      await row(name).click({ button: 'right' });
      const menu = page.locator('.context-view .monaco-menu');
      const entry = menu.locator('.action-item', { hasText: item }).first();
      await entry.hover();
      await waitUntil(async () => {
        if (!(await menu.isVisible())) return true;
        await entry.click({ timeout: 5_000 }).catch(() => undefined);
        return menu.waitFor({ state: 'hidden', timeout: 2_000 }).then(
          () => true,
          () => false,
        );
      }, `the menu of ${name} to take the click on "${item}"`);
    },
  };
}

/**
 * The picture of the Sessions list: under test-results/ like every e2e screenshot; with
 * OPENAGENT_UPDATE_README_IMAGES=1 also as the README's docs/images/sessions.png (a normal run
 * leaves the tracked image alone).
 */
async function saveSessionsScreenshot(page: Page): Promise<void> {
  await screenshot(page, 'sessions.png');
  if (process.env.OPENAGENT_UPDATE_README_IMAGES !== '1') return;
  const file = path.join(projectRoot, 'docs', 'images', 'sessions.png');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.copyFileSync(path.join(projectRoot, 'test-results', 'sessions.png'), file);
}
