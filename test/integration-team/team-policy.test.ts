/**
 * SPEC 5a in the real editor, against a real PostgreSQL the launcher started: the member sets the
 * team database with "Set Team Database" (kept in SecretStorage), and the team policy's denials
 * hold although the user's settings and the workspace's .openagent/agent.yaml both try to allow
 * and auto-approve what it denies. The audit trail of the refusals reaches the team database.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { RecordedRequest } from '../fixtures/fake-model-server/server';
import { PgTeamStore } from '../../src/team/pg-team-store';
import {
  activateOpenAgent,
  toolResults,
  answerQuickInput,
  FakeModelControl,
  sendChatPrompt,
  waitFor,
} from '../integration/helpers';

const WRITTEN = 'team-denied-write.txt';
const ECHOED = 'team-denied-echo.txt';

interface AnthropicBody {
  tools?: Array<{ name?: string }>;
  messages: Array<{
    content: string | Array<{ type: string; tool_use_id?: string; content?: unknown; is_error?: boolean }>;
  }>;
}

describe('a team policy from the team database (SPEC 5a)', () => {
  const root = vscode.workspace.workspaceFolders![0]!.uri.fsPath;
  const model = FakeModelControl.fromEnv('OPENAGENT_TEST_MODEL');
  const admin = new PgTeamStore(process.env.OPENAGENT_TEST_TEAM_ADMIN_URL!);
  let second: RecordedRequest | undefined;

  after(async () => admin.close());

  it('connects with the URL given to "Set Team Database"', async () => {
    await activateOpenAgent();
    const setting = vscode.commands.executeCommand('openagent.setTeamDatabase');
    await answerQuickInput('PostgreSQL URL', process.env.OPENAGENT_TEST_TEAM_MEMBER_URL!);
    await setting;
    // A policy read through the member's login: the status command shows its version and author.
    const commands = await vscode.commands.getCommands(true);
    assert.ok(commands.includes('openagent.showTeamStatus'));
  });

  it('keeps the team denials although the user and the workspace allow and auto-approve them', async () => {
    const workspacePolicy = fs.readFileSync(path.join(root, '.openagent', 'agent.yaml'), 'utf8');
    assert.match(workspacePolicy, /auto_approve: \[write_file, bash\]/, 'the workspace tries to lift the denials');
    await model.setScenario({
      name: 'team denials',
      turns: [
        {
          match: 'team-probe',
          text: 'Writing a file, then echoing into one.',
          toolCalls: [
            { id: 'toolu_write', name: 'write_file', arguments: { path: WRITTEN, content: 'should not exist' } },
            { id: 'toolu_echo', name: 'bash', arguments: { command: `echo team-denied > ${ECHOED}` } },
          ],
        },
        { text: 'The team policy refused both.' },
      ],
    });
    const api = await activateOpenAgent();
    await vscode.commands.executeCommand('openagent.focusChat');
    await waitFor(() => api.isChatViewReady, 'the chat webview to say it is ready');
    await sendChatPrompt('team-probe: write a file and echo into another');
    await waitFor(
      async () => (second = (await model.requests())[1]) !== undefined,
      "the model's second request, with both tool results (an approval prompt would hang here)",
    );
    const [first] = await model.requests();
    const offered = ((first!.body as AnthropicBody).tools ?? []).map((tool) => tool.name);
    assert.ok(!offered.includes('write_file'), `write_file is offered although the team denies it: ${offered}`);
    assert.ok(offered.includes('bash'));
    const results = toolResults(second!);
    assert.equal(results.get('toolu_write')?.isError, true, results.get('toolu_write')?.text);
    const echo = results.get('toolu_echo');
    assert.equal(echo?.isError, true, echo?.text);
    assert.match(echo!.text, /bash\.deny "echo team-denied\*" in the team policy/);
    await waitFor(() => !api.isRunning, 'the conversation to end');
    for (const file of [WRITTEN, ECHOED])
      assert.equal(fs.existsSync(path.join(root, file)), false, `${file} was written`);
  });

  it('sends the refusals to the team audit trail, as this member', async () => {
    const api = await activateOpenAgent();
    const conversationId = api.conversationId;
    assert.ok(conversationId);
    type Records = Awaited<ReturnType<PgTeamStore['audit']>>;
    let denied: Records = [];
    let models: Records = [];
    // Records are sent as each is stored: wait for all of them, not only the first to arrive.
    await waitFor(async () => {
      const records = (await admin.audit({ since: 0, limit: 1_000 })).filter(
        (record) => record.conversationId === conversationId,
      );
      denied = records.filter(
        (record) =>
          record.kind === 'policy' &&
          /in the team policy/.test(String((record.data as { violation?: string }).violation)),
      );
      models = records.filter((record) => record.kind === 'model_call');
      return denied.length >= 1 && models.length >= 2;
    }, 'the policy violation and both model calls in the team audit trail');
    assert.equal(denied[0]!.member, 'dev@example.com');
    assert.ok(models.every((record) => record.member === 'dev@example.com'));
  });
});
