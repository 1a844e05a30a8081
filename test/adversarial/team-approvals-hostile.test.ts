/**
 * Hostile inputs to named approvals (issue 37), through the adapter the agent and the CLI use:
 * megabytes of command and reason, NUL bytes and lone surrogates, SQL in ids and names, a
 * request id reused by another login. Each is stored bounded, or refused with a clear error;
 * nothing is decided by anyone who may not.
 */
import assert from 'node:assert/strict';
import { TeamApprovalRefusedError, type NewTeamApproval } from '../../src/core/team/team-approvals';
import { PgTeamApprovals } from '../../src/team/pg-team-approvals';
import { TEST_TIMEOUT_MS } from '../harness/patience';
import { uniqueId, useTeamDatabase } from '../unit/team/team-helpers';

describe('team approvals: hostile inputs', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const database = useTeamDatabase();
  let bob: PgTeamApprovals;
  let alice: PgTeamApprovals;
  const opened: PgTeamApprovals[] = [];
  const request = (fields: Partial<NewTeamApproval> = {}): NewTeamApproval => ({
    id: uniqueId('hostile'),
    requester: 'bob@corp',
    conversationId: 'c',
    agentId: 'lead',
    tool: 'bash',
    arguments: { command: 'git push' },
    shown: '$ git push',
    matched: [],
    approvers: ['alice@corp'],
    timeoutMs: 60_000,
    ...fields,
  });

  before(async () => {
    const open = (url: string) => {
      const approvals = new PgTeamApprovals(url);
      opened.push(approvals);
      return approvals;
    };
    bob = open((await database().member('bob')).url);
    alice = open((await database().member('alice')).url);
    const admin = open(database().server.url);
    await admin.setMember({ email: 'bob@corp', login: 'bob', groups: [] });
    await admin.setMember({ email: 'alice@corp', login: 'alice', groups: [] });
  });
  after(async () => {
    for (const approvals of opened) await approvals.close();
  });

  it('bounds megabytes of command, prompt and reason, and stores NULs and lone surrogates replaced', async () => {
    const huge = `git push ${'x'.repeat(3_000_000)}\u0000\ud800`;
    const { record } = await bob.request(
      request({ shown: huge, lastUserMessage: huge, arguments: { command: huge, '\u0000key': '\udc00' } }),
    );
    assert.ok(record.shown.length <= 16_000 && /more characters not shown/.test(record.shown));
    assert.ok(record.lastUserMessage!.length <= 4_000);
    assert.ok(!JSON.stringify(record.arguments).includes('\\u0000'));
    const { won, record: decided } = await alice.decide(record.id, 'deny', `no\u0000${'y'.repeat(1_000_000)}\ud800`);
    assert.equal(won, true);
    assert.ok(decided.reason!.length <= 2_000);
    assert.ok(!decided.reason!.includes('\u0000'));
  });

  it('treats SQL in ids and names as text', async () => {
    const id = `x'); UPDATE approval_requests SET state='approved'; --`;
    const { record } = await bob.request(request({ id, approvers: ['alice@corp', "team:x'--"] }));
    assert.equal(record.id, id);
    assert.equal((await alice.get(id))?.state, 'pending');
    await assert.rejects(alice.decide(`nope' OR '1'='1`, 'approve'), /there is no approval request/);
  });

  it("refuses another login's reuse of a request id, and a timeout past a day", async () => {
    const { record } = await bob.request(request());
    await assert.rejects(
      alice.request(request({ id: record.id, requester: 'alice@corp', approvers: ['bob@corp'] })),
      (error: Error) => {
        assert.ok(error instanceof TeamApprovalRefusedError);
        assert.match(error.message, /exists already/);
        return true;
      },
    );
    await assert.rejects(bob.request(request({ timeoutMs: 2 * 24 * 3600_000 })), /within a day/);
    // The same request sent again by its own login (a lost answer) answers the first.
    const again = await bob.request(request({ id: record.id }));
    assert.equal(again.record.createdAt, record.createdAt);
  });

  it('lets a requester named as approver under another e-mail still not decide its own (same login)', async () => {
    const { record } = await bob.request(
      request({ requester: 'someone-else@corp', approvers: ['bob@corp', 'alice@corp'] }),
    );
    await assert.rejects(bob.decide(record.id, 'approve'), /requester cannot decide its own/);
  });
});
