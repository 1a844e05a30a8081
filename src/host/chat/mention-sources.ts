/**
 * Resolves chat mentions in VS Code: @file:path through the workspace (contained on real paths,
 * encodings decoded), @selection from the active editor, @problems from the language features,
 * @terminal from the last shell-integration command, @git from the built-in Git extension
 * (staged and unstaged diff).
 */
import * as vscode from 'vscode';
import type { Mention, MentionResolver } from '../../core/session/mentions';
import type { WorkspaceFiles } from '../../core/ports';
import { resolveWorkspacePath } from '../../core/workspace/workspace-path';
import type { TerminalHistory } from '../terminal/terminal-history';

interface GitRepository {
  rootUri: vscode.Uri;
  diff(cached?: boolean): Promise<string>;
}
interface GitApi {
  repositories: GitRepository[];
}

export function createMentionResolver(
  workspace: () => WorkspaceFiles | undefined,
  terminals: TerminalHistory,
): MentionResolver {
  return async (mention: Mention) => {
    switch (mention.kind) {
      case 'file':
        return fileText(workspace(), mention.argument ?? '');
      case 'selection':
        return selectionText();
      case 'problems':
        return problemsText();
      case 'terminal': {
        const text = terminals.describe();
        if (!text) throw new Error('no terminal command has run yet in this window');
        return text;
      }
      case 'git':
        return gitDiff();
    }
  };
}

async function fileText(workspace: WorkspaceFiles | undefined, input: string): Promise<string> {
  if (!workspace) throw new Error('no folder is open');
  const absolute = await resolveWorkspacePath(workspace.root, input, workspace);
  if ((await workspace.stat(absolute))?.type !== 'file') throw new Error(`${input} is not a file`);
  return (await workspace.readText(absolute)).text;
}

function selectionText(): string {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.selection.isEmpty) throw new Error('nothing is selected in the editor');
  const { start, end } = editor.selection;
  const where = `${vscode.workspace.asRelativePath(editor.document.uri, false)}, lines ${start.line + 1}–${end.line + 1}`;
  return `${where} (${editor.document.languageId}):\n${editor.document.getText(editor.selection)}`;
}

function problemsText(): string {
  const lines: string[] = [];
  for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
    for (const item of diagnostics) {
      if (item.severity > vscode.DiagnosticSeverity.Warning) continue;
      const severity = item.severity === vscode.DiagnosticSeverity.Error ? 'error' : 'warning';
      const place = `${vscode.workspace.asRelativePath(uri, false)}:${item.range.start.line + 1}:${item.range.start.character + 1}`;
      lines.push(`${place} ${severity}${item.source ? ` (${item.source})` : ''}: ${item.message}`);
    }
  }
  return lines.length ? lines.join('\n') : 'No errors or warnings are reported.';
}

async function gitDiff(): Promise<string> {
  const extension = vscode.extensions.getExtension<{ getAPI(version: 1): GitApi }>('vscode.git');
  if (!extension) throw new Error('the Git extension is not available');
  const api = (extension.isActive ? extension.exports : await extension.activate()).getAPI(1);
  const folder = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  const repository = api.repositories.find((repo) => folder?.startsWith(repo.rootUri.fsPath)) ?? api.repositories[0];
  if (!repository) throw new Error('this folder is not a Git repository');
  const [staged, unstaged] = await Promise.all([repository.diff(true), repository.diff(false)]);
  if (!staged && !unstaged) return 'No uncommitted changes.';
  return [staged && `Staged:\n${staged}`, unstaged && `Not staged:\n${unstaged}`].filter(Boolean).join('\n\n');
}
