/** Words for a `team_approval` event, as the chat and the CLI show it. */
import type { AgentEvent } from '../events/events';

type TeamApprovalEvent = Extract<AgentEvent, { type: 'team_approval' }>;

export function describeTeamApproval(event: TeamApprovalEvent): string {
  const who = event.approvers.join(', ');
  const why = event.reason ? `: ${event.reason}` : '';
  switch (event.state) {
    case 'waiting': {
      const until = event.deadline ? ` (until ${new Date(event.deadline).toISOString().slice(11, 16)} UTC)` : '';
      const unknown = event.unknown?.length ? `; not in the team's directory: ${event.unknown.join(', ')}` : '';
      return `waiting for ${who}${until}${unknown}`;
    }
    case 'unreachable':
      return `waiting for ${who}: the team database does not answer, the request stays pending${why}`;
    case 'approved':
      return `approved by ${event.by ?? 'an approver'}${why}`;
    case 'denied':
      return `denied by ${event.by ?? 'an approver'}${why}`;
    case 'timed_out':
      return `no answer from ${who} in time: denied`;
    case 'withdrawn':
      return `approval request withdrawn${why}`;
    case 'refused':
      return `not asked${why}`;
  }
}
