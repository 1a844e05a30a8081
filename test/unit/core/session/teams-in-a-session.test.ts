import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { TeamData, TeamStorage } from '../../../../src/core/ports';
import { FileTaskStorage } from '../../../../src/node/file-task-storage';
import { FileTeamStorage } from '../../../../src/node/file-team-storage';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { sessionOn } from './session-harness';

const toolNames = (body: unknown) =>
  ((body as { tools?: Array<{ name: string }> }).tools ?? []).map((tool) => tool.name);

/** Team storage whose next write can be held, and that counts the writes in progress. */
class HeldTeamStorage implements TeamStorage {
  inFlight = 0;
  private hold: { arrived: () => void; release: Promise<void> } | undefined;

  constructor(private readonly inner: TeamStorage) {}

  read(teamId: string): Promise<TeamData> {
    return this.inner.read(teamId);
  }

  async update<Result>(
    teamId: string,
    change: (team: TeamData) => { team: TeamData; result: Result },
  ): Promise<Result> {
    this.inFlight++;
    try {
      const hold = this.hold;
      this.hold = undefined;
      hold?.arrived();
      await hold?.release;
      return await this.inner.update(teamId, change);
    } finally {
      this.inFlight--;
    }
  }

  /** The next write waits for `release`; resolves once that write has started. */
  holdNext(release: Promise<void>): Promise<void> {
    return new Promise((arrived) => (this.hold = { arrived, release }));
  }
}

describe('teams in a conversation session (the panel’s Teams switch)', function () {
  this.timeout(30_000);

  it('offers the team tools only while the switch is on; a teammate gets its own loop and tools', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-teams-'));
    const server = await FakeModelServer.start({
      scenario: {
        name: 'switch',
        turns: [
          { match: 'first prompt', text: 'No team yet.' },
          {
            match: 'second prompt',
            toolCalls: [
              { id: 's', name: 'spawn_teammate', arguments: { name: 'alice', role: 'helper', prompt: 'Say hi.' } },
            ],
          },
          { match: 'Say hi', text: 'Hi from alice.' },
          { match: '', text: 'Alice is on it.' },
        ],
      },
    });
    try {
      const { session, events, run } = sessionOn(server, {
        taskStorage: new FileTaskStorage(path.join(dir, 'tasks')),
        teamStorage: new FileTeamStorage(path.join(dir, 'teams')),
      });
      await run('first prompt');
      assert.ok(!toolNames(server.modelCalls[0]!.body).includes('spawn_teammate'), 'off by default');

      session.switches.setTeams(true);
      assert.equal(session.switches.teams, true);
      await run('second prompt');
      const lead = server.modelCalls.find((call) => JSON.stringify(call.body).includes('second prompt'))!;
      assert.ok(toolNames(lead.body).includes('spawn_teammate'));
      let alice: (typeof server.modelCalls)[number] | undefined;
      while (!(alice = server.modelCalls.find((call) => JSON.stringify(call.body).includes('Say hi'))))
        await new Promise((resolve) => setTimeout(resolve, 20));
      assert.match(JSON.stringify(alice.body), /# You are \\"alice\\", a teammate/);
      const offered = toolNames(alice.body);
      assert.ok(offered.includes('send_message') && offered.includes('task_update'), offered.join(', '));
      assert.ok(!offered.includes('spawn_teammate') && !offered.includes('task'), offered.join(', '));
      while (!events.some((event) => event.type === 'teammate_status' && event.status === 'idle'))
        await new Promise((resolve) => setTimeout(resolve, 20));

      // A new conversation starts without a team (the old one's teammates are stopped: see team.test.ts).
      session.reset();
      assert.equal(session.switches.teams, false);
      await session.dispose();
    } finally {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  it('dispose after New Chat waits for the old team: no teammate writes once it has resolved', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-teams-'));
    const server = await FakeModelServer.start({
      scenario: {
        name: 'stopping team',
        turns: [
          {
            match: 'start a team',
            toolCalls: [
              { id: 's', name: 'spawn_teammate', arguments: { name: 'bob', role: 'helper', prompt: 'Say hi.' } },
            ],
          },
          { match: 'Say hi', text: 'Hi from bob.' },
          { match: '', text: 'Bob is on it.' },
        ],
      },
    });
    const teams = new HeldTeamStorage(new FileTeamStorage(path.join(dir, 'teams')));
    try {
      const { session, events, run } = sessionOn(server, {
        taskStorage: new FileTaskStorage(path.join(dir, 'tasks')),
        teamStorage: teams,
      });
      session.switches.setTeams(true);
      await run('start a team');
      while (!events.some((event) => event.type === 'teammate_status' && event.status === 'idle'))
        await new Promise((resolve) => setTimeout(resolve, 20));
      // Idle, bob reads his inbox every few seconds: catch him in the middle of that write.
      let release!: () => void;
      await teams.holdNext(new Promise<void>((resolve) => (release = resolve)));

      // New Chat stops the old conversation's team without waiting; closing the session must wait.
      session.reset();
      let released = false;
      const disposed = session.dispose().then(() => released);
      // Anything dispose does not wait for has settled by now (it is promise callbacks only).
      await new Promise((resolve) => setImmediate(resolve));
      released = true;
      release();
      assert.equal(await disposed, true, 'dispose resolved while a teammate was still writing');
      assert.equal(teams.inFlight, 0, 'no team write in progress');
    } finally {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
