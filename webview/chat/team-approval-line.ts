/**
 * A tool line whose call waits for a named teammate (issue 37): what the `team_approval` events
 * said, kept with the line, and the words the line shows for it — "Waiting for alice@corp,
 * team:leads (until 14:30)", then who approved or denied it and why, no answer in time, or the
 * request withdrawn when the run was stopped. The tool outcome (ran, failed…) stays what the
 * other events say; this only names the person behind the decision.
 */
import type { AgentEvent, ToolOutcome } from '../../src/protocol/events';

type TeamApprovalEvent = Extract<AgentEvent, { type: 'team_approval' }>;

/** What the line keeps of the latest `team_approval` event of its call. */
export type TeamLine = Pick<TeamApprovalEvent, 'state' | 'approvers' | 'deadline' | 'by' | 'reason' | 'unknown'>;

export function teamLineOf(event: TeamApprovalEvent, previous?: TeamLine): TeamLine {
  // "unreachable" then "waiting" again: the deadline said first still holds.
  const deadline = event.deadline ?? previous?.deadline;
  return {
    state: event.state,
    approvers: event.approvers,
    ...(deadline !== undefined ? { deadline } : {}),
    ...(event.by !== undefined ? { by: event.by } : {}),
    ...(event.reason !== undefined ? { reason: event.reason } : {}),
    ...(event.unknown?.length ? { unknown: event.unknown } : {}),
  };
}

/** "14:30" in the reader's own clock. */
export function clockTime(epochMs: number): string {
  return new Date(epochMs).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
}

/**
 * The words of a tool line whose call went to named approvers; undefined when the plain outcome
 * says it all (a refusal before anyone was asked reads as the policy's).
 */
export function teamOutcomeWords(
  outcome: ToolOutcome,
  team: TeamLine,
  time: (epochMs: number) => string = clockTime,
): { label: string; detail?: string } | undefined {
  const who = team.approvers.join(', ');
  const said = team.reason ? `: ${team.reason}` : '';
  const decider = team.by ?? 'an approver';
  switch (team.state) {
    case 'waiting':
    case 'unreachable': {
      if (outcome.state !== 'awaiting_approval') return undefined;
      const until = team.deadline !== undefined ? ` (until ${time(team.deadline)})` : '';
      const label = `Waiting for ${who}${until}`;
      if (team.state === 'unreachable')
        return { label, detail: 'the team database does not answer; the request stays pending' };
      return team.unknown?.length
        ? { label, detail: `not in the team's directory: ${team.unknown.join(', ')}` }
        : { label };
    }
    case 'approved': {
      const approval = `approved by ${decider}${said}`;
      if (outcome.state === 'running' || outcome.state === 'awaiting_approval')
        return { label: 'Running…', detail: approval };
      if (outcome.state === 'ran' || outcome.state === 'failed') {
        const plain = outcome.state === 'ran' ? outcome.summary : outcome.reason;
        return { label: outcome.state === 'ran' ? 'Ran' : 'Failed', detail: `${plain} · ${approval}` };
      }
      return undefined;
    }
    case 'denied':
      return outcome.state === 'denied' || outcome.state === 'awaiting_approval'
        ? { label: `Denied by ${decider}`, ...(team.reason ? { detail: team.reason } : {}) }
        : undefined;
    case 'timed_out':
      return outcome.state === 'denied' || outcome.state === 'awaiting_approval'
        ? { label: 'Denied: no answer in time', detail: `no answer from ${who} in time` }
        : undefined;
    case 'withdrawn':
      return outcome.state === 'not_finished' || outcome.state === 'awaiting_approval' || outcome.state === 'denied'
        ? { label: 'Approval request withdrawn', ...(team.reason ? { detail: team.reason } : {}) }
        : undefined;
    case 'refused':
      return undefined;
  }
}
