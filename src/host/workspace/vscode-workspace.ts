/**
 * WorkspaceFiles in VS Code. Reads see what the user sees (an open document with unsaved
 * changes is read from its buffer); writes go through WorkspaceEdit, so open editors stay in
 * sync and the user can undo the agent's edit like their own. A document the user had left
 * unsaved is not saved behind their back.
 */
import { readlink, realpath } from 'node:fs/promises';
import * as vscode from 'vscode';
import type { WorkspaceFiles, WrittenFile } from '../../core/ports';
import { decodeText, encodeText, type DecodedText, type TextContent } from '../../core/workspace/text-file';
import { ContainedFiles } from '../../node/contained-files';
import { LinkedSecrets } from '../../node/linked-secrets';

export class VscodeWorkspace implements WorkspaceFiles {
  private readonly contained: ContainedFiles;
  /** Hard links to secret files, found by device and inode (linked-secrets.ts). */
  private readonly linked: LinkedSecrets;

  constructor(readonly root: string) {
    this.linked = new LinkedSecrets(root);
    this.contained = new ContainedFiles(root);
  }

  async realpath(absolute: string): Promise<string | undefined> {
    try {
      return await realpath(absolute);
    } catch {
      return undefined;
    }
  }
  async readlink(absolute: string): Promise<string | undefined> {
    try {
      return await readlink(absolute);
    } catch {
      return undefined;
    }
  }

  async stat(absolute: string): Promise<{ type: 'file' | 'directory'; size: number } | undefined> {
    try {
      const stat = await vscode.workspace.fs.stat(vscode.Uri.file(absolute));
      return { type: stat.type & vscode.FileType.Directory ? 'directory' : 'file', size: stat.size };
    } catch {
      return undefined;
    }
  }

  linkedSecret(absolute: string): Promise<string | undefined> {
    return this.linked.find(absolute);
  }

  /**
   * The disk's bytes are read as the CLI reads them (the path as checked, nothing on it
   * followed): a name swapped for a link after the check is not read through it.
   */
  async readText(absolute: string): Promise<DecodedText> {
    const decoded = decodeText(await this.contained.readAsIs(absolute));
    const open = this.openDocument(absolute);
    return open?.isDirty ? { ...decoded, text: open.getText() } : decoded;
  }

  async writeText(
    absolute: string,
    content: TextContent,
    format?: Omit<DecodedText, 'text'>,
  ): Promise<WrittenFile | void> {
    const text = typeof content === 'string' ? content : content.join('');
    const uri = vscode.Uri.file(absolute);
    const edit = new vscode.WorkspaceEdit();
    if (!(await this.stat(absolute))) {
      edit.createFile(uri, {
        contents: encodeText(text, format ?? { encoding: 'utf8', bom: false, lineEnding: '\n' }),
        ignoreIfExists: false,
      });
      if (!(await vscode.workspace.applyEdit(edit)))
        throw new Error(`VS Code did not create ${vscode.workspace.asRelativePath(uri)}.`);
      return;
    }
    // VS Code saves into the file in place: a file with other hard links (a package store's, a
    // link to a protected file) first gets a file of its own, same bytes, mode and times, so the
    // save changes this name only. Its folders are opened without following links for that copy.
    const otherLinks = await this.contained.separate(absolute);
    const document = await vscode.workspace.openTextDocument(uri);
    const wasDirty = document.isDirty;
    const whole = new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length));
    edit.replace(uri, whole, text);
    if (!(await vscode.workspace.applyEdit(edit)))
      throw new Error(`VS Code did not apply the edit to ${vscode.workspace.asRelativePath(uri)}.`);
    // VS Code writes the document back in its own encoding, BOM and line endings.
    if (!wasDirty) await document.save();
    return { otherLinks };
  }

  async delete(absolute: string): Promise<void> {
    const uri = vscode.Uri.file(absolute);
    const edit = new vscode.WorkspaceEdit();
    edit.deleteFile(uri, { ignoreIfNotExists: true });
    if (!(await vscode.workspace.applyEdit(edit)))
      throw new Error(`VS Code did not delete ${vscode.workspace.asRelativePath(uri)}.`);
  }

  async list(
    absoluteDirectory: string,
    options: { recursive: boolean; limit: number; pattern?: string },
  ): Promise<{ entries: string[]; truncated: boolean }> {
    const base = vscode.Uri.file(absoluteDirectory);
    const pattern = new vscode.RelativePattern(base, options.pattern ?? (options.recursive ? '**/*' : '*'));
    // findFiles honours files.exclude and, with useIgnoreFiles in search settings, .gitignore.
    const files = await vscode.workspace.findFiles(pattern, '**/{.git,node_modules}/**', options.limit + 1);
    const entries = files.map((file) => vscode.workspace.asRelativePath(file, false)).sort();
    return { entries: entries.slice(0, options.limit), truncated: entries.length > options.limit };
  }

  private openDocument(absolute: string): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find(
      (document) => document.uri.scheme === 'file' && document.uri.fsPath === absolute,
    );
  }
}
