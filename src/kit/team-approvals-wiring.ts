/**
 * Named approvers in the editor (issue 37), as the CLI has them (src/cli/team-approvals-wiring.ts):
 * each session's approval gate and tool policy wrapped so that a call a team approver rule
 * matches becomes a request in the team database instead of a local question. The team
 * connection is the window's (TeamService): the approvals adapter opens only when a call first
 * needs an approver, and only when a team is configured. Rules match paths relative to the
 * session's own folder (a worktree session's, not the window's).
 */
import { randomUUID } from 'node:crypto';
import type { AgentPolicy } from '../core/policy/agent-policy';
import type { ApprovalGate, ToolPolicy } from '../core/policy/approval';
import type { AgentEvent } from '../core/events/events';
import type { HeldSecrets } from '../core/llm/held-secrets';
import type { WorkspaceFiles } from '../core/ports';
import { TeamApprovalGate, withApproverRules, type TeamApprovalDeps } from '../core/team/team-approval-gate';
import type { TeamApprovals } from '../core/team/team-approvals';
import { approvalPreview } from '../core/policy/approval-preview';

const MAX_PROMPTS_KEPT = 100;

/** What the window's team connection gives (TeamService). */
export interface TeamConnection {
  approvals(): TeamApprovals | undefined;
  stamp(): { member: string; repository?: string } | undefined;
}

/** Where one session works. */
export interface SessionPlace {
  root: () => string | undefined;
  workspace: () => WorkspaceFiles | undefined;
}

export interface EditorTeamApprovals {
  /** The session's gate, with calls that need a named approver sent to the team. */
  gate(inner: ApprovalGate, place: SessionPlace): ApprovalGate;
  /** The session's tool policy, with such calls taken out of every rule's and auto-approve's hands. */
  policy<P extends ToolPolicy>(inner: P, root: () => string | undefined): P;
  /** Feeds a session's events: the last prompt of each conversation, for the approver's context. */
  record(event: AgentEvent): void;
}

export function editorTeamApprovals(
  team: TeamConnection,
  policy: () => AgentPolicy | undefined,
  heldSecrets: Pick<HeldSecrets, 'redactValue'>,
): EditorTeamApprovals {
  const prompts = new Map<string, string>();
  const deps = (place: Pick<SessionPlace, 'root'> & Partial<SessionPlace>): TeamApprovalDeps => ({
    approvals: () => team.approvals(),
    policy,
    root: place.root,
    member: () => team.stamp()?.member,
    repository: () => team.stamp()?.repository,
    lastUserMessage: (conversationId) => prompts.get(conversationId),
    redact: (value) => heldSecrets.redactValue(value),
    preview: async (request) => (await approvalPreview(request, place.workspace?.())).join('\n'),
    newId: randomUUID,
  });
  return {
    gate: (inner, place) => new TeamApprovalGate(inner, deps(place)),
    policy: (inner, root) => withApproverRules(inner, deps({ root })),
    record(event) {
      if (event.type !== 'user_message' || event.agentId !== 'lead') return;
      prompts.delete(event.conversationId);
      prompts.set(event.conversationId, event.text);
      if (prompts.size > MAX_PROMPTS_KEPT) prompts.delete(prompts.keys().next().value!);
    },
  };
}
