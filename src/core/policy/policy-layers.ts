/**
 * The policy in force is built from up to three layers (SPEC 5a): the team's (from the team
 * database), the user's (the `openagent.policy` setting) and the workspace's
 * (`.openagent/agent.yaml`). The user and workspace layers merge as mergePolicies says; the
 * team layer sits under both and can only be tightened by them:
 * - deny lists add up; `approvals.require_for` adds up (it wins over any auto-approval);
 * - a team `tools.allow` keeps only the tools it names: the layers above may narrow it;
 * - a team `bash.allow` likewise: an allow above it counts only where the team's allows it;
 * - once the team says what runs without asking (`auto_approve` or `bash.allow`), an
 *   `auto_approve` above counts only where the team's covers it;
 * - budgets take the lowest limit, `block` wins over `warn` (for on_exceeded and on_unreachable);
 * - the sandbox takes the stricter mode; the network and passed variables need the team's
 *   consent too when the team policy says anything about them.
 * `explainPolicy` says which layer decided each rule, for the developer panel and "Show Usage
 * and Budget".
 */
import type { AgentPolicy } from './agent-policy';
import { mergePolicies, withFetchLimits } from './merge-policy';
import { withMergedApprovers } from './approver-rules';
import { withReviewer } from './reviewer-layers';
import { stricterSandbox } from './sandbox-modes';
import { allowsAllOf, matchesPattern } from './rule-patterns';

export type PolicyLayer = 'team' | 'user' | 'workspace';
export type PolicyLayers = Partial<Record<PolicyLayer, AgentPolicy>>;

export const LAYER_NAMES: Record<PolicyLayer, string> = {
  team: 'the team policy',
  user: 'your openagent.policy setting',
  workspace: '.openagent/agent.yaml',
};

/** The policy the three layers make together; undefined when none says anything. */
export function layerPolicies(layers: PolicyLayers): AgentPolicy | undefined {
  return underTeam(layers.team, mergePolicies(layers.user, layers.workspace));
}

function underTeam(team: AgentPolicy | undefined, above: AgentPolicy | undefined): AgentPolicy | undefined {
  if (!team) return above;
  if (!above) return team;
  const merged: AgentPolicy = { ...team, ...above };
  const tools = mergeTools(team.tools, above.tools);
  if (tools) merged.tools = tools;
  const requireFor = union(team.approvals?.require_for, above.approvals?.require_for);
  if (team.approvals || above.approvals) {
    merged.approvals = { ...team.approvals, ...above.approvals };
    if (requireFor) merged.approvals.require_for = requireFor;
    const auto = autoApprovedUnder(team, above.approvals?.auto_approve);
    if (auto) merged.approvals.auto_approve = auto;
    else delete merged.approvals.auto_approve;
    withMergedApprovers(merged.approvals, team.approvals, above.approvals);
    // The team's reviewer program stays: a member's own cannot replace it (reviewer-layers.ts).
    withReviewer(merged, team.approvals?.reviewer ?? above.approvals?.reviewer);
  }
  // mergePolicies already takes the lowest limits and `block` over `warn`: the same rules hold here.
  const budget = mergePolicies({ budget: team.budget }, { budget: above.budget })?.budget;
  if (budget) merged.budget = budget;
  else delete merged.budget;
  const sandbox = stricterSandbox(team.sandbox === 'off' ? undefined : team.sandbox, above.sandbox);
  if (sandbox) merged.sandbox = sandbox;
  else delete merged.sandbox;
  if (team.commands || above.commands) {
    const network = above.commands?.network === true && team.commands?.network !== false;
    const passed = above.commands?.pass_env ?? [];
    const pass = team.commands?.pass_env ? passed.filter((name) => team.commands!.pass_env!.includes(name)) : passed;
    merged.commands = { ...(network ? { network } : {}), ...(pass.length ? { pass_env: pass } : {}) };
  }
  // The team's fetch rules narrow what the layers above say; without a team list, theirs stand.
  if (team.network) {
    delete merged.network;
    withFetchLimits(merged, team.network, above.network);
    if (!team.network.fetch_private && above.network?.fetch_private)
      merged.network = { ...(merged.network ?? {}), fetch_private: above.network.fetch_private };
  }
  return merged;
}

/**
 * What runs without asking is the team's to widen, once the team says anything about it (its
 * own `approvals.auto_approve` or a `tools.bash.allow`): an `auto_approve` above then counts only
 * where the team's covers it. Otherwise a repository's `auto_approve: ["*"]` would run every
 * command the team's `bash.allow` leaves to the user's approval.
 */
function autoApprovedUnder(team: AgentPolicy, above: string[] | undefined): string[] | undefined {
  const teamList = team.approvals?.auto_approve;
  if (!teamList && !team.tools?.bash?.allow) return above ?? teamList;
  return narrowed(teamList ?? [], above);
}

type Tools = NonNullable<AgentPolicy['tools']>;

