/**
 * Attack on named approvers (issue 37) through a re-run: `openagent replay ID --from N --yes`
 * runs tools for real, so a call a team approver rule matches must wait for a named approver
 * there too. Before the fix a re-run read only the user's and the place's policy: the team's
 * rule (and the whole team layer) did not apply, and `--yes` wrote the guarded file.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import type { ScenarioInput } from '../fixtures/fake-model-server/scenario';
import { openStore } from '../unit/store/store-helpers';
import { cliArgs, runCli, tempFolder } from '../unit/cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const SCENARIO: ScenarioInput = {
  name: 'rerun-approvers',
  turns: [
    { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'infra/prod.tf', content: 'calm\n' } }] },
    { text: 'Wrote it.' },
    { toolCalls: [{ id: 'w2', name: 'write_file', arguments: { path: 'infra/prod.tf', content: 'DESTROY\n' } }] },
    { text: 'Wrote it again.' },
  ],
};

const TEAM_POLICY = `approvals:
  auto_approve: [write_file]
  approvers:
    - match: { paths: ["infra/**"] }
      by: [alice@corp]
`;

describe('attack: named approvers in a re-run with --yes', function () {
  this.timeout(TEST_TIMEOUT_MS * 2);
  let server: FakeModelServer;
  let workspace: string;
  let storeFolder: string;
  let home: string;
  let id: string;

  before(async () => {
    server = await FakeModelServer.start({ scenario: SCENARIO });
    workspace = tempFolder('rerun-approvers-ws');
    const git = (...args: string[]) =>
      execFileSync('git', args, { cwd: workspace, env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' } });
    git('init', '-q', '-b', 'main');
    fs.mkdirSync(path.join(workspace, 'infra'));
    fs.writeFileSync(path.join(workspace, 'infra/prod.tf'), 'first\n');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'start');
    storeFolder = tempFolder('rerun-approvers-store');
    home = tempFolder('rerun-approvers-home');
    const ran = await runCli([...cliArgs(server, storeFolder), '--yes', 'write prod'], { cwd: workspace, home });
    assert.equal(ran.code, 0, ran.stderr);
    const { store } = await openStore(storeFolder);
    id = (await store.listConversations())[0]!.id;
    await store.close();
    // The team policy as the last run with the team database kept it.
    fs.writeFileSync(path.join(storeFolder, 'team-policy.yaml'), TEAM_POLICY);
  });
  after(() => server?.close());

  it('never writes the guarded file without a named approver, whatever --yes says', async () => {
    const ran = await runCli(
      ['replay', id, '--store', storeFolder, '--base-url', server.openAiBaseUrl, '--from', '2', '--yes'],
      {
        cwd: workspace,
        home,
        env: {
          OPENAGENT_STORE: storeFolder,
          // No database answers there, and no member is set: the call is refused, not put to --yes.
          OPENAGENT_TEAM_DATABASE_URL: 'postgres://nobody@127.0.0.1:9/none',
        },
      },
    );
    const worktree = /Worktree: (.+)/.exec(ran.stdout)?.[1];
    assert.ok(worktree, ran.stdout + ran.stderr);
    assert.equal(fs.readFileSync(path.join(worktree, 'infra/prod.tf'), 'utf8'), 'first\n', ran.stdout);
    assert.match(ran.stdout + ran.stderr, /named approver \(alice@corp\)/);
  });
});
