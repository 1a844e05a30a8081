/**
 * Named approvers in the real editor (issue 37), on the suite's real PostgreSQL, whose team policy
 * gives `git push*` to dev@example.com (this editor's member) and bob@corp. Runs after
 * team-policy.test.ts, which connected the editor to the team database.
 * - The editor approves: bob's CLI (a second process) asks to force-push; the notification
 *   shows in the editor; Approve (with a reason) lets bob's push run; the team's rows name the
 *   editor's member as the decider.
 * - The editor asks: its chat's tool line waits for the approvers; bob approves with
 *   `openagent team approvals approve`; the push runs and the line says who approved it.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { PgTeamApprovals } from '../../src/team/pg-team-approvals';
import { PgTeamStore } from '../../src/team/pg-team-store';
import {
  activateOpenAgent,
  answerQuickInput,
  clickNotification,
  EXTENSION_ID,
  FakeModelControl,
  sendChatPrompt,
  waitFor,
} from '../integration/helpers';

const PUSH = 'git push --force origin main';
const EDITOR = 'dev@example.com';

interface Ran {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The built CLI (dist/cli.js of the extension under test), as bob, in `cwd`. */
function bobsCli(args: string[], cwd: string): { finished: Promise<Ran>; output: () => string } {
  const cli = path.join(vscode.extensions.getExtension(EXTENSION_ID)!.extensionPath, 'dist', 'cli.js');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ELECTRON_RUN_AS_NODE: '1',
    HOME: fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-bob-home-')),
    OPENAGENT_TEAM_DATABASE_URL: process.env.OPENAGENT_TEST_TEAM_BOB_URL!,
    OPENAGENT_TEAM_MEMBER: 'bob@corp',
  };
  for (const key of ['ANTHROPIC_API_KEY', 'OPENAGENT_PROVIDER', 'OPENAGENT_MODEL', 'OPENAGENT_BASE_URL'])
    delete env[key];
  const child = spawn(process.execPath, [cli, ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const ran: Ran = { code: null, stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => (ran.stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (ran.stderr += chunk.toString('utf8')));
  return {
    finished: new Promise((resolve) => child.on('close', (code) => resolve({ ...ran, code }))),
    output: () => ran.stdout + ran.stderr,
  };
}

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=Tester', '-c', 'user.email=tester@example.com', ...args], {
    cwd,
    encoding: 'utf8',
    stdio: 'pipe',
  });
}

/** `folder` becomes a repository whose origin is a bare one at `remote` (so a push really happens). */
function withRemote(folder: string, remote: string): void {
  git(path.dirname(remote), 'init', '--bare', '-q', '-b', 'main', remote);
  if (!fs.existsSync(path.join(folder, '.git'))) git(folder, 'init', '-q', '-b', 'main');
  git(folder, 'add', '-A');
  git(folder, 'commit', '-q', '--allow-empty', '-m', 'work');
  git(folder, 'remote', 'add', 'origin', remote);
}

const remoteHasMain = (remote: string) => {
  try {
    git(remote, 'rev-parse', '--verify', 'main');
    return true;
  } catch {
    return false;
  }
};

/** What the workbench shows, as text (the chat's last lines among it), through the launcher. */
async function screen(): Promise<string> {
  const response = await fetch(`${process.env.OPENAGENT_TEST_DRIVER}/screen`, { method: 'POST' });
  return response.text();
}

