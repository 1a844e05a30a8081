/**
 * Which layer's `approvals.reviewer` is in force: the team's, else the user's, never the
 * workspace's. A repository must not pick the program that approves its own agent's calls (a
 * reviewer that says "allow" to everything cannot loosen anything, but one the repository wrote
 * could read every call's arguments or stall every call); the team's program is the team's rule,
 * which a member's own cannot replace.
 */
import type { AgentPolicy } from './agent-policy';
import type { ReviewerSetting } from './reviewer-setting';

/**
 * Sets `merged`'s reviewer to `chosen` (removes it when undefined), copying `merged.approvals`
 * first: it may be one layer's own object, which must not change.
 */
export function withReviewer(merged: AgentPolicy, chosen: ReviewerSetting | undefined): AgentPolicy {
  if (!merged.approvals) {
    if (chosen) merged.approvals = { reviewer: chosen };
    return merged;
  }
  const approvals = { ...merged.approvals };
  if (chosen) approvals.reviewer = chosen;
  else delete approvals.reviewer;
  merged.approvals = approvals;
  return merged;
}

/** What to tell the user when the workspace's policy names a reviewer (it is ignored); undefined otherwise. */
export function workspaceReviewerNotice(workspace: AgentPolicy | undefined, where: string): string | undefined {
  const command = workspace?.approvals?.reviewer?.command;
  if (!command) return undefined;
  return (
    `${where} names a reviewer program (${JSON.stringify(command[0])}); it is ignored: only your own ` +
    "policy or the team's can choose the program that reviews the agent's calls."
  );
}
