/**
 * The requesting gate and the approver's inbox over a real PostgreSQL: delivery without NOTIFY
 * (the poll), the database going away while an agent waits, Stop withdrawing the request.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import type { AgentEventBody } from '../../../src/core/events/events';
import { parseAgentPolicy, type AgentPolicy } from '../../../src/core/policy/agent-policy';
import type { ApprovalGate, ApprovalRequest } from '../../../src/core/policy/approval';
import { NO_RISK } from '../../../src/core/policy/call-risk';
import { ApproverInbox } from '../../../src/core/team/approver-inbox';
import { TeamApprovalGate } from '../../../src/core/team/team-approval-gate';
import type { TeamApprovals } from '../../../src/core/team/team-approvals';
import { PgTeamApprovals } from '../../../src/team/pg-team-approvals';
import { TEST_TIMEOUT_MS } from '../../harness/patience';
import { useTeamDatabase } from './team-helpers';

type TeamEvent = Extract<AgentEventBody, { type: 'team_approval' }>;

async function until<T>(read: () => T | undefined | false, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = read();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** The port with its announcements switched off: only the poll can deliver. */
function deaf(approvals: TeamApprovals): TeamApprovals {
  return new Proxy(approvals, {
    get(target, key) {
      if (key === 'watch') return () => () => undefined;
      const value = Reflect.get(target, key) as unknown;
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

const nobodyLocal: ApprovalGate = {
  request: () => Promise.reject(new Error('the local person must not be asked')),
};

describe('the team approval gate and inbox on a real PostgreSQL', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const database = useTeamDatabase();
  let bob: PgTeamApprovals;
  let alice: PgTeamApprovals;
  let teamPolicy: AgentPolicy;
  const opened: PgTeamApprovals[] = [];

  const setPolicy = (onUnreachable: 'wait' | 'block') => {
    teamPolicy = parseAgentPolicy(
      `approvals:\n  on_unreachable: ${onUnreachable}\n  approvers:\n    - match: { bash: ["git push*"] }\n      by: [alice@corp]\n`,
    ).policy!;
  };

  function gateFor(approvals: TeamApprovals) {
    return new TeamApprovalGate(nobodyLocal, {
      approvals: () => approvals,
      policy: () => teamPolicy,
      root: () => '/work/repo',
      member: () => 'bob@corp',
      lastUserMessage: () => 'push it, key sk-ant-api03-SECRETSECRETSECRET',
      redact: <T>(value: T): T =>
        JSON.parse(JSON.stringify(value).replaceAll('sk-ant-api03-SECRETSECRETSECRET', '[REDACTED]')) as T,
      newId: randomUUID,
      pollMs: 200,
    });
  }

  function ask(gate: TeamApprovalGate, signal = new AbortController().signal) {
    const events: TeamEvent[] = [];
    const request: ApprovalRequest = {
      conversationId: 'c1',
      toolCallId: 'call-1',
      toolName: 'bash',
      input: { command: 'git push --force' },
      summary: 'git push --force',
      argumentsHash: 'hash',
      risk: { ...NO_RISK, command: 'git push --force' },
      signal,
      emit: (event) => {
        if (event.type === 'team_approval') events.push(event);
      },
    };
    return { decision: gate.request(request), events };
  }

  before(async function () {
    const server = database().server;
    const open = (url: string) => {
      const approvals = new PgTeamApprovals(url);
      opened.push(approvals);
      return approvals;
    };
    bob = open((await database().member('bob')).url);
    alice = open((await database().member('alice')).url);
    const admin = open(server.url);
    await admin.setMember({ email: 'bob@corp', login: 'bob', groups: [] });
    await admin.setMember({ email: 'alice@corp', login: 'alice', groups: [] });
  });
  after(async () => {
    for (const approvals of opened) await approvals.close();
  });

  it('delivers by the poll alone: the approver sees the request and the agent sees the decision without NOTIFY', async () => {
    setPolicy('wait');
    const { decision, events } = ask(gateFor(deaf(bob)));
    const inbox = new ApproverInbox(deaf(alice), { pollMs: 200 }).start();
    try {
      const added: string[] = [];
      inbox.onChange((_pending, fresh) => added.push(...fresh.map((record) => record.id)));
      const waiting = await until(() => events.find((event) => event.state === 'waiting'), 'waiting');
      await until(() => added.includes(waiting.requestId), 'the inbox to see it');
      const record = inbox.pending().find((each) => each.id === waiting.requestId)!;
      assert.match(record.shown, /git push --force/);
      assert.equal(record.lastUserMessage, 'push it, key [REDACTED]');
      const { won } = await inbox.decide(record.id, 'approve', 'go');
      assert.equal(won, true);
      assert.deepEqual(await decision, { approved: true, source: 'user', reason: 'approved by alice@corp: go' });
      assert.deepEqual(
        events.map((event) => event.state),
        ['waiting', 'approved'],
      );
      assert.equal(events[1]!.by, 'alice@corp');
      await until(() => inbox.pending().length === 0 || undefined, 'the inbox to empty');
    } finally {
      inbox.dispose();
    }
  });

  it('withdraws the request when the run is stopped', async () => {
    setPolicy('wait');
    const stop = new AbortController();
    const { decision, events } = ask(gateFor(bob), stop.signal);
    const waiting = await until(() => events.find((event) => event.state === 'waiting'), 'waiting');
    stop.abort();
    await assert.rejects(decision);
    // The withdrawal is sent as the run stops: give it a moment to land.
    for (let tries = 0; tries < 200 && (await alice.get(waiting.requestId))?.state === 'pending'; tries++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal((await alice.get(waiting.requestId))?.state, 'withdrawn');
    assert.ok(events.some((event) => event.state === 'withdrawn'));
    const late = await alice.decide(waiting.requestId, 'approve');
    assert.equal(late.won, false);
  });

  it('keeps waiting through an outage (saying so), then runs once approved', async () => {
    setPolicy('wait');
    const { decision, events } = ask(gateFor(bob));
    const waiting = await until(() => events.find((event) => event.state === 'waiting'), 'waiting');
    await database().server.stop();
    try {
      await until(() => events.some((event) => event.state === 'unreachable'), 'the outage to be told');
    } finally {
      await database().server.start();
    }
    await until(() => events.filter((event) => event.state === 'waiting').length >= 2, 'waiting again');
    assert.equal((await alice.get(waiting.requestId))?.state, 'pending', 'the request stayed pending');
    await alice.decide(waiting.requestId, 'approve');
    assert.equal((await decision).approved, true);
  });

  it('denies at the first outage with on_unreachable: block', async () => {
    setPolicy('block');
    const { decision, events } = ask(gateFor(bob));
    await until(() => events.find((event) => event.state === 'waiting'), 'waiting');
    await database().server.stop();
    try {
      const answer = await decision;
      assert.equal(answer.approved, false);
      assert.match(answer.reason ?? '', /team database is unreachable .* on_unreachable: block/);
    } finally {
      await database().server.start();
    }
  });

  it('refuses at once (never asking the local person) when no team database is configured', async () => {
    setPolicy('wait');
    const gate = new TeamApprovalGate(nobodyLocal, {
      approvals: () => undefined,
      policy: () => teamPolicy,
      root: () => '/work/repo',
      member: () => 'bob@corp',
      redact: (value) => value,
      newId: randomUUID,
    });
    const answer = await ask(gate).decision;
    assert.equal(answer.approved, false);
    assert.match(answer.reason ?? '', /needs a named approver \(alice@corp\), and no team database is configured/);
  });
});
