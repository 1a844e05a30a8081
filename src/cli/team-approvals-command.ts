/**
 * `openagent team approvals …` (an approver's commands) and `openagent team members …` (the
 * admin's member directory), issue 37. The database decides who may decide: this only lists
 * and asks, and says in one line what the database refused.
 */
import { parseArgs } from 'node:util';
import { namedApprovers } from '../core/policy/approver-rules';
import type { AgentPolicy } from '../core/policy/agent-policy';
import { TeamApprovalRefusedError, unknownApprovers, type TeamApprovalRecord } from '../core/team/team-approvals';
import { PgTeamApprovals } from '../team/pg-team-approvals';
import { table } from './team-format';
import { visibleText } from '../core/text/visible-text';

export const APPROVALS_USAGE = `  approvals                      the requests waiting for your approval
  approvals show ID              one request: the command or change, the prompt behind it
  approvals approve ID [--reason TEXT]
  approvals deny ID --reason TEXT
  members list                   the member directory (who approvers are)
  members add EMAIL --login ROLE [--group NAME]...
                                 add or change a member (the admin's right)
  members remove EMAIL`;

interface Streams {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream;
}

/** Runs `openagent team approvals|members <argv>` on the team database at `url`; the exit code. */
export async function runTeamApprovalsCommand(
  command: 'approvals' | 'members',
  argv: string[],
  url: string,
  streams: Streams,
): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    streams.stderr.write(`openagent team: ${(error as Error).message}\n${APPROVALS_USAGE}\n`);
    return 2;
  }
  const approvals = new PgTeamApprovals(url, { max: 1 });
  try {
    return command === 'approvals'
      ? await approvalsCommand(approvals, parsed, streams)
      : await membersCommand(approvals, parsed, streams);
  } catch (error) {
    if (error instanceof TeamApprovalRefusedError) {
      streams.stderr.write(`openagent team: refused by the team database: ${error.message}\n`);
      return 1;
    }
    throw error;
  } finally {
    await approvals.close();
  }
}

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      reason: { type: 'string' },
      login: { type: 'string' },
      group: { type: 'string', multiple: true },
    },
  });
}

async function approvalsCommand(
  approvals: PgTeamApprovals,
  { positionals, values }: ReturnType<typeof parse>,
  { stdout, stderr }: Streams,
): Promise<number> {
  const [action, id, ...extra] = positionals;
  if (action === undefined) {
    const pending = await approvals.pendingForMe();
    if (pending.length === 0) {
      stdout.write('No requests wait for your approval.\n');
      return 0;
    }
    stdout.write(
      `${table(
        ['ID', 'FROM', 'TOOL', 'WHAT', 'LEFT'],
        pending.map((record) => [record.id, record.requester, record.tool, firstLine(record.shown), left(record)]),
        [false, false, false, false, true],
      )}\n`,
    );
    return 0;
  }
  if (!id || extra.length) {
    stderr.write(`openagent team: approvals ${action} needs one request id.\n${APPROVALS_USAGE}\n`);
    return 2;
  }
  if (action === 'show') {
    const record = await approvals.get(id);
    if (!record) {
      stderr.write(`openagent team: there is no approval request ${id}.\n`);
      return 1;
    }
    stdout.write(details(record));
    return 0;
  }
  if (action !== 'approve' && action !== 'deny') {
    stderr.write(`openagent team: approvals ${action}? approve, deny or show.\n${APPROVALS_USAGE}\n`);
    return 2;
  }
  const reason = values.reason?.trim();
  if (action === 'deny' && !reason) {
    stderr.write('openagent team: a denial says why: --reason TEXT (the agent reads it).\n');
    return 2;
  }
  const { won, record } = await approvals.decide(id, action, reason);
  if (!won) {
    stderr.write(`openagent team: request ${id} was already ${outcome(record)}.\n`);
    return 1;
  }
  stdout.write(`Request ${id} ${record.state === 'approved' ? 'approved' : 'denied'} (by ${record.decidedBy}).\n`);
  return 0;
}

