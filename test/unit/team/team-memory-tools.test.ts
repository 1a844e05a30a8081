/**
 * The agent's team memory tools on a real PostgreSQL: notes written by scope and found again by
 * words, and a note every member's agent reads (team or repository scope) always asked about.
 */
import assert from 'node:assert/strict';
import { CallAssessor, mustAsk } from '../../../src/core/policy/call-risk';
import { createTeamMemoryTools } from '../../../src/core/team/team-memory-tools';
import type { TeamIdentity } from '../../../src/core/team/team-store';
import type { AnyTool } from '../../../src/core/tools/tool';
import { TEST_TIMEOUT_MS } from '../../harness/patience';
import { useTeamDatabase } from './team-helpers';

const context = { conversationId: 'c1', agentId: 'lead', toolCallId: 't1', signal: new AbortController().signal };

async function run(tool: AnyTool, input: unknown): Promise<{ output: string; isError?: boolean }> {
  const result = await tool.execute(tool.inputSchema.parse(input), context);
  return typeof result === 'string' ? { output: result } : result;
}

describe('team memory tools', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const database = useTeamDatabase();

  it('write notes by scope and find them by words; another member’s own notes and another repository’s stay out', async () => {
    const { store: ada } = await database().member('memory_ada');
    const { store: bob } = await database().member('memory_bob');
    const adaIdentity: TeamIdentity = { member: 'ada@example.com', repository: 'github.com/acme/shop' };
    const bobIdentity: TeamIdentity = { member: 'bob@example.com', repository: 'github.com/acme/billing' };
    const [adaSearch, adaWrite] = createTeamMemoryTools(
      () => ada,
      () => adaIdentity,
    );
    const [bobSearch, bobWrite] = createTeamMemoryTools(
      () => bob,
      () => bobIdentity,
    );
    assert.match(
      (await run(adaWrite!, { note: 'Deploys to staging go through the release-train pipeline.', scope: 'team' }))
        .output,
      /team scope/,
    );
    await run(adaWrite!, { note: 'The shop checkout uses the pinned payments SDK 4.2.', scope: 'repository' });
    await run(bobWrite!, { note: 'Bob prefers small pull requests for the checkout work.', scope: 'member' });

    const bobFinds = (await run(bobSearch!, { query: 'staging deploys' })).output;
    assert.match(bobFinds, /release-train pipeline/);
    assert.match(bobFinds, /ada@example\.com/);
    // Ada's repository note is not Bob's repository; Bob's own note is not Ada's.
    assert.doesNotMatch((await run(bobSearch!, { query: 'payments SDK' })).output, /pinned payments/);
    assert.match((await run(adaSearch!, { query: 'payments SDK' })).output, /pinned payments SDK 4\.2/);
    assert.doesNotMatch((await run(adaSearch!, { query: 'pull requests checkout' })).output, /Bob prefers/);
    assert.match((await run(bobSearch!, { query: 'pull requests', scope: 'member' })).output, /Bob prefers/);
    assert.match((await run(adaSearch!, { query: 'nonexistentword' })).output, /No team notes match/);
  });

  it('a team or repository note always asks; a note of the member’s own follows the usual rules', async () => {
    const [, write] = createTeamMemoryTools(
      () => undefined,
      () => ({ member: 'ada@example.com' }),
    );
    const assessor = new CallAssessor(() => undefined);
    for (const scope of ['team', 'repository'] as const) {
      const risk = await assessor.assess(write!, { note: 'x', scope }, 'c1');
      assert.ok(mustAsk(risk), `${scope} scope does not ask`);
      assert.match(risk.reasons.join(' '), /team's shared memory/);
    }
    assert.equal(mustAsk(await assessor.assess(write!, { note: 'x', scope: 'member' }, 'c1')), false);
    assert.equal(write!.needsApproval, true);
  });

  it('says so when no team database is configured, or the workspace has no repository', async () => {
    const [search] = createTeamMemoryTools(
      () => undefined,
      () => ({ member: 'ada@example.com' }),
    );
    assert.deepEqual(await run(search!, { query: 'x' }), { output: 'No team database is configured.', isError: true });
    const { store } = await database().member('memory_norepo');
    const [, noRepo] = createTeamMemoryTools(
      () => store,
      () => ({ member: 'ada@example.com' }),
    );
    const result = await run(noRepo!, { note: 'x', scope: 'repository' });
    assert.equal(result.isError, true);
    assert.match(result.output, /no repository/);
  });
});
