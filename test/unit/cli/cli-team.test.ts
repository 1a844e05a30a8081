/**
 * The CLI's team plane on a real PostgreSQL: a record the team database refuses for what it
 * holds is said on stderr, once, with what it means (kept here, not sent).
 */
import assert from 'node:assert/strict';
import { CliTeam } from '../../../src/cli/cli-team';
import { TEST_TIMEOUT_MS, waitUntil } from '../../harness/patience';
import { openStore, tempDir } from '../store/store-helpers';
import { useTeamDatabase } from '../team/team-helpers';

describe('the CLI on a team database', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const database = useTeamDatabase();

  it('says once that the team database refused a record, and that it stays on this machine', async () => {
    const { server } = database();
    const directory = tempDir();
    const { store } = await openStore(directory);
    const warnings: string[] = [];
    const team = new CliTeam({
      env: {
        OPENAGENT_TEAM_DATABASE_URL: await server.createMember('cli_member'),
        OPENAGENT_TEAM_MEMBER: 'ada@example.com',
      },
      root: directory,
      storeDirectory: directory,
      outbox: async () => store,
      warn: (message) => warnings.push(message),
    });
    try {
      await team.refresh();
      const stamp = team.stamp()!;
      const audit = (id: string, time: number) =>
        store.recordAudit({ id, conversationId: 'c1', time, kind: 'tool_call', data: { command: 'ls' }, team: stamp });
      // A time PostgreSQL cannot hold: refused for what it holds.
      await audit('far', 8.64e15);
      await audit('fine', Date.now());
      team.kick();
      await waitUntil(
        () => warnings.some((warning) => /refused/.test(warning)),
        () =>
          `the refusal to be said (said: ${JSON.stringify(warnings)}, status: ${JSON.stringify(team.current()?.status)})`,
      );
      await waitUntil(async () => (await store.teamOutbox(100)).length === 0, 'the outbox emptied');
      team.kick();
      await new Promise((resolve) => setTimeout(resolve, 300));
      const said = warnings.filter((warning) => /refused/.test(warning));
      assert.equal(said.length, 1, said.join('\n'));
      assert.match(
        said[0]!,
        /^openagent: The team database refused 1 record for what it holds: kept on this machine, not sent \(/,
      );
    } finally {
      await team.close();
    }
  });
});
