/**
 * Approvals as editor notifications (SPEC 4.1): Approve, Deny, Always This Session, Show
 * Details. Protected paths ask in a modal dialog. "Always" is remembered under a session-rule
 * key (session-rules.ts): a tool name, or for commands a pattern such as `bash:git status`; a
 * call that must ask every time (a plan, a protected path, a secret: call-risk.ts mustAsk) or a
 * compound command has no key, so it offers no "Always" and no stored key answers for it. Each
 * answer is bound to one tool-call id (and its arguments' hash): a second request for the same
 * call is refused, so an approval can never be replayed. No answer in five minutes is a denial.
 *
 * With several sessions a question that waited hides in the notification center: showing the
 * session again (`resurface`) puts each of its waiting questions up again as a fresh
 * notification. Every notification of a question answers it, the first answer only
 * (pending-question.ts); a stopped run ends its questions, and their notifications then do nothing.
 */
import * as vscode from 'vscode';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from '../../core/policy/approval';
import { isWarning } from '../../core/policy/call-risk';
import { sessionRuleKey, sessionRuleLabel } from '../../core/policy/session-rules';
import { visibleText } from '../../core/text/visible-text';
import { PendingQuestion, TIMEOUT } from './pending-question';

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
  /** The editor's notifications (VS Code's by default). */
  notices?: ApprovalNotices;
  /** A question shown this recently is not shown again (a double click on the session's row). */
  resurfaceAfterMs?: number;
  now?: () => number;
}

/** How a question is put to the user: a plain notification, a warning, or a modal dialog. */
export type NoticeKind = 'information' | 'warning' | 'modal';

/** The editor's notifications, as the gate uses them (a port: tests stand in for it). */
export interface ApprovalNotices {
  ask(
    kind: NoticeKind,
    text: string,
    detail: string | undefined,
    buttons: readonly string[],
  ): Thenable<string | undefined>;
}

export const vscodeNotices: ApprovalNotices = {
  ask: (kind, text, detail, buttons) =>
    kind === 'modal'
      ? vscode.window.showWarningMessage(text, { modal: true, ...(detail ? { detail } : {}) }, ...buttons)
      : kind === 'warning'
        ? vscode.window.showWarningMessage(text, ...buttons)
        : vscode.window.showInformationMessage(text, ...buttons),
};

export class NotificationApprovalGate implements ApprovalGate {
  private readonly answered = new Set<string>();
  /** conversation id → session-rule keys approved for the rest of the session. */
  private readonly always = new Map<string, Set<string>>();
  /** The questions waiting for the user, by tool-call id. */
  private readonly waiting = new Map<string, PendingQuestion>();

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
    const buttons = ruleKey === undefined ? [APPROVE, DENY, DETAILS] : [APPROVE, DENY, ALWAYS, DETAILS];
    const notices = this.options.notices ?? vscodeNotices;
    // Risky calls are warnings (a protected path: a modal one); routine ones are plain questions.
    const show = modal
      ? () =>
          notices.ask(
            'modal',
            `${what} — a protected path.`,
            ['Protected paths always ask.', ...why.map((reason) => `• ${reason}`)].join('\n'),
            buttons,
          )
      : isWarning(risk)
        ? () => notices.ask('warning', `${what}. Careful: ${why.join('; ')}.`, undefined, buttons)
        : () => notices.ask('information', `${what}.`, undefined, buttons);
    const question = new PendingQuestion(show, {
      signal: request.signal,
      timeoutMs: this.options.timeoutMs ?? 5 * 60_000,
      modal,
      ...(this.options.now ? { now: this.options.now } : {}),
    });
    this.waiting.set(request.toolCallId, question);
    try {
      for (;;) {
        // Each round shows a notification: the first, or a new one after "Show Details".
        const choice = await question.next();
        if (choice === TIMEOUT) return { approved: false, source: 'timeout', reason: 'No answer within 5 minutes.' };
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
    } finally {
      question.close();
      this.waiting.delete(request.toolCallId);
    }
  }

  /** How many questions wait for the user. */
  get pendingCount(): number {
    return this.waiting.size;
  }

  /**
   * Shows each waiting question again as a fresh notification (the user came to the session
   * that asks); returns how many were shown. A modal question is still on screen: not repeated.
   */
  resurface(): number {
    const now = (this.options.now ?? Date.now)();
    let shown = 0;
    for (const question of this.waiting.values()) {
      if (question.isModal || now - question.lastShown < (this.options.resurfaceAfterMs ?? 1_000)) continue;
      if (question.show()) shown++;
    }
    return shown;
  }

  /** Forgets "Always" rules, e.g. when the user starts a new chat. */
  clearSession(conversationId: string): void {
    this.always.delete(conversationId);
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
