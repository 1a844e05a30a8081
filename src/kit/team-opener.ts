/**
 * The team control plane (SPEC 5a) for either composition root. Opening it needs PostgreSQL's
 * client and the team's tools and policy: they load only when a team is configured
 * (team-plane-opener.ts, see lazy-module.ts).
 */
import type { PolicyProblem } from '../core/policy/agent-policy';
import type { ConversationStore } from '../core/ports';
import type { TeamPlane } from '../core/team/team-plane';
import type { TeamApprovals } from '../core/team/team-approvals';
import { lazyModule } from '../core/lazy-module';
import type * as TeamPlaneOpenerModule from './team-plane-opener';

const teamPlaneOpener = lazyModule(() => require('./team-plane-opener') as typeof TeamPlaneOpenerModule);

export interface TeamOpenerOptions {
  /** postgres://… (never shown: messages name the host and database only). */
  url: string;
  /** The member's identity when the user set one; otherwise git's user.email. */
  member?: string;
  /** The workspace folder (its origin remote names the repository). */
  root?: string;
  /** Where the last team policy is kept. */
  cacheFile: string;
  outbox: () => Promise<ConversationStore | undefined>;
  onPolicyMistakes: (problems: PolicyProblem[]) => void;
}

/** The team plane for `options`: the PostgreSQL adapter, the member's identity, the cached policy. */
export async function openTeamPlane(options: TeamOpenerOptions): Promise<TeamPlane> {
  return teamPlaneOpener().openTeamPlane(options);
}

/** The team's approvals (issue 37), on the same lazily loaded PostgreSQL client. */
export function openTeamApprovals(url: string): TeamApprovals {
  return teamPlaneOpener().openTeamApprovals(url);
}

/**
 * The store as the recorder uses it, sending the outbox once a record stamped for the team is
 * written (not before: the drain would not find it yet).
 */
export function sendingToTeam(store: ConversationStore, kick: () => void): ConversationStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'recordUsage' || property === 'recordAudit')
        return async (record: { team?: unknown }) => {
          await (value as (record: unknown) => Promise<void>).call(target, record);
          if (record.team) kick();
        };
      return (value as (...args: unknown[]) => unknown).bind(target);
    },
  });
}
