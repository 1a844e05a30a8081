/**
 * "Show Details" on an approval: a diff (vscode.diff) of what an edit or write would do, the
 * full command for bash and background jobs, the plan as markdown, the raw input otherwise.
 * What is shown is served read-only from memory under the openagent-proposal scheme (never an
 * untitled document, which closing would offer to save).
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ApprovalRequest } from '../../core/policy/approval';
import { proposedChange } from '../../core/tools/builtin/proposed-change';
import type { WorkspaceFiles } from '../../core/ports';
import { Disposable } from '../disposable';
import { visibleText } from '../../core/text/visible-text';
import { ReadOnlyDocuments } from '../read-only-documents';

const SCHEME = 'openagent-proposal';

export class ApprovalDetails extends Disposable {
  /** Also what other commands show to be read (the usage table): see read-only-documents.ts. */
  readonly documents = this._register(new ReadOnlyDocuments(SCHEME));

  /**
   * Show Details for the approvals of a session working in `workspace`: an edit's "current" side
   * is that session's file (a worktree session's own copy, not the window's).
   */
  showIn(workspace: () => WorkspaceFiles | undefined): (request: ApprovalRequest) => Promise<void> {
    return (request) => this.show(request, workspace);
  }

  private async show(request: ApprovalRequest, workspaceOf: () => WorkspaceFiles | undefined): Promise<void> {
    const input = (request.input ?? {}) as { command?: unknown; plan?: unknown };
    // Shown as it will run: a carriage return or an escape sequence is written out, not obeyed.
    if (typeof input.command === 'string')
      return this.showText(visibleText(input.command), 'shellscript', 'command.sh');
    if (typeof input.plan === 'string') return this.showText(input.plan, 'markdown', 'plan.md');
    const workspace = workspaceOf();
    const change = workspace && (await proposedChange(workspace, request.toolName, request.input));
    if (!change) return this.showText(JSON.stringify(request.input, null, 2), 'json', `${request.toolName}.json`);
    if (!change.ok) {
      void vscode.window.showWarningMessage(`This ${request.toolName} call would fail: ${change.reason}`);
      return;
    }
    const name = path.basename(change.path);
    const left = this.serve(`${name} (current)`, change.before ?? '');
    const right = this.serve(`${name} (proposed)`, change.after);
    const title = `${vscode.workspace.asRelativePath(change.path, false)}: ${change.before === undefined ? 'new file' : 'current ↔ proposed'} (OpenAgent)`;
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true, preserveFocus: false });
  }

  /** A file as an earlier turn found it (`before`; null: it did not exist) against the file now. */
  async showSinceTurn(absolute: string, before: string | null): Promise<void> {
    const name = path.basename(absolute);
    const left = this.serve(`${name} (before the turn)`, before ?? '');
    const relative = vscode.workspace.asRelativePath(absolute, false);
    await vscode.commands.executeCommand(
      'vscode.diff',
      left,
      vscode.Uri.file(absolute),
      `${relative}: before the turn ↔ now`,
      {
        preview: true,
      },
    );
  }

  private serve(label: string, content: string): vscode.Uri {
    return this.documents.serve(label, content);
  }

  /**
   * Read-only, from memory: an untitled document would count as unsaved, and closing the editor
   * (or the window) would ask the user whether to save a command they only looked at.
   */
  private async showText(content: string, language: string, label: string): Promise<void> {
    const document = await vscode.workspace.openTextDocument(this.serve(label, content));
    const shown =
      document.languageId === language ? document : await vscode.languages.setTextDocumentLanguage(document, language);
    await vscode.window.showTextDocument(shown, { preview: true, preserveFocus: false });
  }
}
