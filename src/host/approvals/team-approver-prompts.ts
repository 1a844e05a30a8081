/**
 * The approver's side of named approvers in the editor (issue 37), without VS Code: each request
 * newly waiting for me becomes a notification ("bob@corp's agent wants to run `git push --force`
 * in acme/api") with Show Details, Approve and Deny; Deny asks a reason, Approve takes an
 * optional one. The decision goes to the database through the inbox, which refuses anyone who
 * may not decide; a decision that lost the race, or a refusal, is told plainly. "Show Team
 * Approvals" lists every pending request (a dismissed notification, a member back online).
 * team-approver-notifications.ts gives it VS Code's windows.
 */
import type { ApproverInboxPort } from '../../core/team/approver-inbox';
import {
  TeamApprovalRefusedError,
  type TeamApprovalRecord,
  type TeamApprovalVerdict,
} from '../../core/team/team-approvals';
import { visibleText } from '../../core/text/visible-text';

export const SHOW_DETAILS = 'Show Details';
export const APPROVE = 'Approve';
export const DENY = 'Deny';

/** What the prompts need of the editor's windows. */
export interface ApproverWindow {
  /** A notification with buttons; the button clicked, or undefined when dismissed. */
  ask(text: string, buttons: string[]): Promise<string | undefined>;
  /** A reason typed in an input box; undefined when cancelled. */
  reason(prompt: string, required: boolean): Promise<string | undefined>;
  /** One of `items` picked; undefined when cancelled. */
  pick<T extends { label: string }>(items: T[], placeholder: string): Promise<T | undefined>;
  /** A read-only document. */
  show(title: string, text: string): Promise<void>;
  info(text: string): void;
  warn(text: string): void;
}

const MAX_SUBJECT = 120;

/** "`git push --force origin main`", "`write_file` on infra/main.tf": what the request wants, short. */
export function requestSubject(record: TeamApprovalRecord): string {
  const first = record.shown.split('\n').find((line) => line.trim() !== '') ?? '';
  const command = /^\$ (.*)$/.exec(first)?.[1];
  const subject = command !== undefined ? `run \`${command}\`` : `use ${record.tool}${first ? ` on ${first}` : ''}`;
  const visible = visibleText(subject, { keepNewlines: false });
  return visible.length > MAX_SUBJECT ? `${visible.slice(0, MAX_SUBJECT - 1)}…` : visible;
}

/** The notification's words. */
export function notificationText(record: TeamApprovalRecord): string {
  const where = record.repository ? ` in ${visibleText(record.repository, { keepNewlines: false })}` : '';
  return `${visibleText(record.requester, { keepNewlines: false })}'s agent wants to ${requestSubject(record)}${where}.`;
}

/** The read-only details: what would run or change, the redacted arguments, the last prompt, the deadline. */
export function detailsText(record: TeamApprovalRecord, time: (epochMs: number) => string = isoTime): string {
  const lines = [
    `Approval request ${record.id}`,
    `From: ${record.requester}${record.repository ? ` in ${record.repository}` : ''} (${record.agentId} agent)`,
    `Tool: ${record.tool}`,
    `Why: ${record.matched.join('; ') || 'a team approver rule'}`,
    `Named approvers (any one decides): ${record.approvers.join(', ')}`,
    `Asked: ${time(record.createdAt)}`,
    `Deadline: ${time(record.deadline)} (no answer by then denies it)`,
    '',
    '── What it would do ──',
    record.shown,
    '',
    '── Arguments (secrets redacted) ──',
    JSON.stringify(record.arguments, null, 2) ?? 'null',
    '',
    '── The requester’s last message ──',
    record.lastUserMessage ?? '(none)',
  ];
  return visibleText(lines.join('\n'));
}

