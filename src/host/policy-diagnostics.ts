/**
 * Problems in `.openagent/agent.yaml` as editor diagnostics (SPEC 4.3): checked as the file is
 * opened and edited (unsaved text included) and when it changes on disk; cleared when it is
 * fixed or deleted.
 */
import * as vscode from 'vscode';
import { lazyModule } from '../core/lazy-module';
import type * as AgentPolicyModule from '../core/policy/agent-policy';

/** The policy schema (zod, yaml): loaded when a policy file is first checked (see lazy-module.ts). */
const agentPolicy = lazyModule(() => require('../core/policy/agent-policy') as typeof AgentPolicyModule);

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
      watcher.onDidDelete((uri) => void this.checkFile(uri)),
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

  /**
   * The file as it is on disk, unless it is open: then as it is in the editor, unsaved changes
   * included. Watcher events can arrive late (a delete after the file was written again and
   * opened), so the decision is made on what is there when the check ends.
   */
  private async checkFile(uri: vscode.Uri): Promise<void> {
    const openBefore = this.openDocument(uri);
    if (openBefore) return this.checkDocument(openBefore);
    let text: string | undefined;
    try {
      // Never read what is no policy text: a FIFO would never end, a huge file fills memory.
      const stat = await vscode.workspace.fs.stat(uri);
      const isFile = (stat.type & vscode.FileType.File) !== 0 && (stat.type & vscode.FileType.Directory) === 0;
      if (!isFile || stat.size > agentPolicy().MAX_POLICY_BYTES) text = undefined;
      else text = new TextDecoder().decode(await vscode.workspace.fs.readFile(uri));
    } catch {
      text = undefined;
    }
    const open = this.openDocument(uri);
    if (open) this.checkDocument(open);
    else if (text === undefined) this.collection.delete(uri);
    else this.show(uri, text);
  }

  private openDocument(uri: vscode.Uri): vscode.TextDocument | undefined {
    return vscode.workspace.textDocuments.find(
      (document) => !document.isClosed && document.uri.toString() === uri.toString(),
    );
  }

  private show(uri: vscode.Uri, text: string): void {
    const { problems } = agentPolicy().parseAgentPolicy(text);
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
