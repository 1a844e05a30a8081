/**
 * The reviewer program in the editor (issue 37): `approvals.reviewer` from the policy in force
 * (the team's or the user's setting; the workspace's is dropped when the layers merge), run for
 * each tool call through the core's gate. A workspace policy that names one is told once per
 * program, and ignored.
 */
import * as vscode from 'vscode';
import type { HeldSecrets } from '../core/llm/held-secrets';
import type { ToolReviewer } from '../core/policy/reviewer';
import { workspaceReviewerNotice } from '../core/policy/reviewer-layers';
import type { PolicySource } from '../host/policy-source';
import { ProgramReviewer } from '../node/reviewer-program';

/** The `review` of the tool policy both hosts pass to their sessions. */
export function wireReviewer(
  context: vscode.ExtensionContext,
  policy: PolicySource,
  heldSecrets: HeldSecrets,
  member: () => string | undefined,
): ToolReviewer['review'] {
  const told = new Set<string>();
  const tell = () => {
    const notice = workspaceReviewerNotice(policy.workspacePolicy()?.policy, '.openagent/agent.yaml');
    if (notice === undefined || told.has(notice)) return;
    told.add(notice);
    void vscode.window.showWarningMessage(`OpenAgent: ${notice}`);
  };
  context.subscriptions.push(policy.onDidChange(tell));
  return new ProgramReviewer({
    setting: () => policy.current()?.approvals?.reviewer,
    secrets: heldSecrets.matcher,
    member,
  }).review;
}
