/**
 * The user's policy defaults (the `openagent.policy` setting) and the workspace's
 * `.openagent/agent.yaml` together: the workspace decides each section it sets, except where
 * that would loosen what the user set for themselves:
 * - deny lists add up — a workspace can never lift a tool or command the user denied everywhere;
 * - budgets add up — both sets of limits apply (the lower of two for the same limit), and
 *   `block` wins over `warn`: a cloned repository cannot raise the user's spending limits.
 */
import type { AgentPolicy } from './agent-policy';

export function mergePolicies(
  user: AgentPolicy | undefined,
  workspace: AgentPolicy | undefined,
): AgentPolicy | undefined {
  if (!user) return workspace;
  if (!workspace) return user;
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
  const budget = mergeBudgets(user.budget, workspace.budget);
  if (budget) merged.budget = budget;
  return merged;
}

type Budget = NonNullable<AgentPolicy['budget']>;

function mergeBudgets(user: Budget | undefined, workspace: Budget | undefined): Budget | undefined {
  if (!user || !workspace) return user ?? workspace;
  const merged: Budget = { ...user, ...workspace };
  for (const key of Object.keys(merged) as Array<keyof Budget>) {
    if (key === 'on_exceeded') continue;
    const limits = [user[key], workspace[key]].filter((value): value is number => typeof value === 'number');
    merged[key] = Math.min(...limits);
  }
  if (user.on_exceeded === 'block' || workspace.on_exceeded === 'block') merged.on_exceeded = 'block';
  // Neither says: the default (block) applies.
  else if (!user.on_exceeded || !workspace.on_exceeded) delete merged.on_exceeded;
  return merged;
}

function union(a: readonly string[] | undefined, b: readonly string[] | undefined): string[] | undefined {
  if (!a && !b) return undefined;
  return [...new Set([...(a ?? []), ...(b ?? [])])];
}
