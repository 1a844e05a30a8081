/**
 * Problems in `.openagent/agent.yaml` as editor diagnostics (SPEC 4.3): checked as the file is
 * opened and edited (unsaved text included) and when it changes on disk; cleared when it is
 * fixed or deleted.
 */
import * as vscode from 'vscode';
import { parseAgentPolicy } from '../core/policy/agent-policy';

const POLICY_FILE = /(^|[\\/])\.openagent[\\/]agent\.yaml$/;

export class PolicyDiagnostics implements vscode.Disposable {
  private readonly collection = vscode.languages.createDiagnosticCollection('openagent-policy');
  private readonly disposables: vscode.Disposable[] = [this.collection];

  constructor() {
    const watcher = vscode.workspace.createFileSystemWatcher('**/.openagent/agent.yaml');
    this.disposables.push(
      watcher,
      watcher.onDidCreate((uri) => this.checkFile(uri)),
      watcher.onDidChange((uri) => this.checkFile(uri)),
      watcher.onDidDelete((uri) => this.collection.delete(uri)),
      vscode.workspace.onDidOpenTextDocument((document) => this.checkDocument(document)),
      vscode.workspace.onDidChangeTextDocument((event) => this.checkDocument(event.document)),
    );
    for (const document of vscode.workspace.textDocuments) this.checkDocument(document);
    void vscode.workspace
      .findFiles('.openagent/agent.yaml', undefined, 5)
      .then((uris) => uris.forEach((uri) => this.checkFile(uri)));
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
  }

  private checkDocument(document: vscode.TextDocument): void {
    if (document.uri.scheme === 'file' && POLICY_FILE.test(document.uri.fsPath))
      this.show(document.uri, document.getText());
  }

  private async checkFile(uri: vscode.Uri): Promise<void> {
    // An open document is checked as it is in the editor, unsaved changes included.
    if (vscode.workspace.textDocuments.some((document) => document.uri.toString() === uri.toString())) return;
    try {
      this.show(uri, new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)));
    } catch {
      this.collection.delete(uri);
    }
  }

  private show(uri: vscode.Uri, text: string): void {
    const { problems } = parseAgentPolicy(text);
    this.collection.set(
      uri,
      problems.map((problem) => {
        const diagnostic = new vscode.Diagnostic(
          new vscode.Range(
            problem.line,
            problem.column,
            problem.endLine,
            Math.max(problem.endColumn, problem.column + 1),
          ),
          problem.message,
          vscode.DiagnosticSeverity.Error,
        );
        diagnostic.source = 'OpenAgent policy';
        return diagnostic;
      }),
    );
  }
}