async function membersCommand(
  approvals: PgTeamApprovals,
  { positionals, values }: ReturnType<typeof parse>,
  { stdout, stderr }: Streams,
): Promise<number> {
  const [action, email, ...extra] = positionals;
  if (action === 'list' && !email) {
    const members = await approvals.members();
    stdout.write(
      members.length
        ? `${table(
            ['MEMBER', 'GROUPS'],
            members.map((member) => [member.email, member.groups.map((group) => `team:${group}`).join(', ')]),
            [false, false],
          )}\n`
        : 'The member directory is empty: openagent team members add EMAIL --login ROLE.\n',
    );
    return 0;
  }
  if (action === 'add' && email && !extra.length && values.login) {
    const groups = (values.group ?? []).map((group) => group.replace(/^team:/, ''));
    const bad = groups.find((group) => !/^[A-Za-z0-9._-]+$/.test(group));
    if (bad !== undefined) {
      stderr.write(`openagent team: "${bad}" is no group name (letters, digits, . _ -).\n`);
      return 2;
    }
    await approvals.setMember({ email, login: values.login, groups });
    stdout.write(
      `${email} (login ${values.login}) is in the directory${groups.length ? `, in ${groups.map((g) => `team:${g}`).join(', ')}` : ''}.\n`,
    );
    return 0;
  }
  if (action === 'remove' && email && !extra.length) {
    const removed = await approvals.removeMember(email);
    stdout.write(removed ? `${email} removed from the directory.\n` : `${email} was not in the directory.\n`);
    return removed ? 0 : 1;
  }
  stderr.write(
    `openagent team: members list | members add EMAIL --login ROLE [--group NAME]... | members remove EMAIL\n`,
  );
  return 2;
}

/** The approver names of `policy` the team's directory does not know, in words; none: undefined. */
export async function unknownApproverWarning(url: string, policy: AgentPolicy): Promise<string | undefined> {
  const names = namedApprovers(policy.approvals?.approvers);
  if (!names.length) return undefined;
  const approvals = new PgTeamApprovals(url, { max: 1 });
  try {
    const unknown = unknownApprovers(names, await approvals.members());
    if (!unknown.length) return undefined;
    return (
      `approvals.approvers names ${unknown.length === 1 ? 'one approver' : `${unknown.length} approvers`} the member directory does not know: ` +
      `${unknown.join(', ')}. Nobody can approve as them until \`openagent team members add\` adds them.`
    );
  } finally {
    await approvals.close();
  }
}

function details(record: TeamApprovalRecord): string {
  const lines = [
    `Request ${record.id}: ${record.requester}'s agent wants to run ${record.tool}${record.repository ? ` in ${record.repository}` : ''}`,
    `State: ${outcome(record)}${record.state === 'pending' ? ` (${left(record)} left)` : ''}`,
    `Approvers: ${record.approvers.join(', ')}`,
    `Why it asks: ${record.matched.join('; ')}`,
    '',
    ...record.shown.split('\n').map((line) => `  ${line}`),
  ];
  if (record.lastUserMessage)
    lines.push('', 'The prompt behind it:', ...record.lastUserMessage.split('\n').map((line) => `  ${line}`));
  return `${lines.map((line) => visibleText(line)).join('\n')}\n`;
}

function outcome(record: TeamApprovalRecord): string {
  const why = record.reason ? ` (${record.reason})` : '';
  switch (record.state) {
    case 'approved':
      return `approved by ${record.decidedBy}${why}`;
    case 'denied':
      return `denied by ${record.decidedBy}${why}`;
    case 'timed_out':
      return 'timed out (denied)';
    case 'withdrawn':
      return 'withdrawn by the requester';
    default:
      return 'pending';
  }
}

function firstLine(text: string): string {
  const line = visibleText(text.split('\n')[0] ?? '');
  return line.length > 60 ? `${line.slice(0, 59)}…` : line;
}

function left(record: TeamApprovalRecord): string {
  const seconds = Math.round(record.remainingMs / 1000);
  return seconds >= 120 ? `${Math.round(seconds / 60)} min` : `${seconds} s`;
}