function mergeTools(team: Tools | undefined, above: Tools | undefined): Tools | undefined {
  if (!team && !above) return undefined;
  const tools: Tools = { ...team, ...above };
  const deny = union(team?.deny, above?.deny);
  if (deny) tools.deny = deny;
  const allow = narrowed(team?.allow, above?.allow);
  if (allow) tools.allow = allow;
  if (team?.bash || above?.bash) {
    tools.bash = { ...team?.bash, ...above?.bash };
    const bashDeny = union(team?.bash?.deny, above?.bash?.deny);
    if (bashDeny) tools.bash.deny = bashDeny;
    const bashAllow = narrowed(team?.bash?.allow, above?.bash?.allow, allowsAllOf);
    if (bashAllow) tools.bash.allow = bashAllow;
    else delete tools.bash.allow;
  }
  return tools;
}

/**
 * An allow list above the team's counts only for what the team's list allows: its patterns are
 * kept when everything they allow, one of the team's patterns allows too (`mcp__github__*` stays
 * under a team `mcp__*`; a wider `mcp__*` under a team `mcp__github__*` goes). `covers` compares
 * two patterns the way they are matched: tool names character by character (a team pattern that
 * matches the other as written covers it, since `*` is its only wildcard), commands word by word.
 * No team list: the list above.
 */
function narrowed(
  team: string[] | undefined,
  above: string[] | undefined,
  covers: (teamPattern: string, pattern: string) => boolean = matchesPattern,
): string[] | undefined {
  if (!team) return above;
  if (!above) return team;
  return above.filter((pattern) => team.some((allowed) => covers(allowed, pattern)));
}

function union(a: readonly string[] | undefined, b: readonly string[] | undefined): string[] | undefined {
  if (!a && !b) return undefined;
  return [...new Set([...(a ?? []), ...(b ?? [])])];
}

/** One rule of the policy in force and the layer that decided it. */
export interface PolicyDecision {
  /** The rule as written: `tools.deny "bash"`, `budget.daily_usd: 10`. */
  rule: string;
  layer: PolicyLayer;
}

const ORDER: PolicyLayer[] = ['team', 'user', 'workspace'];

/** Which layer decided each rule of `policy` (the result of layerPolicies(layers)). */
export function explainPolicy(layers: PolicyLayers, policy: AgentPolicy | undefined): PolicyDecision[] {
  if (!policy) return [];
  const decisions: PolicyDecision[] = [];
  const listed = (section: string, values: string[] | undefined, read: (p: AgentPolicy) => string[] | undefined) => {
    for (const value of values ?? []) {
      const layer = ORDER.find((name) => layers[name] && read(layers[name]!)?.includes(value));
      if (layer) decisions.push({ rule: `${section} "${value}"`, layer });
    }
  };
  listed('tools.deny', policy.tools?.deny, (p) => p.tools?.deny);
  listed('tools.allow', policy.tools?.allow, (p) => p.tools?.allow);
  listed('tools.bash.deny', policy.tools?.bash?.deny, (p) => p.tools?.bash?.deny);
  listed('tools.bash.allow', policy.tools?.bash?.allow, (p) => p.tools?.bash?.allow);
  listed('approvals.require_for', policy.approvals?.require_for, (p) => p.approvals?.require_for);
  listed('approvals.auto_approve', policy.approvals?.auto_approve, (p) => p.approvals?.auto_approve);
  for (const [key, value] of Object.entries(policy.budget ?? {})) {
    // The layer whose value is the one in force (the team's first, when two agree).
    const layer = ORDER.find((name) => (layers[name]?.budget as Record<string, unknown> | undefined)?.[key] === value);
    if (layer) decisions.push({ rule: `budget.${key}: ${String(value)}`, layer });
  }
  if (policy.sandbox) {
    const layer = ORDER.find((name) => layers[name]?.sandbox === policy.sandbox);
    if (layer) decisions.push({ rule: `sandbox: ${policy.sandbox}`, layer });
  }
  const reviewer = policy.approvals?.reviewer;
  if (reviewer) {
    const layer = ORDER.find((name) => layers[name]?.approvals?.reviewer === reviewer);
    if (layer) decisions.push({ rule: `approvals.reviewer: ${reviewer.command.join(' ')}`, layer });
  }
  if (policy.model_policy?.default) {
    const layer = [...ORDER]
      .reverse()
      .find((name) => layers[name]?.model_policy?.default === policy.model_policy?.default);
    if (layer) decisions.push({ rule: `model_policy.default: ${policy.model_policy.default}`, layer });
  }
  return decisions;
}

/** The layer that decided a rule, in words ("the team policy"), for refusals; undefined when unknown. */
export function layerOf(decisions: readonly PolicyDecision[], rule: string): string | undefined {
  const decision = decisions.find((candidate) => candidate.rule === rule);
  return decision && LAYER_NAMES[decision.layer];
}
