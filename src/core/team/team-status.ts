/**
 * The team control plane's state as the status bar and the developer panel show it. Apart from
 * the plane (team-plane.ts, which brings the team's tools and policy schema) so that the status
 * item drawn at activation loads none of that (issue 23).
 */

export type TeamStatus = (
  | { state: 'connecting' }
  | { state: 'connected'; policy?: { version: number; changedBy: string; changedAt: number } }
  | { state: 'unreachable'; reason: string; since: number }
) & {
  /** Outbox records the team database refused for what they hold: kept on this machine, not sent. */
  refused?: { count: number; reason: string };
};

/** What a status says of refused records, as a sentence ('' when there are none). */
export function refusedNote(status: TeamStatus): string {
  const refused = status.refused;
  if (!refused) return '';
  const records = refused.count === 1 ? '1 record' : `${refused.count} records`;
  return ` The team database refused ${records} for what ${refused.count === 1 ? 'it holds' : 'they hold'}: kept on this machine, not sent (${refused.reason}).`;
}
