/**
 * Named approvers in the CLI (issue 37): the team approval gate and policy decorator over the
 * CLI's own, on the team database of OPENAGENT_TEAM_DATABASE_URL (opened when a call first needs
 * an approver), and the conversation's last prompt kept for the approver's context.
 * OPENAGENT_APPROVAL_POLL_MS sets the poll (tests use it to prove delivery without NOTIFY).
 */
import { randomUUID } from 'node:crypto';
import type { AgentPolicy } from '../core/policy/agent-policy';
import type { ApprovalGate, ToolPolicy } from '../core/policy/approval';
import type { AgentEvent } from '../core/events/events';
import type { WorkspaceFiles } from '../core/ports';
import { TeamApprovalGate, withApproverRules, type TeamApprovalDeps } from '../core/team/team-approval-gate';
import type { TeamApprovals } from '../core/team/team-approvals';
import { PgTeamApprovals } from '../team/pg-team-approvals';
import { approvalPreview } from '../core/policy/approval-preview';
import type { CliTeam } from './cli-team';

const MAX_PROMPTS_KEPT = 100;

export interface CliTeamApprovals {
  gate(inner: ApprovalGate): ApprovalGate;
  policy<P extends ToolPolicy>(inner: P): P;
  /** Feeds the session's events (the last prompt of each conversation). */
  record(event: AgentEvent): void;
  close(): Promise<void>;
}

export function cliTeamApprovals(
  cli: { env: NodeJS.ProcessEnv; heldSecrets: { redactValue: <T>(value: T) => T } },
  place: {
    root: string;
    policy: () => AgentPolicy | undefined;
    team: Pick<CliTeam, 'stamp'>;
    workspace: WorkspaceFiles;
  },
): CliTeamApprovals {
  const options = {
    env: cli.env,
    root: place.root,
    policy: place.policy,
    identity: () => place.team.stamp(),
    redact: cli.heldSecrets.redactValue,
    workspace: () => place.workspace,
    newId: randomUUID,
  };
  const url = options.env.OPENAGENT_TEAM_DATABASE_URL?.trim();
  let approvals: PgTeamApprovals | undefined;
  const prompts = new Map<string, string>();
  const poll = Number(options.env.OPENAGENT_APPROVAL_POLL_MS);
  const deps: TeamApprovalDeps = {
    approvals: (): TeamApprovals | undefined => (url ? (approvals ??= new PgTeamApprovals(url)) : undefined),
    policy: options.policy,
    root: () => options.root,
    member: () => options.identity()?.member ?? options.env.OPENAGENT_TEAM_MEMBER?.trim(),
    repository: () => options.identity()?.repository,
    lastUserMessage: (conversationId) => prompts.get(conversationId),
    redact: options.redact,
    preview: async (request) => (await approvalPreview(request, options.workspace())).join('\n'),
    newId: options.newId,
    ...(poll > 0 ? { pollMs: poll } : {}),
  };
  return {
    gate: (inner) => new TeamApprovalGate(inner, deps),
    policy: (inner) => withApproverRules(inner, deps),
    record(event) {
      if (event.type !== 'user_message' || event.agentId !== 'lead') return;
      prompts.delete(event.conversationId);
      prompts.set(event.conversationId, event.text);
      if (prompts.size > MAX_PROMPTS_KEPT) prompts.delete(prompts.keys().next().value!);
    },
    close: async () => {
      await approvals?.close();
    },
  };
}
