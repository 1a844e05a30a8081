/**
 * Named approvers end to end (issue 37): real PostgreSQL, real CLI processes, the fake model.
 * bob's agent runs `git push --force`, which the team policy gives to alice@corp and team:leads;
 * other members decide with `openagent team approvals`.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { PgTeamApprovals } from '../../../src/team/pg-team-approvals';
import { PgTeamStore } from '../../../src/team/pg-team-store';
import { TEST_TIMEOUT_MS } from '../../harness/patience';
import { initTeamDatabase, requirePostgres, startPostgres, type PostgresServer } from '../../harness/postgres';
import { cliArgs, eventually, requestBody, runCli, startCli, tempFolder, textOf, type RunningCli } from './cli-helpers';

const PUSH = 'git push --force origin main';

describe('openagent team approvals: named approvers across CLI members on a real PostgreSQL', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let database: PostgresServer;
  let model: FakeModelServer;
  const urls: Record<string, string> = {};

  const as = (member: string, args: string[]) =>
    runCli(['team', ...args], {
      cwd: tempFolder('approver'),
      env: { OPENAGENT_TEAM_DATABASE_URL: urls[member]!, OPENAGENT_TEAM_MEMBER: `${member}@corp` },
    });

  async function setTeamPolicy(text: string): Promise<void> {
    const admin = new PgTeamStore(database.url);
    try {
      await admin.setPolicy(text, 'admin@corp');
    } finally {
      await admin.close();
    }
  }

  /** A workspace whose `origin` is a bare repository beside it (so the push really happens). */
  function repository(): { workspace: string; remote: string } {
    const base = tempFolder('repo');
    const remote = path.join(base, 'remote.git');
    const workspace = path.join(base, 'work');
    const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, stdio: 'pipe' });
    fs.mkdirSync(workspace);
    git(base, 'init', '--bare', '-q', '-b', 'main', remote);
    git(workspace, 'init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(workspace, 'README.md'), 'hello\n');
    git(workspace, 'add', '.');
    git(workspace, '-c', 'user.email=bob@corp', '-c', 'user.name=bob', 'commit', '-q', '-m', 'first');
    git(workspace, 'remote', 'add', 'origin', remote);
    return { workspace, remote };
  }

  const remoteHasMain = (remote: string) => {
    try {
      execFileSync('git', ['rev-parse', '--verify', 'main'], { cwd: remote, stdio: 'pipe' });
      return true;
    } catch {
      return false;
    }
  };

  function bobAsks(workspace: string, extraEnv: Record<string, string> = {}): RunningCli {
    model.setScenario({
      name: 'push',
      turns: [
        { text: 'Pushing.', toolCalls: [{ id: 'call_push', name: 'bash', arguments: { command: PUSH } }] },
        { text: 'Done with the push.' },
      ],
    });
    return startCli([...cliArgs(model, tempFolder('store')), '--sandbox', 'off', 'push my branch, force it'], {
      cwd: workspace,
      env: { OPENAGENT_TEAM_DATABASE_URL: urls.bob!, OPENAGENT_TEAM_MEMBER: 'bob@corp', ...extraEnv },
    });
  }

  /** The id of the one request waiting for `member`, once it is there. */
  async function pendingId(member: string): Promise<string> {
    let id: string | undefined;
    const deadline = Date.now() + 30_000;
    while (!id) {
      const listed = await as(member, ['approvals']);
      assert.equal(listed.code, 0, listed.stderr);
      id = /^(\S{36})\s+bob@corp\s+bash\s+\$ git push --force/m.exec(listed.stdout)?.[1];
      if (!id && Date.now() > deadline) throw new Error(`nothing waits for ${member}: ${listed.stdout}`);
    }
    return id;
  }

  /** What the model was told the tool call returned. */
  const toolResult = () =>
    textOf(
      requestBody(model.modelCalls.at(-1)).messages.find((message) => message.role === 'tool') ?? {
        role: '',
        content: '',
      },
    );

  before(async function () {
    requirePostgres(this);
    database = await startPostgres();
    await initTeamDatabase(database.url);
    for (const name of ['bob', 'alice', 'carol', 'mallory']) urls[name] = await database.createMember(name);
    const directory = new PgTeamApprovals(database.url);
    await directory.setMember({ email: 'bob@corp', login: 'bob', groups: [] });
    await directory.setMember({ email: 'alice@corp', login: 'alice', groups: [] });
    await directory.setMember({ email: 'carol@corp', login: 'carol', groups: ['leads'] });
    await directory.close();
    model = await FakeModelServer.start({ scenario: { name: 'empty', turns: [] } });
  });
  after(async () => {
    await model?.close();
    await database?.dispose();
  });

  it('waits for alice, refuses bob and a non-member, and runs the push once alice approves', async () => {
    await setTeamPolicy(
      'approvals:\n  approvers:\n    - match: { bash: ["git push*"] }\n      by: [alice@corp, team:leads]\n      timeout: 30m\n',
    );
    const { workspace, remote } = repository();
    const bob = bobAsks(workspace);
    await eventually(() => /waiting for alice@corp, team:leads/.test(bob.stderr), 'bob waiting');
    const id = await pendingId('alice');
    assert.equal(model.modelCalls.length, 1, 'no model call while waiting');

    const own = await as('bob', ['approvals', 'approve', id, '--reason', 'trust me']);
    assert.equal(own.code, 1);
    assert.match(own.stderr, /refused by the team database: the requester cannot decide its own approval request/);
    const stranger = await as('mallory', ['approvals', 'approve', id]);
    assert.equal(stranger.code, 1);
    assert.match(stranger.stderr, /not a named approver/);
    assert.ok(!remoteHasMain(remote), 'nothing pushed yet');

    const approved = await as('alice', ['approvals', 'approve', id, '--reason', 'release day']);
    assert.equal(approved.code, 0, approved.stderr);
    assert.match(approved.stdout, /approved \(by alice@corp\)/);
    const ran = await bob.finished;
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stderr, /approved by alice@corp: release day/);
    assert.ok(remoteHasMain(remote), 'the push ran');
    assert.doesNotMatch(toolResult(), /denied/i);
    // The audit trail (written locally, then sent to the team's) says who decided, when and why.
    let audited: Array<Record<string, unknown>> = [];
    for (let tries = 0; tries < 100 && audited.length === 0; tries++) {
      audited = await database.query(
        `SELECT member, data->'teamApproval' AS team, data->'approval' AS approval FROM audit
         WHERE kind = 'tool_call' AND data->'teamApproval'->>'requestId' = $1`,
        [id],
      );
      if (!audited.length) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(audited.length, 1);
    assert.equal(audited[0]!.member, 'bob@corp');
    assert.deepEqual(
      { ...(audited[0]!.team as Record<string, unknown>), decidedAt: 0 },
      {
        requestId: id,
        approvers: ['alice@corp', 'team:leads'],
        state: 'approved',
        decidedBy: 'alice@corp',
        decidedAt: 0,
        reason: 'release day',
      },
    );
    assert.match(JSON.stringify(audited[0]!.approval), /approved by alice@corp: release day/);
    const again = await as('carol', ['approvals', 'deny', id, '--reason', 'late']);
    assert.equal(again.code, 1);
    assert.match(again.stderr, /already approved by alice@corp/);
  });

  it('gives the model the reason when a lead denies', async () => {
    const { workspace, remote } = repository();
    const bob = bobAsks(workspace);
    const id = await pendingId('carol');
    const noReason = await as('carol', ['approvals', 'deny', id]);
    assert.equal(noReason.code, 2);
    const denied = await as('carol', ['approvals', 'deny', id, '--reason', 'not before the release']);
    assert.equal(denied.code, 0, denied.stderr);
    const ran = await bob.finished;
    assert.equal(ran.code, 0, ran.stderr);
    assert.ok(!remoteHasMain(remote));
    assert.match(toolResult(), /denied.*carol@corp denied it: not before the release/);
    assert.match(ran.stderr, /denied by carol@corp: not before the release/);
  });

  it('denies when nobody decides before the timeout', async () => {
    await setTeamPolicy(
      'approvals:\n  approvers:\n    - match: { bash: ["git push*"] }\n      by: [alice@corp]\n      timeout: 2s\n',
    );
    const { workspace, remote } = repository();
    const ran = await bobAsks(workspace).finished;
    assert.equal(ran.code, 0, ran.stderr);
    assert.ok(!remoteHasMain(remote));
    assert.match(toolResult(), /no named approver \(alice@corp\) decided in time/);
    assert.match(ran.stderr, /no answer from alice@corp in time: denied/);
  });

  it('refuses at once when no named approver is in the directory, naming them', async () => {
    await setTeamPolicy(
      'approvals:\n  approvers:\n    - match: { bash: ["git push*"] }\n      by: [ghost@corp, team:nobody]\n',
    );
    const { workspace, remote } = repository();
    const ran = await bobAsks(workspace).finished;
    assert.equal(ran.code, 0, ran.stderr);
    assert.ok(!remoteHasMain(remote));
    assert.match(toolResult(), /no named approver can decide this request.*unknown: ghost@corp, team:nobody/);
  });

  it('warns when the team policy names approvers the directory does not know', async () => {
    const file = path.join(tempFolder('policy'), 'agent.yaml');
    fs.writeFileSync(
      file,
      'approvals:\n  approvers:\n    - match: { tools: [write_file] }\n      by: [alice@corp, zed@corp, team:ops]\n',
    );
    const set = await runCli(['team', 'policy', 'set', file], {
      cwd: tempFolder('admin'),
      env: { OPENAGENT_TEAM_DATABASE_URL: database.url, OPENAGENT_TEAM_MEMBER: 'admin@corp' },
    });
    assert.equal(set.code, 0, set.stderr);
    assert.match(
      set.stderr,
      /warning: approvals\.approvers names 2 approvers the member directory does not know: zed@corp, team:ops/,
    );
  });
});
