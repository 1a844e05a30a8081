/**
 * "Auto-approve" for one conversation (a developer-panel switch; the CLI's approve-all): a
 * decorator over the real ApprovalGate. While it is on, tool calls are approved without asking,
 * as a session rule — except calls whose assessment (call-risk.ts) gives a reason to ask: a
 * protected path, a secret, a path decided at run time or outside the workspace, a command too
 * complex to tell what it touches, an option known to run something else.
 */
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from './approval';
import { mustAsk } from './call-risk';

export const AUTO_APPROVED_REASON = 'Auto-approve is on for this conversation.';

export class AutoApprovalGate implements ApprovalGate {
  /**
   * @param inner the gate that asks the user.
   * @param isOn whether auto-approve is on for a conversation, read at each request.
   */
  constructor(
    private readonly inner: ApprovalGate,
    private readonly isOn: (conversationId: string) => boolean,
  ) {}

  request(request: ApprovalRequest): Promise<ApprovalDecision> {
    if (this.isOn(request.conversationId) && !needsAskingAnyway(request)) {
      return Promise.resolve({ approved: true, source: 'session_rule', reason: AUTO_APPROVED_REASON });
    }
    return this.inner.request(request);
  }
}

/** Whether a call must be asked about even with auto-approve on. */
export function needsAskingAnyway(request: Pick<ApprovalRequest, 'risk'>): boolean {
  return mustAsk(request.risk);
}
