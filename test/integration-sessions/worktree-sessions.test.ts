/**
 * Sessions side by side in the real editor (issue 33): three sessions, each in a git worktree of
 * its own, started one after another and waiting for approvals at the same time; each writes the
 * same file differently and runs a command (allowed by the user's policy); write approvals name
 * their session; each change lands only
 * in its own worktree. Then one is applied (merged into the workspace), one kept (its branch
 * stays, its folder goes), and Discard of the third asks before removing anything: the
 * workspace ends with exactly the applied change: its modal question is answered Cancel, as the
 * user sees it. (The discard itself is proven in the unit tests of the worktrees port.)
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ScenarioInput } from '../fixtures/fake-model-server/scenario';
import {
  activateOpenAgent,
  clickDialog,
  closeAllEditors,
  answerQuickInput,
  clickNotification,
  FakeModelControl,
  sendChatPrompt,
  waitFor,
} from '../integration/helpers';

const NAMES = ['Alpha', 'Beta', 'Gamma'] as const;
const greet = (name: string) => `export function greet() {\n  return 'hello from ${name.toLowerCase()}';\n}\n`;

/**
 * Each session's prompt gets one answer with two calls: write src/greet.js its own way and run a
 * command that says where it runs. What follows a tool result (no user text to match) is the
 * echo: any session may get any of those, so the sessions can run in any order, at once.
 */
function scenario(): ScenarioInput {
  return {
    name: 'three sessions',
    turns: NAMES.map((name) => ({
      match: `${name.toLowerCase()} task`,
      toolCalls: [
        { id: `write_${name}`, name: 'write_file', arguments: { path: 'src/greet.js', content: greet(name) } },
        { id: `bash_${name}`, name: 'bash', arguments: { command: `pwd > where-${name}.txt` } },
      ],
    })),
    whenExhausted: 'echo',
  };
}

