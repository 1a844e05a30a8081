/**
 * Text OpenAgent shows the user to read — a command or plan under approval, a proposed file, the
 * usage table — served read-only from memory under its own scheme. Never an untitled document:
 * that counts as unsaved, so closing it (or the window) would ask whether to save what the user
 * only looked at.
 */
import * as vscode from 'vscode';
import { Disposable } from './disposable';

/** How many served texts are kept: older ones are not needed once newer ones exist. */
const KEPT = 20;

export class ReadOnlyDocuments extends Disposable implements vscode.TextDocumentContentProvider {
  private readonly contents = new Map<string, string>();
  private next = 0;

  constructor(private readonly scheme: string) {
    super();
    this._register(vscode.workspace.registerTextDocumentContentProvider(scheme, this));
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.query) ?? '';
  }

  /** A URI that reads as `content`; `label` is what the editor's tab shows. */
  serve(label: string, content: string): vscode.Uri {
    const key = String(++this.next);
    this.contents.set(key, content);
    if (this.contents.size > KEPT) this.contents.delete(this.contents.keys().next().value!);
    return vscode.Uri.from({ scheme: this.scheme, path: `/${label}`, query: key });
  }

  /** `content` as a document in `language`, not yet shown. */
  async open(label: string, content: string, language: string): Promise<vscode.TextDocument> {
    const document = await vscode.workspace.openTextDocument(this.serve(label, content));
    return document.languageId === language ? document : vscode.languages.setTextDocumentLanguage(document, language);
  }
}
