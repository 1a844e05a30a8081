/**
 * The user's policy defaults (the `openagent.policy` setting) and the workspace's
 * `.openagent/agent.yaml` together: the workspace decides each section it sets, except where
 * that would loosen what the user set for themselves:
 * - deny lists add up — a workspace can never lift a tool or command the user denied everywhere;
 * - budgets add up — both sets of limits apply (the lower of two for the same limit), and
 *   `block` wins over `warn`: a cloned repository cannot raise the user's spending limits;
 * - the sandbox takes the stricter mode (a workspace's `off` is ignored), and only the user's policy can grant confined commands
 *   the network or pass them secret variables — even when there is no user policy at all;
 * - web_fetch: the workspace's `network.fetch_allow` counts only where the user's covers it (when
 *   the user has one), and only the user's `network.fetch_private` lets a host reach private addresses.
 */
import type { AgentPolicy } from './agent-policy';
import { matchesPattern } from './rule-patterns';
import { withMergedApprovers } from './approver-rules';
import { withReviewer } from './reviewer-layers';
import { stricterSandbox } from './sandbox-modes';

export function mergePolicies(
  user: AgentPolicy | undefined,
  workspace: AgentPolicy | undefined,
): AgentPolicy | undefined {
  if (!workspace) return user;
  if (!user) return withCommandLimits({ ...workspace }, undefined, workspace);
  const merged: AgentPolicy = { ...user, ...workspace };
  const deny = union(user.tools?.deny, workspace.tools?.deny);
  const bashDeny = union(user.tools?.bash?.deny, workspace.tools?.bash?.deny);
  if (user.tools || workspace.tools) {
    merged.tools = { ...user.tools, ...workspace.tools };
    if (deny) merged.tools.deny = deny;
    if (user.tools?.bash || workspace.tools?.bash) {
      merged.tools.bash = { ...user.tools?.bash, ...workspace.tools?.bash };
      if (bashDeny) merged.tools.bash.deny = bashDeny;
    }
  }
  // Approver rules add up: a workspace adds approvers, never removes the user's.
  if (user.approvals || workspace.approvals)
    merged.approvals = withMergedApprovers(
      { ...user.approvals, ...workspace.approvals },
      user.approvals,
      workspace.approvals,
    );
  const budget = mergeBudgets(user.budget, workspace.budget);
  if (budget) merged.budget = budget;
  return withCommandLimits(merged, user, workspace);
}

function withCommandLimits(merged: AgentPolicy, user: AgentPolicy | undefined, workspace: AgentPolicy): AgentPolicy {
  // A workspace can only tighten the sandbox: its `off` means nothing (the user's setting decides).
  const sandbox = stricterSandbox(user?.sandbox, workspace.sandbox === 'off' ? undefined : workspace.sandbox);
  if (sandbox) merged.sandbox = sandbox;
  else delete merged.sandbox;
  const network = user?.commands?.network === true && workspace.commands?.network !== false;
  const granted = user?.commands?.pass_env ?? [];
  const pass = workspace.commands?.pass_env
    ? granted.filter((name) => workspace.commands!.pass_env!.includes(name))
    : granted;
  if (user?.commands || workspace.commands) {
    merged.commands = { ...(network ? { network } : {}), ...(pass.length ? { pass_env: pass } : {}) };
  }
  // The reviewer program is the user's to choose, never the workspace's (reviewer-layers.ts).
  return withReviewer(withFetchLimits(merged, user?.network, workspace.network), user?.approvals?.reviewer);
}

type Network = NonNullable<AgentPolicy['network']>;

/** The web_fetch rules of `above` under `below`'s: `below` may only be narrowed, private hosts only granted by it. */
export function withFetchLimits(
  merged: AgentPolicy,
  below: Network | undefined,
  above: Network | undefined,
  covers: (belowPattern: string, pattern: string) => boolean = (outer, inner) => matchesPattern(outer, inner),
): AgentPolicy {
  if (!below && !above) return merged;
  const within = (outer: string[] | undefined, inner: string[] | undefined) =>
    outer && inner ? inner.filter((pattern) => outer.some((allowed) => covers(allowed, pattern))) : (outer ?? inner);
  const allow = within(below?.fetch_allow, above?.fetch_allow);
  // Granted by the lower layer only; the upper one can keep part of it, never add.
  const granted = below?.fetch_private;
  const privateHosts = granted && above?.fetch_private ? within(granted, above.fetch_private) : granted;
  merged.network = {
    ...(allow ? { fetch_allow: allow } : {}),
    ...(privateHosts?.length ? { fetch_private: privateHosts } : {}),
  };
  return merged;
}

type Budget = NonNullable<AgentPolicy['budget']>;

function mergeBudgets(user: Budget | undefined, workspace: Budget | undefined): Budget | undefined {
  if (!user || !workspace) return user ?? workspace;
  const merged: Budget = { ...user, ...workspace };
  for (const key of Object.keys(merged) as Array<keyof Budget>) {
    if (key === 'on_exceeded' || key === 'on_unreachable') continue;
    const limits = [user[key], workspace[key]].filter((value): value is number => typeof value === 'number');
    merged[key] = Math.min(...limits);
  }
  for (const key of ['on_exceeded', 'on_unreachable'] as const) {
    if (user[key] === 'block' || workspace[key] === 'block') merged[key] = 'block';
    // Neither says: the default (block) applies.
    else if (!user[key] || !workspace[key]) delete merged[key];
  }
  return merged;
}

function union(a: readonly string[] | undefined, b: readonly string[] | undefined): string[] | undefined {
  if (!a && !b) return undefined;
  return [...new Set([...(a ?? []), ...(b ?? [])])];
}
