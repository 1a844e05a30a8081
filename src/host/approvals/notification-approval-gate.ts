/**
 * Approvals as editor notifications (SPEC 4.1): Approve, Deny, Always This Session, Show
 * Details. Protected paths ask in a modal dialog. "Always" is remembered under a session-rule
 * key (session-rules.ts): a tool name, or for commands a pattern such as `bash:git status`; a
 * call that must ask every time (a plan, a protected path, a secret: call-risk.ts mustAsk) or a
 * compound command has no key, so it offers no "Always" and no stored key answers for it. Each
 * answer is bound to one tool-call id (and its arguments' hash): a second request for the same
 * call is refused, so an approval can never be replayed. No answer in five minutes is a denial.
 */
import * as vscode from 'vscode';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from '../../core/policy/approval';
import { isWarning } from '../../core/policy/call-risk';
import { sessionRuleKey, sessionRuleLabel } from '../../core/policy/session-rules';
import { visibleText } from '../../core/text/visible-text';

const APPROVE = 'Approve';
const DENY = 'Deny';
const ALWAYS = 'Always This Session';
const DETAILS = 'Show Details';

export interface NotificationGateOptions {
  timeoutMs?: number;
  /** Opens what the call will do (for now: its full input). */
  showDetails?: (request: ApprovalRequest) => Promise<void>;
  /** The session that asks, when the window has several: every notification names it. */
  sessionName?: string;
}

export class NotificationApprovalGate implements ApprovalGate {
  private readonly answered = new Set<string>();
  /** conversation id → session-rule keys approved for the rest of the session. */
  private readonly always = new Map<string, Set<string>>();

  constructor(private readonly options: NotificationGateOptions = {}) {}

  async request(request: ApprovalRequest): Promise<ApprovalDecision> {
    if (this.answered.has(request.toolCallId)) {
      return {
        approved: false,
        source: 'user',
        reason: 'This tool call was already answered; an approval cannot be replayed.',
      };
    }
    this.answered.add(request.toolCallId);
    const { risk } = request;
    const modal = risk.protectedPath;
    const ruleKey = sessionRuleKey(request);
    if (ruleKey !== undefined && this.always.get(request.conversationId)?.has(ruleKey))
      return { approved: true, source: 'session_rule' };

    const who = this.options.sessionName
      ? `OpenAgent (session “${visibleText(this.options.sessionName, { keepNewlines: false })}”)`
      : 'OpenAgent';
    const what = `${who} wants to ${lowerFirst(visibleText(request.summary, { keepNewlines: false }))}`;
    const why = [...risk.reasons, ...risk.cautions].map((reason) => visibleText(reason, { keepNewlines: false }));
    for (;;) {
      const buttons = ruleKey === undefined ? [APPROVE, DENY, DETAILS] : [APPROVE, DENY, ALWAYS, DETAILS];
      // Risky calls are warnings (a protected path: a modal one); routine ones are plain questions.
      const question = modal
        ? vscode.window.showWarningMessage(
            `${what} — a protected path.`,
            { modal: true, detail: ['Protected paths always ask.', ...why.map((reason) => `• ${reason}`)].join('\n') },
            ...buttons,
          )
        : isWarning(risk)
          ? vscode.window.showWarningMessage(`${what}. Careful: ${why.join('; ')}.`, ...buttons)
          : vscode.window.showInformationMessage(`${what}.`, ...buttons);
      const choice = await this.answer(question, request.signal);
      if (choice === 'timeout') return { approved: false, source: 'timeout', reason: 'No answer within 5 minutes.' };
      if (choice === APPROVE) return { approved: true, source: 'user' };
      if (choice === ALWAYS) {
        if (ruleKey === undefined) {
          return {
            approved: true,
            source: 'user',
            reason: 'Approved this once: this call cannot be remembered for the session.',
          };
        }
        const keys = this.always.get(request.conversationId) ?? new Set<string>();
        keys.add(ruleKey);
        this.always.set(request.conversationId, keys);
        const label = sessionRuleLabel(ruleKey);
        return {
          approved: true,
          source: 'user',
          reason: `${label.charAt(0).toUpperCase()}${label.slice(1)} are approved for the rest of this conversation.`,
        };
      }
      if (choice === DETAILS) {
        await (this.options.showDetails ?? showInputAsDocument)(request);
        continue;
      }
      return { approved: false, source: 'user' };
    }
  }

  /** Forgets "Always" rules, e.g. when the user starts a new chat. */
  clearSession(conversationId: string): void {
    this.always.delete(conversationId);
  }

  private async answer(
    question: Thenable<string | undefined>,
    signal: AbortSignal,
  ): Promise<string | undefined | 'timeout'> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.options.timeoutMs ?? 5 * 60_000);
    });
    const aborted = new Promise<never>((_resolve, reject) => {
      if (signal.aborted) reject(signal.reason);
      signal.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
    // Settled later than the race (or never): keep it from being an unhandled rejection.
    aborted.catch(() => undefined);
    try {
      return await Promise.race([question, timeout, aborted]);
    } finally {
      clearTimeout(timer);
    }
  }
}

async function showInputAsDocument(request: ApprovalRequest): Promise<void> {
  const document = await vscode.workspace.openTextDocument({
    content: JSON.stringify(request.input, null, 2),
    language: 'json',
  });
  await vscode.window.showTextDocument(document, { preview: true, preserveFocus: true });
}

function lowerFirst(text: string): string {
  return text.charAt(0).toLowerCase() + text.slice(1);
}
