/**
 * The requesting side of named approvers (issue 37). Two decorators:
 * - over the ToolPolicy: a call an approver rule matches is never allowed by a rule, an
 *   auto-approve or "Always" (it asks, in person); a call the policy denies stays denied;
 * - over the ApprovalGate (outermost, before the local person is asked): such a call becomes a
 *   request in the team database instead of a local question. The conversation shows "waiting
 *   for alice@corp, team:leads"; Stop withdraws the request; no model is called meanwhile (the
 *   loop is parked in this await). Approved, it runs; denied or timed out, the model reads the
 *   approver's reason. With the database unreachable the request stays pending and the wait
 *   says so — or, with `on_unreachable: block`, the call is denied.
 */
import type { AgentPolicy } from '../policy/agent-policy';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest, ToolPolicy } from '../policy/approval';
import { approversFor, type ApproverRequirement } from '../policy/approver-rules';
import { calledPaths } from '../policy/call-risk';
import type { AgentEventBody } from '../events/events';
import { TeamUnreachableError } from './team-store';
import { TeamApprovalRefusedError, type TeamApprovalRecord, type TeamApprovals } from './team-approvals';
import { DEFAULT_APPROVAL_POLL_MS, Wakeup, waitForDecision } from './approval-wait';

export interface TeamApprovalDeps {
  /** The team's approvals, when a team database is configured. */
  approvals: () => TeamApprovals | undefined;
  policy: () => AgentPolicy | undefined;
  /** The workspace folder (paths in rules are relative to it). */
  root: () => string | undefined;
  /** Who is asking (the team identity's member). */
  member: () => string | undefined;
  repository?: () => string | undefined;
  /** The conversation's last prompt, for the approver's context. */
  lastUserMessage?: (conversationId: string) => string | undefined;
  /** Removes secrets, as the audit trail does, from what goes to the database. */
  redact: <T>(value: T) => T;
  /** What the approver sees (the command, a diff); default: the command or the arguments. */
  preview?: (request: ApprovalRequest) => Promise<string>;
  newId: () => string;
  pollMs?: number;
}

type TeamEvent = Extract<AgentEventBody, { type: 'team_approval' }>;

/** The requirement for a call (with its real path once checked), if an approver rule matches. */
export function requirementFor(
  deps: Pick<TeamApprovalDeps, 'policy' | 'root'>,
  call: {
    toolName: string;
    input: unknown;
    command?: string;
    paths?: readonly string[];
    openPaths?: readonly string[];
  },
): ApproverRequirement | undefined {
  return approversFor(deps.policy()?.approvals?.approvers, call, deps.root());
}

/** The ToolPolicy, with calls that need a named approver taken out of every rule's hands. */
export function withApproverRules<P extends ToolPolicy>(inner: P, deps: Pick<TeamApprovalDeps, 'policy' | 'root'>): P {
  return {
    ...inner,
    evaluate(call) {
      const verdict = inner.evaluate(call);
      if (verdict.action === 'deny') return verdict;
      const requirement = requirementFor(deps, call);
      if (!requirement) return verdict;
      return { action: 'ask', inPerson: `a named approver decides it (${requirement.approvers.join(', ')})` };
    },
  };
}

export class TeamApprovalGate implements ApprovalGate {
  constructor(
    private readonly inner: ApprovalGate,
    private readonly deps: TeamApprovalDeps,
  ) {}

  request(request: ApprovalRequest): Promise<ApprovalDecision> {
    // The very call the policy saw (tool-gates.ts): any difference would let one of the two miss it.
    const command = request.command ?? request.risk.command;
    const requirement = requirementFor(this.deps, {
      toolName: request.toolName,
      input: request.input,
      ...(command !== undefined ? { command } : {}),
      ...calledPaths(request.risk),
    });
    if (!requirement) return this.inner.request(request);
    return this.teamDecision(request, requirement);
  }

