/**
 * Re-runs and live replays under the team (issue 37). They run tools for real, so the team's
 * word holds there as in a run: the team policy the CLI last fetched (kept in the store, as
 * CliTeam keeps it) is the layer under the user's and the place's, and a call an approver rule
 * matches goes to the team database for a named approver's decision — `--yes`, a re-run's
 * `--policy` or an allow rule never answer for it. With no team database configured, no team
 * layer applies (as in a run).
 */
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAgentPolicy, type AgentPolicy } from '../core/policy/agent-policy';
import type { ApprovalGate, ToolPolicy } from '../core/policy/approval';
import type { WorkspaceFiles } from '../core/ports';
import { readPolicyText } from '../node/policy-text';
import { cliTeamApprovals } from './team-approvals-wiring';

/** The kept team policy when a team database is configured; undefined otherwise. */
export function keptTeamPolicy(env: NodeJS.ProcessEnv): AgentPolicy | undefined {
  if (!env.OPENAGENT_TEAM_DATABASE_URL?.trim()) return undefined;
  const store = path.resolve(env.OPENAGENT_STORE || path.join(env.HOME || os.homedir(), '.openagent', 'store'));
  const read = readPolicyText(path.join(store, 'team-policy.yaml'));
  return read.kind === 'text' ? parseAgentPolicy(read.text).policy : undefined;
}

/** The re-run's approvals and tool policy with named approvers' rules in force. */
export function rerunApprovers(
  env: NodeJS.ProcessEnv,
  heldSecrets: { redactValue: <T>(value: T) => T },
  place: { root: string; policy: () => AgentPolicy | undefined; workspace: WorkspaceFiles },
): { gate(inner: ApprovalGate): ApprovalGate; policy<P extends ToolPolicy>(inner: P): P; close(): Promise<void> } {
  return cliTeamApprovals({ env, heldSecrets }, { ...place, team: { stamp: () => undefined } });
}