describe('sessions side by side in git worktrees', function () {
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const worktreesFolder = process.env.OPENAGENT_TEST_WORKTREES!;
  const model = FakeModelControl.fromEnv('OPENAGENT_TEST_MODEL');
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8' }).trim();
  const original = fs.readFileSync(path.join(root, 'src', 'greet.js'), 'utf8');
  /** The session the first test leaves in its worktree (Discard was not confirmed). */
  let gammaId: string | undefined;

  before(async () => {
    await activateOpenAgent();
    await model.clearRequests();
    await vscode.commands.executeCommand('openagent.focusChat');
    await model.setScenario(scenario());
  });

  it('runs three worktree sessions at once, then applies one, keeps one, and Discard asks first', async () => {
    const sessions: Record<string, { id: string; root: string }> = {};
    for (const name of NAMES) {
      const id = await vscode.commands.executeCommand<string | undefined>('openagent.newSession', {
        name,
        where: 'worktree',
      });
      assert.ok(id, `the session ${name} started`);
      const folder = path.join(
        worktreesFolder,
        fs.readdirSync(worktreesFolder).find((entry) => entry.includes(name.toLowerCase()))!,
      );
      sessions[name] = { id, root: fs.realpathSync(folder) };
      assert.equal(git('-C', folder, 'branch', '--show-current'), `openagent/${name.toLowerCase()}`);
      // The chat shows the new session: the prompt goes to it, and it stops at its approval
      // while the next session starts.
      await sendChatPrompt(`${name.toLowerCase()} task: change greet`);
    }
    // Each prompt reached the model from its own session, whose system prompt names its worktree.
    let calls: Awaited<ReturnType<typeof model.modelCalls>> = [];
    await waitFor(async () => (calls = await model.modelCalls()).length >= NAMES.length, 'a model call per session');
    for (const name of NAMES) {
      const call = calls.find((request) => JSON.stringify(request.body).includes(`${name.toLowerCase()} task`));
      assert.ok(
        call,
        `${name}'s prompt was sent: ${calls.map((request) => JSON.stringify(request.body).slice(-300)).join('\n')}`,
      );
      assert.ok(
        JSON.stringify(call.body).includes(sessions[name]!.root),
        `${name}'s system prompt names its worktree ${sessions[name]!.root}`,
      );
    }
    // Three sessions wait at once, each approval naming its session.
    // An approval shown a while ago has left the screen for the notification center: answered there.
    for (const name of NAMES) {
      await vscode.commands.executeCommand('notifications.showList');
      await clickNotification(`OpenAgent (session “${name}”) wants to write src/greet.js`, 'Approve');
    }
    for (const name of NAMES) {
      const where = path.join(sessions[name]!.root, `where-${name}.txt`);
      // The shell makes the file before pwd writes into it: wait for what it wrote.
      await waitFor(
        () => fs.existsSync(where) && fs.readFileSync(where, 'utf8').trim() !== '',
        `${name}'s command to run in its worktree`,
      );
      assert.equal(fs.readFileSync(where, 'utf8').trim(), sessions[name]!.root, 'the command ran in the worktree');
      assert.equal(fs.readFileSync(path.join(sessions[name]!.root, 'src', 'greet.js'), 'utf8'), greet(name));
    }
    // Nothing landed in the workspace.
    assert.equal(fs.readFileSync(path.join(root, 'src', 'greet.js'), 'utf8'), original);
    assert.deepEqual(
      NAMES.filter((name) => fs.existsSync(path.join(root, `where-${name}.txt`))),
      [],
      'no command wrote into the workspace',
    );

    // Alpha applied: merged into the workspace, its branch kept.
    const applied = vscode.commands.executeCommand('openagent.applySession', sessions.Alpha!.id);
    await answerQuickInput('Apply the session', 'Merge', { pick: true });
    await clickNotification('“Alpha” was merged', 'Keep Branch');
    await applied;
    await waitFor(() => !fs.existsSync(sessions.Alpha!.root), 'Alpha’s worktree folder removed after Keep Branch');
    assert.equal(fs.readFileSync(path.join(root, 'src', 'greet.js'), 'utf8'), greet('Alpha'));
    assert.equal(fs.readFileSync(path.join(root, 'where-Alpha.txt'), 'utf8').trim(), sessions.Alpha!.root);

    // Beta kept: its branch holds its work, its folder is gone.
    await vscode.commands.executeCommand('openagent.keepSessionBranch', sessions.Beta!.id);
    assert.ok(!fs.existsSync(sessions.Beta!.root));
    assert.equal(git('show', 'openagent/beta:src/greet.js') + '\n', greet('Beta'));

    // Gamma: Discard asks first, in a modal question: Cancel, and nothing is removed.
    const discarded = vscode.commands.executeCommand('openagent.discardSession', sessions.Gamma!.id);
    await clickDialog('Discard the session “Gamma”?', 'Cancel');
    await discarded;
    assert.equal(fs.readFileSync(path.join(sessions.Gamma!.root, 'src', 'greet.js'), 'utf8'), greet('Gamma'));
    assert.equal(git('branch', '--list', 'openagent/gamma').replace(/^[*+ ]+/, ''), 'openagent/gamma');

    // The workspace holds exactly the applied change.
    assert.equal(fs.readFileSync(path.join(root, 'src', 'greet.js'), 'utf8'), greet('Alpha'));
    assert.deepEqual(
      NAMES.filter((name) => fs.existsSync(path.join(root, `where-${name}.txt`))),
      ['Alpha'],
    );
    assert.equal(git('status', '--porcelain'), '', 'the merge left nothing uncommitted');
    assert.match(git('log', '-1', '--format=%s'), /OpenAgent session: Alpha/);
    gammaId = sessions.Gamma!.id;
  });

  it("applying a session that conflicts with what was applied opens VS Code's merge editor", async () => {
    assert.ok(gammaId, 'the first test left Gamma in its worktree');
    // Gamma changed the same line Alpha's merge changed: the merge stops with conflicts.
    const applied = vscode.commands.executeCommand('openagent.applySession', gammaId);
    await answerQuickInput('Apply the session', 'Merge', { pick: true });
    await applied;
    const greetFile = path.join(root, 'src', 'greet.js');
    assert.match(fs.readFileSync(greetFile, 'utf8'), /^<<<<<<< /m, 'git left the conflict in the file');
    await waitFor(() => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input as { result?: vscode.Uri } | undefined;
      return input?.result?.fsPath === fs.realpathSync(greetFile) || input?.result?.fsPath === greetFile;
    }, 'the merge editor open on src/greet.js');
    await closeAllEditors();
    git('merge', '--abort');
    assert.equal(
      fs.readFileSync(greetFile, 'utf8'),
      greet('Alpha'),
      'aborting the merge brings back the applied change',
    );
  });

  it("a worktree session's mentions and Show Details read its own files, not the workspace's", async () => {
    const id = await vscode.commands.executeCommand<string | undefined>('openagent.newSession', {
      name: 'Delta',
      where: 'worktree',
    });
    assert.ok(id, 'the session Delta started');
    const folder = fs.realpathSync(
      path.join(
        worktreesFolder,
        fs.readdirSync(worktreesFolder).find((entry) => entry.includes('delta'))!,
      ),
    );
    // The worktree's own copy differs from the workspace's: an uncommitted change of its own.
    fs.writeFileSync(path.join(folder, 'src', 'greet.js'), greet('Delta'));
    await model.clearRequests();
    await model.setScenario({
      name: 'delta',
      turns: [
        {
          match: 'delta mentions',
          toolCalls: [
            { id: 'write_delta', name: 'write_file', arguments: { path: 'src/greet.js', content: greet('Delta 2') } },
          ],
        },
      ],
      whenExhausted: 'echo',
    });
    await sendChatPrompt('delta mentions: @file:src/greet.js and @git');
    let calls: Awaited<ReturnType<typeof model.modelCalls>> = [];
    await waitFor(async () => (calls = await model.modelCalls()).length >= 1, 'the prompt to reach the model');
    const sent = JSON.stringify(calls[0]!.body);
    // The file whole (a diff's lines start with + or -): the worktree's copy, not the workspace's.
    assert.ok(sent.includes(JSON.stringify(greet('Delta')).slice(1, -1)), "@file attached the worktree's greet.js");
    assert.match(
      sent,
      /\+\s*return 'hello from delta'/,
      `@git attached the worktree's uncommitted diff: ${JSON.stringify((calls[0]!.body as { messages: unknown[] }).messages).slice(0, 3000)}`,
    );

    // Show Details on Delta's write: "current" is the worktree's file.
    await vscode.commands.executeCommand('notifications.showList');
    await clickNotification('OpenAgent (session “Delta”) wants to write src/greet.js', 'Show Details');
    let current = '';
    await waitFor(async () => {
      const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
      if (!(input instanceof vscode.TabInputTextDiff)) return false;
      current = (await vscode.workspace.openTextDocument(input.original)).getText();
      return true;
    }, 'the diff of the proposed write');
    assert.equal(current, greet('Delta'), "the diff's current side is the worktree's file");
    await closeAllEditors();
    await vscode.commands.executeCommand('notifications.showList');
    await clickNotification('OpenAgent (session “Delta”) wants to write src/greet.js', 'Deny');
  });
});
