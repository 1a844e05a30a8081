/**
 * Where a window keeps its chat (the chat that comes back) and its list of sessions: a file in the extension's storage
 * for this workspace — so two windows on two folders each keep their own, and a write is on
 * disk at once, whatever happens to the window next — or, where there is no such folder on
 * disk (an empty window, a web-only host), the workspace state VS Code keeps per window.
 */
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChatKeeping } from '../../core/session/chat-keeper';
import { AtomicTextFile } from '../../node/atomic-text-file';

export function windowChatKeeping(context: vscode.ExtensionContext, what: 'chat' | 'sessions' = 'chat'): ChatKeeping {
  const folder = context.storageUri;
  if (folder?.scheme === 'file') return new AtomicTextFile(path.join(folder.fsPath, `${what}.json`));
  const key = `openagent.${what}`;
  return {
    read: async () => context.workspaceState.get<string>(key),
    write: async (text) => context.workspaceState.update(key, text),
  };
}

/** What the window has open (a workspace file, or its first folder; '' for none), to check what was kept against. */
export function windowWorkspace(): string {
  return (vscode.workspace.workspaceFile ?? vscode.workspace.workspaceFolders?.[0]?.uri)?.toString() ?? '';
}
