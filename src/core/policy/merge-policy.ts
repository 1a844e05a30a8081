/**
 * The user's policy defaults (the `openagent.policy` setting) and the workspace's
 * `.openagent/agent.yaml` together: the workspace decides each section it sets, except that
 * deny lists add up — a workspace can never lift a tool or command the user denied everywhere.
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
  return merged;
}

function union(a: readonly string[] | undefined, b: readonly string[] | undefined): string[] | undefined {
  if (!a && !b) return undefined;
  return [...new Set([...(a ?? []), ...(b ?? [])])];
}
