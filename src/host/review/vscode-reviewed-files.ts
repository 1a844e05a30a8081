/**
 * The review's files in VS Code: read as the editor shows them (unsaved text included), and an
 * undo applied to the document as one WorkspaceEdit of just the changed lines — so the user's
 * Ctrl+Z brings the agent's lines back, the cursor and the rest of the file stay put, and a
 * document with unsaved changes keeps them (and stays unsaved). A document that was saved is
 * saved again after the undo.
 */
import * as vscode from 'vscode';
import type { ReviewedFiles } from '../../core/review/edit-review';
import { minimalEdit } from '../../core/review/hunks';

export class VscodeReviewedFiles implements ReviewedFiles {
  async read(absolute: string): Promise<string | undefined> {
    const document = await this.document(absolute);
    return document?.getText();
  }

  async replace(absolute: string, expected: string, text: string): Promise<boolean> {
    const document = await this.document(absolute);
    if (document?.getText() !== expected) return false;
    const wasDirty = document.isDirty;
    const change = minimalEdit(expected, text);
    const edit = new vscode.WorkspaceEdit();
    edit.replace(
      document.uri,
      new vscode.Range(document.positionAt(change.start), document.positionAt(change.end)),
      change.text,
    );
    // The edit names the document's version: if the user typed since it was read, VS Code refuses it.
    if (!(await vscode.workspace.applyEdit(edit))) return false;
    if (!wasDirty) await document.save();
    return true;
  }

  async delete(absolute: string, expected: string): Promise<boolean> {
    const document = await this.document(absolute);
    if (document?.getText() !== expected) return false;
    const edit = new vscode.WorkspaceEdit();
    // A WorkspaceEdit like the agent's own file operations (Revert This Turn deletes the same way).
    edit.deleteFile(document.uri, { ignoreIfNotExists: false, recursive: false });
    return vscode.workspace.applyEdit(edit);
  }

  private async document(absolute: string): Promise<vscode.TextDocument | undefined> {
    const uri = vscode.Uri.file(absolute);
    try {
      await vscode.workspace.fs.stat(uri);
    } catch {
      return undefined;
    }
    return vscode.workspace.openTextDocument(uri);
  }
}
