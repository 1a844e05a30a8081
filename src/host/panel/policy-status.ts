/**
 * The developer panel's Policy tab in words (SPEC 5a): the team database's state in one line,
 * and each rule in force with the layer that decided it — the team policy (which version, set
 * by whom), the user's openagent.policy setting, or the workspace's .openagent/agent.yaml.
 * No `vscode` import: the wording is unit-tested in Node.
 */
import { LAYER_NAMES, type PolicyDecision } from '../../core/policy/policy-layers';
import { refusedNote, type TeamStatus } from '../../core/team/team-status';
import type { TeamIdentity, TeamPolicyVersion } from '../../core/team/team-store';
import { MAX_POLICY_RULES, MAX_POLICY_TEXT, type HostToPanel, type TeamStatusMessage } from '../../protocol/messages';
import type { PolicyStatusSource } from './panel-controller';

export type PolicyStatus = Omit<Extract<HostToPanel, { type: 'policy_status' }>, 'type'>;

/** The team as the panel shows it; undefined when no team is configured. */
export interface TeamView {
  status: TeamStatus;
  /** Who records for the team (unknown when the database could not be opened at all). */
  identity?: TeamIdentity;
  /** The team policy version in force, when one has been read. */
  policyVersion?: Pick<TeamPolicyVersion, 'version' | 'changedBy' | 'changedAt'>;
}

const MAX_TEAM_TEXT = 2_000;

interface Subscribable {
  (listener: () => void): { dispose(): void };
}

/** The panel's view of the policy layers and the team (PolicySource and TeamService in the editor). */
export function policyStatusSource(
  policy: { decisions(): PolicyDecision[]; onDidChange: Subscribable },
  team: { view(): TeamView | undefined; onDidChangeStatus: Subscribable },
): PolicyStatusSource {
  return {
    status: () => describePolicyStatus(policy.decisions(), team.view()),
    onDidChange: (listener) => {
      const subscriptions = [policy.onDidChange(listener), team.onDidChangeStatus(listener)];
      return () => subscriptions.forEach((subscription) => subscription.dispose());
    },
  };
}

/** The panel's policy_status message body: bounded to what the protocol accepts. */
export function describePolicyStatus(decisions: readonly PolicyDecision[], team: TeamView | undefined): PolicyStatus {
  const teamLayer = team?.policyVersion
    ? `${LAYER_NAMES.team} (v${team.policyVersion.version}, by ${team.policyVersion.changedBy})`
    : LAYER_NAMES.team;
  const rules = decisions.slice(0, MAX_POLICY_RULES).map((decision) => ({
    rule: clip(decision.rule, MAX_POLICY_TEXT),
    layer: decision.layer,
    decidedBy: clip(decision.layer === 'team' ? teamLayer : LAYER_NAMES[decision.layer], MAX_POLICY_TEXT),
  }));
  return { ...(team ? { team: describeTeam(team) } : {}), rules, total: decisions.length };
}

function describeTeam(team: TeamView): TeamStatusMessage {
  const { status, identity } = team;
  const who = identity ? ` as ${identity.member}${identity.repository ? ` in ${identity.repository}` : ''}` : '';
  if (status.state === 'connecting')
    return { state: 'connecting', text: clip(`Connecting to the team database${who}…`, MAX_TEAM_TEXT) };
  if (status.state === 'unreachable')
    return {
      state: 'unreachable',
      text: clip(
        `The team database is unreachable (${status.reason}). Work goes on${who} under the team policy kept from last time; usage and audit records wait in the outbox and are sent when it is back.${refusedNote(status)}`,
        MAX_TEAM_TEXT,
      ),
    };
  const policy = status.policy
    ? `team policy v${status.policy.version}, set by ${status.policy.changedBy} on ${formatUtc(status.policy.changedAt)}`
    : 'no team policy set yet';
  return {
    state: 'connected',
    text: clip(`Connected to the team database${who}: ${policy}.${refusedNote(status)}`, MAX_TEAM_TEXT),
  };
}

function formatUtc(time: number): string {
  const date = new Date(time);
  return Number.isNaN(date.getTime()) ? 'an unknown date' : `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Text cut to `max` characters, an ellipsis saying so. */
function clip(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
