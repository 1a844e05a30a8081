/**
 * Resolves chat mentions in VS Code: @file:path through the workspace (contained on real paths,
 * encodings decoded), @selection from the active editor, @problems from the language features,
 * @terminal from the last shell-integration command, @git from the built-in Git extension
 * (staged and unstaged diff). Nothing of a secret file (`.env`, keys: secret-reads.ts) is attached:
 * not its text, not a selection in it, not its problems, not its changes. A mention cannot ask,
 * so it says what was left out and that read_file, which asks, is the way to a secret.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Mention, MentionResolver } from '../../core/session/mentions';
import type { WorkspaceFiles } from '../../core/ports';
import { isSecretPath } from '../../core/policy/protected-paths';
import { SecretReads, SECRETS_LEFT_OUT, withoutSecretChanges } from '../../core/policy/secret-reads';
import { resolveWorkspacePath } from '../../core/workspace/workspace-path';
import { redactText } from '../../core/llm/redact';
import type { TerminalHistory } from '../terminal/terminal-history';

interface GitRepository {
  rootUri: vscode.Uri;
  diff(cached?: boolean): Promise<string>;
}
interface GitApi {
  repositories: GitRepository[];
}

/** A worktree session's uncommitted diffs (undefined: the folder is no session worktree). */
export type WorktreeDiff = (root: string) => Promise<{ staged: string; unstaged: string } | undefined>;

export function createMentionResolver(
  workspace: () => WorkspaceFiles | undefined,
  terminals: TerminalHistory,
  worktreeDiff?: WorktreeDiff,
): MentionResolver {
  return async (mention: Mention) => {
    switch (mention.kind) {
      case 'file':
        return fileText(workspace(), mention.argument ?? '');
      case 'selection':
        return selectionText(workspace());
      case 'problems':
        return problemsText(workspace());
      case 'terminal': {
        const text = terminals.describe();
        if (!text) throw new Error('no terminal command has run yet in this window');
        // A terminal is no file to judge: what looks like a secret in it (`cat .env`'s
        // assignments, keys, private key blocks) goes; held secrets leave every request anyway.
        return redactText(text);
      }
      case 'git':
        return gitDiff(workspace()?.root, worktreeDiff);
    }
  };
}

async function fileText(workspace: WorkspaceFiles | undefined, input: string): Promise<string> {
  if (!workspace) throw new Error('no folder is open');
  const absolute = await resolveWorkspacePath(workspace.root, input, workspace);
  if ((await workspace.stat(absolute))?.type !== 'file') throw new Error(`${input} is not a file`);
  if (await (await SecretReads.of(workspace)).hides(absolute)) throw new Error(notAttached(input));
  return (await workspace.readText(absolute)).text;
}

function notAttached(what: string): string {
  return `${what} holds secrets, so it is not attached; ask for it to be read with read_file, which asks you first`;
}

/** Whether a file is a secret, by its place in the workspace and where it really leads (or its whole path, with no folder open). */
async function isSecretFile(workspace: WorkspaceFiles | undefined, absolute: string): Promise<boolean> {
  return workspace ? (await SecretReads.of(workspace)).hides(absolute) : isSecretPath(absolute);
}

async function selectionText(workspace: WorkspaceFiles | undefined): Promise<string> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.selection.isEmpty) throw new Error('nothing is selected in the editor');
  if (await isSecretFile(workspace, editor.document.uri.fsPath))
    throw new Error(notAttached(vscode.workspace.asRelativePath(editor.document.uri, false)));
  const { start, end } = editor.selection;
  const where = `${vscode.workspace.asRelativePath(editor.document.uri, false)}, lines ${start.line + 1}–${end.line + 1}`;
  return `${where} (${editor.document.languageId}):\n${editor.document.getText(editor.selection)}`;
}

async function problemsText(workspace: WorkspaceFiles | undefined): Promise<string> {
  const lines: string[] = [];
  let leftOut = false;
  for (const [uri, diagnostics] of vscode.languages.getDiagnostics()) {
    // A problem's message can quote the secret line it is about.
    if (diagnostics.length > 0 && (await isSecretFile(workspace, uri.fsPath))) {
      leftOut = true;
      continue;
    }
    for (const item of diagnostics) {
      if (item.severity > vscode.DiagnosticSeverity.Warning) continue;
      const severity = item.severity === vscode.DiagnosticSeverity.Error ? 'error' : 'warning';
      const place = `${vscode.workspace.asRelativePath(uri, false)}:${item.range.start.line + 1}:${item.range.start.character + 1}`;
      lines.push(`${place} ${severity}${item.source ? ` (${item.source})` : ''}: ${item.message}`);
    }
  }
  const note = leftOut ? `\n[Problems in secret files are not attached. ${SECRETS_LEFT_OUT}]` : '';
  return (lines.length ? lines.join('\n') : 'No errors or warnings are reported.') + note;
}

async function gitDiff(root: string | undefined, worktreeDiff: WorktreeDiff | undefined): Promise<string> {
  if (!root) throw new Error('no folder is open');
  // A worktree session's folder is outside what VS Code opened: its own git answers for it.
  const diffs = (await worktreeDiff?.(root)) ?? (await extensionDiff(root));
  const { staged, unstaged } = diffs;
  if (!staged && !unstaged) return 'No uncommitted changes.';
  // A tracked `.env` or key file's changes are its secret lines.
  const shown = (diff: string) => withoutSecretChanges(diff, isSecretPath);
  return [staged && `Staged:\n${shown(staged)}`, unstaged && `Not staged:\n${shown(unstaged)}`]
    .filter(Boolean)
    .join('\n\n');
}

/** The staged and unstaged diffs of the repository holding `root`, from VS Code's Git extension. */
async function extensionDiff(root: string): Promise<{ staged: string; unstaged: string }> {
  const extension = vscode.extensions.getExtension<{ getAPI(version: 1): GitApi }>('vscode.git');
  if (!extension) throw new Error('the Git extension is not available');
  const api = (extension.isActive ? extension.exports : await extension.activate()).getAPI(1);
  // The innermost repository holding the folder.
  const repository = api.repositories
    .filter((repo) => root === repo.rootUri.fsPath || root.startsWith(repo.rootUri.fsPath + path.sep))
    .sort((a, b) => b.rootUri.fsPath.length - a.rootUri.fsPath.length)[0];
  if (!repository) throw new Error('this folder is not a Git repository');
  const [staged, unstaged] = await Promise.all([repository.diff(true), repository.diff(false)]);
  return { staged, unstaged };
}