  private async teamDecision(request: ApprovalRequest, requirement: ApproverRequirement): Promise<ApprovalDecision> {
    const id = this.deps.newId();
    const names = requirement.approvers;
    const tell = (event: Omit<TeamEvent, 'type' | 'toolCallId' | 'requestId' | 'approvers'>) =>
      request.emit?.({
        type: 'team_approval',
        toolCallId: request.toolCallId,
        requestId: id,
        approvers: names,
        ...event,
      });
    const refuse = (reason: string): ApprovalDecision => {
      tell({ state: 'refused', reason });
      return { approved: false, source: 'policy', reason };
    };
    const approvals = this.deps.approvals();
    const member = this.deps.member();
    if (!approvals || !member)
      return refuse(
        `${request.toolName} needs a named approver (${names.join(', ')}), and no team database is configured to ask them.`,
      );
    const block = this.deps.policy()?.approvals?.on_unreachable === 'block';
    const pollMs = this.deps.pollMs ?? DEFAULT_APPROVAL_POLL_MS;
    const shown = this.deps.redact(await this.shown(request));
    const lastPrompt = this.deps.lastUserMessage?.(request.conversationId);
    const filing = {
      id,
      requester: member,
      ...(this.deps.repository?.() ? { repository: this.deps.repository()! } : {}),
      conversationId: request.conversationId,
      agentId: 'lead',
      tool: request.toolName,
      arguments: this.deps.redact(request.input),
      shown,
      ...(lastPrompt !== undefined ? { lastUserMessage: this.deps.redact(lastPrompt) } : {}),
      matched: requirement.matched,
      approvers: names,
      timeoutMs: requirement.timeoutMs,
    };
    // Filed (again, with the same id) until the database answers: a retry answers the first.
    const wakeup = new Wakeup();
    let toldAway = false;
    let filed: Awaited<ReturnType<TeamApprovals['request']>> | undefined;
    while (!filed) {
      try {
        filed = await approvals.request(filing);
      } catch (error) {
        if (error instanceof TeamApprovalRefusedError)
          return refuse(`The team database refused the request: ${error.message}`);
        if (!(error instanceof TeamUnreachableError)) throw error;
        if (block) return refuse(unreachableDenial(error.message));
        if (!toldAway) tell({ state: 'unreachable', reason: error.message });
        toldAway = true;
        await wakeup.sleep(pollMs, request.signal);
      }
    }
    tell({
      state: 'waiting',
      deadline: filed.record.deadline,
      ...(filed.unknown.length ? { unknown: filed.unknown } : {}),
    });
    // Stop: the request is taken back (best effort: an unreachable database times it out later).
    const withdraw = () => {
      approvals.withdraw(id).catch(() => undefined);
      tell({ state: 'withdrawn', reason: 'the run was stopped' });
    };
    request.signal.addEventListener('abort', withdraw, { once: true });
    try {
      const outcome = await waitForDecision(approvals, id, {
        signal: request.signal,
        pollMs,
        blockWhenUnreachable: block,
        onUnreachable: (reason) => tell({ state: 'unreachable', reason }),
        onReachable: () => tell({ state: 'waiting', deadline: filed.record.deadline }),
      });
      if ('unreachable' in outcome) return refuse(unreachableDenial(outcome.unreachable));
      return this.decision(outcome.record, tell);
    } finally {
      request.signal.removeEventListener('abort', withdraw);
    }
  }

  private decision(
    record: TeamApprovalRecord,
    tell: (event: Omit<TeamEvent, 'type' | 'toolCallId' | 'requestId' | 'approvers'>) => void,
  ): ApprovalDecision {
    const said = record.reason ? `: ${record.reason}` : '';
    const by = record.decidedBy ?? 'an approver';
    const fields = {
      ...(record.decidedBy ? { by: record.decidedBy } : {}),
      ...(record.reason ? { reason: record.reason } : {}),
    };
    switch (record.state) {
      case 'approved':
        tell({ state: 'approved', ...fields });
        return { approved: true, source: 'user', reason: `approved by ${by}${said}` };
      case 'denied':
        tell({ state: 'denied', ...fields });
        return { approved: false, source: 'user', reason: `${by} denied it${said}` };
      case 'timed_out': {
        const reason = `no named approver (${record.approvers.join(', ')}) decided in time`;
        tell({ state: 'timed_out', reason });
        return { approved: false, source: 'timeout', reason };
      }
      default:
        tell({ state: 'withdrawn', ...fields });
        return { approved: false, source: 'user', reason: 'the approval request was withdrawn' };
    }
  }

  private async shown(request: ApprovalRequest): Promise<string> {
    if (this.deps.preview) {
      try {
        return await this.deps.preview(request);
      } catch {
        // The plain form below.
      }
    }
    const command = request.command ?? request.risk.command;
    if (command !== undefined) return `$ ${command}`;
    return `${request.summary}\n${JSON.stringify(request.input, null, 2) ?? ''}`;
  }
}

function unreachableDenial(reason: string): string {
  return `the team database is unreachable (${reason}) and the policy says on_unreachable: block`;
}
