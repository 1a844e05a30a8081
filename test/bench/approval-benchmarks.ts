/**
 * Named approvers (issue 37) on a throwaway local PostgreSQL, over the real parts: bob's
 * TeamApprovalGate files a request and waits; alice's ApproverInbox (LISTEN/NOTIFY, the poll at
 * its 5 s default so it plays no part) sees it; she approves; bob's gate resolves.
 * - request → approver notified: from the gate being asked to the inbox listing the request;
 * - decision → agent resumed: from alice's decide() call to bob's gate answering.
 * Target (issue 37): p99 ≤ 250 ms each. `tsx test/bench/approval-benchmarks.ts` runs it alone.
 */
import { randomUUID } from 'node:crypto';
import { parseAgentPolicy } from '../../src/core/policy/agent-policy';
import { NO_RISK } from '../../src/core/policy/call-risk';
import { ApproverInbox } from '../../src/core/team/approver-inbox';
import { TeamApprovalGate } from '../../src/core/team/team-approval-gate';
import { PgTeamApprovals } from '../../src/team/pg-team-approvals';
import { findPostgresBin, initTeamDatabase, startPostgres } from '../harness/postgres';
import { table } from './bench-table';

export const APPROVAL_ROUNDS = 200;
const WARMUPS = 10;

function percentile(values: number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

export async function measureApprovals(): Promise<{ notified: number[]; resumed: number[] } | string> {
  if (!findPostgresBin()) return 'PostgreSQL is not installed';
  const server = await startPostgres();
  const opened: PgTeamApprovals[] = [];
  const open = (url: string) => {
    const approvals = new PgTeamApprovals(url);
    opened.push(approvals);
    return approvals;
  };
  try {
    await initTeamDatabase(server.url);
    const bob = open(await server.createMember('bob'));
    const alice = open(await server.createMember('alice'));
    const admin = open(server.url);
    await admin.setMember({ email: 'bob@corp', login: 'bob', groups: [] });
    await admin.setMember({ email: 'alice@corp', login: 'alice', groups: [] });
    const policy = parseAgentPolicy(
      'approvals:\n  approvers:\n    - match: { bash: ["git push*"] }\n      by: [alice@corp]\n',
    ).policy!;
    const gate = new TeamApprovalGate(
      { request: () => Promise.reject(new Error('not asked locally')) },
      {
        approvals: () => bob,
        policy: () => policy,
        root: () => '/work/repo',
        member: () => 'bob@corp',
        redact: (value) => value,
        newId: randomUUID,
      },
    );
    const inbox = new ApproverInbox(alice).start();
    const seen = new Map<string, number>();
    inbox.onChange((_pending, added) => {
      for (const record of added) seen.set(record.id, performance.now());
    });
    const notified: number[] = [];
    const resumed: number[] = [];
    for (let round = 0; round < WARMUPS + APPROVAL_ROUNDS; round++) {
      let requestId: string | undefined;
      const asked = performance.now();
      const decision = gate.request({
        conversationId: 'bench',
        toolCallId: `call-${round}`,
        toolName: 'bash',
        input: { command: 'git push --force' },
        summary: 'git push --force',
        argumentsHash: 'x',
        risk: { ...NO_RISK, command: 'git push --force' },
        signal: new AbortController().signal,
        emit: (event) => {
          if (event.type === 'team_approval') requestId = event.requestId;
        },
      });
      while (requestId === undefined || !seen.has(requestId)) await new Promise((resolve) => setImmediate(resolve));
      const notifiedAt = seen.get(requestId)!;
      const decided = performance.now();
      await inbox.decide(requestId, 'approve');
      const answer = await decision;
      const done = performance.now();
      if (!answer.approved) throw new Error(`round ${round} was not approved: ${answer.reason}`);
      if (round < WARMUPS) continue;
      notified.push(notifiedAt - asked);
      resumed.push(done - decided);
    }
    inbox.dispose();
    return { notified, resumed };
  } finally {
    for (const approvals of opened) await approvals.close();
    await server.dispose();
  }
}

export async function printApprovalBenchmarks(): Promise<void> {
  console.log(
    `\nNamed approvers over LISTEN/NOTIFY on a local PostgreSQL (${APPROVAL_ROUNDS} requests after warm-ups; target p99 ≤ 250 ms)\n`,
  );
  const measured = await measureApprovals();
  if (typeof measured === 'string') {
    console.log(`(skipped: ${measured})`);
    return;
  }
  const row = (name: string, values: number[]) => [
    name,
    String(values.length),
    percentile(values, 0.5).toFixed(1),
    percentile(values, 0.99).toFixed(1),
    Math.max(...values).toFixed(1),
    '250',
  ];
  console.log(
    table(
      ['path', 'requests', 'p50 (ms)', 'p99 (ms)', 'max (ms)', 'target p99 (ms)'],
      [row('request → approver notified', measured.notified), row('decision → agent resumed', measured.resumed)],
    ),
  );
}

if (require.main === module) void printApprovalBenchmarks();
