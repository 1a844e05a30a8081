/**
 * The approver's notifications in VS Code (issue 37): while a team database is configured and
 * open, the requests waiting for this member are read (LISTEN/NOTIFY, and a poll behind it) and
 * each new one is a notification (team-approver-prompts.ts). With no team nothing here runs: it
 * starts when the team service opens its connection, and follows it when the URL changes.
 */
import * as vscode from 'vscode';
import { ApproverInbox } from '../../core/team/approver-inbox';
import type { TeamApprovals } from '../../core/team/team-approvals';
import { ReadOnlyDocuments } from '../read-only-documents';
import { TeamApproverPrompts, type ApproverWindow } from './team-approver-prompts';

export const SHOW_TEAM_APPROVALS_COMMAND = 'openagent.showTeamApprovals';

/** What it needs of the team service. */
export interface ApproverTeam {
  approvals(): TeamApprovals | undefined;
  onDidChangeStatus: vscode.Event<void>;
}

export class TeamApproverNotifications implements vscode.Disposable {
  private running: { approvals: TeamApprovals; inbox: ApproverInbox; prompts: TeamApproverPrompts } | undefined;
  private documents: ReadOnlyDocuments | undefined;
  private readonly following: vscode.Disposable;

  constructor(
    private readonly team: ApproverTeam,
    private readonly pollMs = Number(process.env.OPENAGENT_APPROVAL_POLL_MS) || undefined,
  ) {
    this.following = team.onDidChangeStatus(() => this.follow());
    this.follow();
  }

  /** "OpenAgent: Show Team Approvals". */
  async showApprovals(): Promise<void> {
    this.follow();
    if (!this.running) {
      void vscode.window.showInformationMessage(
        'OpenAgent has no team database open: approval requests come from a team ("Set Team Database").',
      );
      return;
    }
    await this.running.prompts.list();
  }

  dispose(): void {
    this.following.dispose();
    this.stop();
    this.documents?.dispose();
  }

  private follow(): void {
    const approvals = this.team.approvals();
    if (approvals === this.running?.approvals) return;
    this.stop();
    if (!approvals) return;
    const inbox = new ApproverInbox(approvals, this.pollMs ? { pollMs: this.pollMs } : {});
    const prompts = new TeamApproverPrompts(inbox, this.window());
    this.running = { approvals, inbox, prompts };
    inbox.start();
  }

  private stop(): void {
    this.running?.prompts.dispose();
    this.running?.inbox.dispose();
    this.running = undefined;
  }

  private window(): ApproverWindow {
    return {
      ask: (text, buttons) => Promise.resolve(vscode.window.showInformationMessage(`OpenAgent: ${text}`, ...buttons)),
      reason: (prompt, required) =>
        Promise.resolve(
          vscode.window.showInputBox({
            title: 'OpenAgent: Team Approval',
            prompt,
            ignoreFocusOut: true,
            ...(required
              ? { validateInput: (text: string) => (text.trim() ? undefined : 'Say why: the agent reads the reason.') }
              : {}),
          }),
        ),
      pick: (items, placeholder) =>
        Promise.resolve(
          vscode.window.showQuickPick(items, { title: 'OpenAgent: Team Approvals', placeHolder: placeholder }),
        ),
      show: async (title, text) => {
        this.documents ??= new ReadOnlyDocuments('openagent-team-approval');
        const document = await this.documents.open(title, text, 'plaintext');
        await vscode.window.showTextDocument(document, { preview: true, preserveFocus: true });
      },
      info: (text) => void vscode.window.showInformationMessage(`OpenAgent: ${text}`),
      warn: (text) => void vscode.window.showWarningMessage(`OpenAgent: ${text}`),
    };
  }
}