function isoTime(epochMs: number): string {
  return new Date(epochMs).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

export class TeamApproverPrompts {
  /** Requests whose notification is on screen (a second prompt for one is not shown). */
  private readonly showing = new Set<string>();
  private readonly stop: () => void;

  constructor(
    private readonly inbox: ApproverInboxPort,
    private readonly window: ApproverWindow,
    private readonly time?: (epochMs: number) => string,
  ) {
    this.stop = inbox.onChange((_pending, added) => {
      for (const record of added) void this.notify(record);
    });
  }

  /** The notification for one request, until a decision or dismissal. */
  async notify(record: TeamApprovalRecord): Promise<void> {
    if (this.showing.has(record.id)) return;
    this.showing.add(record.id);
    try {
      for (;;) {
        const choice = await this.window.ask(notificationText(record), [SHOW_DETAILS, APPROVE, DENY]);
        if (choice === SHOW_DETAILS) {
          await this.window.show(`Approval request from ${record.requester}`, detailsText(record, this.time));
          // The details are open beside it: the question comes back for the answer.
          if (!this.stillPending(record.id)) return;
          continue;
        }
        if (choice === APPROVE || choice === DENY) await this.decide(record, choice === APPROVE ? 'approve' : 'deny');
        return;
      }
    } finally {
      this.showing.delete(record.id);
    }
  }

  /** "Show Team Approvals": every pending request in a quick pick; the one picked is asked again. */
  async list(): Promise<void> {
    const pending = await this.inbox.refresh().catch((error: unknown) => {
      this.window.warn(`OpenAgent could not read the team's approval requests: ${messageOf(error)}`);
      return undefined;
    });
    if (!pending) return;
    if (pending.length === 0) {
      this.window.info('No approval request is waiting for you.');
      return;
    }
    const picked = await this.window.pick(
      pending.map((record) => ({
        label: notificationText(record),
        description: `until ${(this.time ?? isoTime)(record.deadline)}`,
        record,
      })),
      'Approval requests waiting for you',
    );
    if (picked) {
      this.showing.delete(picked.record.id);
      await this.notify(picked.record);
    }
  }

  dispose(): void {
    this.stop();
  }

  private stillPending(id: string): boolean {
    return this.inbox.pending().some((record) => record.id === id);
  }

  private async decide(record: TeamApprovalRecord, verdict: TeamApprovalVerdict): Promise<void> {
    const what = requestSubject(record);
    const reason = await this.window.reason(
      verdict === 'deny'
        ? `Why deny ${record.requester}'s request to ${what}? (the agent reads it)`
        : `Approving ${record.requester}'s request to ${what}: a reason, if you like (Enter to approve)`,
      verdict === 'deny',
    );
    // Cancelled: nothing is decided; the request stays in "Show Team Approvals".
    if (reason === undefined) return;
    try {
      const { won, record: after } = await this.inbox.decide(record.id, verdict, reason.trim() || undefined);
      if (won) {
        this.window.info(
          `You ${verdict === 'approve' ? 'approved' : 'denied'} ${record.requester}'s request to ${what}.`,
        );
        return;
      }
      this.window.warn(`Someone else decided first: ${record.requester}'s request to ${what} was ${outcomeOf(after)}.`);
    } catch (error) {
      if (error instanceof TeamApprovalRefusedError)
        this.window.warn(`The team database refused your decision: ${error.message}`);
      else this.window.warn(`OpenAgent could not send your decision (the request stays pending): ${messageOf(error)}`);
    }
  }
}

function outcomeOf(record: TeamApprovalRecord): string {
  const said = record.reason ? ` (${record.reason})` : '';
  switch (record.state) {
    case 'approved':
      return `approved by ${record.decidedBy ?? 'another approver'}${said}`;
    case 'denied':
      return `denied by ${record.decidedBy ?? 'another approver'}${said}`;
    case 'timed_out':
      return 'denied: its deadline passed';
    case 'withdrawn':
      return 'withdrawn by the requester';
    default:
      return 'still pending';
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
