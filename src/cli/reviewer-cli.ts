/**
 * The reviewer program in the CLI (issue 37): `approvals.reviewer` from the policy in force
 * (the team's, or ~/.openagent/agent.yaml's; the folder's is dropped when the layers merge),
 * through the same core gate as the editor. A folder policy that names one is told once per
 * program on stderr, and ignored.
 */
import type { HeldSecrets } from '../core/llm/held-secrets';
import type { AgentPolicy } from '../core/policy/agent-policy';
import type { ToolReviewer } from '../core/policy/reviewer';
import { workspaceReviewerNotice } from '../core/policy/reviewer-layers';
import { ProgramReviewer } from '../node/reviewer-program';

/** Tells once per program that the folder's policy names a reviewer (called when the policy is read). */
export function workspaceReviewerWarning(
  warn: (message: string) => void,
): (workspace: AgentPolicy | undefined, file: string) => void {
  const told = new Set<string>();
  return (workspace, file) => {
    const notice = workspaceReviewerNotice(workspace, file);
    if (notice === undefined || told.has(notice)) return;
    told.add(notice);
    warn(`openagent: ${notice}`);
  };
}

export function cliReviewer(
  policy: () => AgentPolicy | undefined,
  heldSecrets: HeldSecrets,
  member: () => string | undefined,
): ToolReviewer['review'] {
  return new ProgramReviewer({ setting: () => policy()?.approvals?.reviewer, secrets: heldSecrets.matcher, member })
    .review;
}
