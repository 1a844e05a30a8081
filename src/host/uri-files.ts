/** Small file helpers over VS Code's file system, for commands that open or create files. */
import * as vscode from 'vscode';

export async function uriExists(uri: vscode.Uri): Promise<boolean> {
  try {
    await vscode.workspace.fs.stat(uri);
    return true;
  } catch {
    return false;
  }
}

/** Opens a file in the editor, first creating it (and its folder) with `initialText` when it is missing. */
export async function showFileCreatingIt(uri: vscode.Uri, initialText: string): Promise<void> {
  if (!(await uriExists(uri))) {
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(uri, '..'));
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(initialText));
  }
  await vscode.window.showTextDocument(uri);
}
