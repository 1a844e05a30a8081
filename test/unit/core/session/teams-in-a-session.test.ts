import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileTaskStorage } from '../../../../src/node/file-task-storage';
import { FileTeamStorage } from '../../../../src/node/file-team-storage';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { sessionOn } from './session-harness';

const toolNames = (body: unknown) =>
  ((body as { tools?: Array<{ name: string }> }).tools ?? []).map((tool) => tool.name);

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
});