describe('named approvers in the editor (issue 37)', () => {
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const model = FakeModelControl.fromEnv('OPENAGENT_TEST_MODEL');
  const admin = new PgTeamStore(process.env.OPENAGENT_TEST_TEAM_ADMIN_URL!);
  const requests = new PgTeamApprovals(process.env.OPENAGENT_TEST_TEAM_ADMIN_URL!);

  after(async () => {
    await Promise.all([admin.close(), requests.close()]);
  });

  it("notifies this member of bob's push; Approve lets it run, and the team's rows name the decider", async () => {
    await activateOpenAgent();
    const base = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-bob-'));
    const work = path.join(base, 'work');
    const remote = path.join(base, 'remote.git');
    fs.mkdirSync(work);
    fs.writeFileSync(path.join(work, 'README.md'), 'bob\n');
    withRemote(work, remote);
    await model.setScenario({
      name: 'bob pushes',
      turns: [
        { text: 'Pushing.', toolCalls: [{ id: 'call_bob_push', name: 'bash', arguments: { command: PUSH } }] },
        { text: 'Pushed.' },
      ],
    });
    const store = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-bob-store-'));
    const bob = bobsCli(
      [
        '--store',
        store,
        '--provider',
        'openai-compatible',
        '--base-url',
        `${model.baseUrl}/v1`,
        '--model',
        'fake-model',
        '--sandbox',
        'off',
        'push my branch, force it',
      ],
      work,
    );
    await waitFor(() => /waiting for dev@example\.com, bob@corp/.test(bob.output()), "bob's agent waiting");
    assert.ok(!remoteHasMain(remote), 'nothing pushed before a decision');
    await clickNotification("bob@corp's agent wants to run", 'Approve');
    await answerQuickInput('a reason, if you like', 'release day');
    const ran = await bob.finished;
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stderr, /approved by dev@example\.com: release day/);
    assert.ok(remoteHasMain(remote), 'the push ran');

    let audited: Array<{ member?: string; data: unknown }> = [];
    await waitFor(async () => {
      audited = (await admin.audit({ since: 0, limit: 1_000 })).filter(
        (record) =>
          record.kind === 'tool_call' &&
          (record.data as { teamApproval?: { state?: string } }).teamApproval?.state === 'approved' &&
          record.member === 'bob@corp',
      );
      return audited.length === 1;
    }, "bob's audited push in the team audit trail");
    const team = (audited[0]!.data as { teamApproval: { requestId: string; decidedBy: string; reason: string } })
      .teamApproval;
    assert.equal(team.decidedBy, EDITOR);
    assert.equal(team.reason, 'release day');
    const request = await requests.get(team.requestId);
    assert.equal(request?.state, 'approved');
    assert.equal(request?.decidedBy, EDITOR);
    assert.equal(request?.requester, 'bob@corp');
  });

  it('shows its own push waiting on the tool line until bob approves it from the CLI', async () => {
    const remote = path.join(root, '.push-remote.git');
    withRemote(root, remote);
    fs.appendFileSync(path.join(root, '.git', 'info', 'exclude'), '.push-remote.git/\n');
    await model.setScenario({
      name: 'the editor pushes',
      turns: [
        {
          text: 'Pushing.',
          toolCalls: [{ id: 'toolu_editor_push', name: 'bash', arguments: { command: PUSH } }],
        },
        { text: 'Pushed after bob approved.' },
      ],
    });
    const api = await activateOpenAgent();
    await vscode.commands.executeCommand('openagent.newChat');
    await vscode.commands.executeCommand('openagent.focusChat');
    await waitFor(() => api.isChatViewReady, 'the chat webview to say it is ready');
    await sendChatPrompt('push-from-editor: force-push main');
    let shown = '';
    await waitFor(
      async () => /Waiting for dev@example\.com, bob@corp \(until \d\d:\d\d/.test((shown = await screen())),
      'the tool line waiting for the named approvers',
    );
    assert.ok(api.isRunning, 'the run waits');
    assert.ok(!remoteHasMain(remote), 'nothing pushed while waiting');
    const bobs = new PgTeamApprovals(process.env.OPENAGENT_TEST_TEAM_BOB_URL!);
    let id: string | undefined;
    try {
      await waitFor(async () => {
        id = (await bobs.pendingForMe()).find((record) => record.requester === EDITOR)?.id;
        return id !== undefined;
      }, "the editor's request among bob's pending ones");
    } finally {
      await bobs.close();
    }
    const approved = await bobsCli(['team', 'approvals', 'approve', id!, '--reason', 'go ahead'], root).finished;
    assert.equal(approved.code, 0, approved.stderr);
    await waitFor(() => !api.isRunning, 'the run to end after the approval');
    assert.ok(remoteHasMain(remote), 'the push ran');
    await waitFor(
      async () => /approved by bob@corp: go ahead/.test((shown = await screen())),
      `the tool line naming bob as the approver (on screen: ${shown.slice(-400)})`,
    );
    assert.match(shown, /Ran/);
  });
});
