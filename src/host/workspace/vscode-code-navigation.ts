/**
 * CodeNavigation through VS Code's language features: the same providers that power Go to
 * Definition, Find All References, workspace symbols and the Problems panel. Language servers
 * only know files they have been shown, so a file asked about is opened first, and a fresh
 * diagnostics request waits briefly for the server's report.
 */
import * as vscode from 'vscode';
import type { CodeLocation, CodeNavigation, Diagnostic, SymbolMatch } from '../../core/ports';

const FIRST_REPORT_WAIT_MS = 5_000;
const SETTLE_MS = 1_500;
const CODE_FILES = '**/*.{ts,tsx,js,jsx,mjs,cjs,py,go,rs,java,cs,rb,php,c,cc,cpp,h,hpp}';

const SEVERITIES: Record<vscode.DiagnosticSeverity, Diagnostic['severity']> = {
  [vscode.DiagnosticSeverity.Error]: 'error',
  [vscode.DiagnosticSeverity.Warning]: 'warning',
  [vscode.DiagnosticSeverity.Information]: 'info',
  [vscode.DiagnosticSeverity.Hint]: 'hint',
};

export class VscodeCodeNavigation implements CodeNavigation {
  async diagnostics(absolute?: string): Promise<Diagnostic[]> {
    if (absolute === undefined) {
      return vscode.languages.getDiagnostics().flatMap(([uri, items]) => items.map((item) => toDiagnostic(uri, item)));
    }
    const uri = vscode.Uri.file(absolute);
    if (inTab(uri)) return vscode.languages.getDiagnostics(uri).map((item) => toDiagnostic(uri, item));
    // Language servers check only files open in an editor tab (TypeScript among them): open it as
    // a background preview, wait for the report to settle, read it, and close the tab again.
    const reported = firstReport(uri, FIRST_REPORT_WAIT_MS);
    await vscode.commands.executeCommand('vscode.open', uri, { preview: true, preserveFocus: true, background: true });
    await reported;
    const found = vscode.languages.getDiagnostics(uri).map((item) => toDiagnostic(uri, item));
    const tab = tabOf(uri);
    if (tab) await vscode.window.tabGroups.close(tab, true);
    return found;
  }

  async findSymbols(query: string): Promise<SymbolMatch[]> {
    let symbols = await this.workspaceSymbols(query);
    if (symbols.length === 0 && !vscode.workspace.textDocuments.some((document) => document.uri.scheme === 'file')) {
      // A language server indexes a project once one of its files is open: open one and ask again.
      const [first] = await vscode.workspace.findFiles(CODE_FILES, '**/node_modules/**', 1);
      if (first) {
        await vscode.workspace.openTextDocument(first);
        symbols = await this.workspaceSymbols(query);
      }
    }
    return symbols.map((symbol) => ({
      name: symbol.name,
      kind: (vscode.SymbolKind[symbol.kind] ?? 'symbol').toLowerCase(),
      container: symbol.containerName || undefined,
      ...toLocation(symbol.location.uri, symbol.location.range.start),
    }));
  }

  async references(at: CodeLocation): Promise<CodeLocation[]> {
    const uri = await this.open(at.path);
    const found = await vscode.commands.executeCommand<vscode.Location[] | undefined>(
      'vscode.executeReferenceProvider',
      uri,
      toPosition(at),
    );
    return (found ?? []).map((location) => toLocation(location.uri, location.range.start));
  }

  async definitions(at: CodeLocation): Promise<CodeLocation[]> {
    const uri = await this.open(at.path);
    const found = await vscode.commands.executeCommand<Array<vscode.Location | vscode.LocationLink> | undefined>(
      'vscode.executeDefinitionProvider',
      uri,
      toPosition(at),
    );
    return (found ?? []).map((item) =>
      'targetUri' in item
        ? toLocation(item.targetUri, (item.targetSelectionRange ?? item.targetRange).start)
        : toLocation(item.uri, item.range.start),
    );
  }

  private async workspaceSymbols(query: string): Promise<vscode.SymbolInformation[]> {
    const found = await vscode.commands.executeCommand<vscode.SymbolInformation[] | undefined>(
      'vscode.executeWorkspaceSymbolProvider',
      query,
    );
    return (found ?? []).filter((symbol) => symbol.location.uri.scheme === 'file');
  }

  private async open(absolute: string): Promise<vscode.Uri> {
    const document = await vscode.workspace.openTextDocument(vscode.Uri.file(absolute));
    return document.uri;
  }
}

function tabOf(uri: vscode.Uri): vscode.Tab | undefined {
  for (const group of vscode.window.tabGroups.all)
    for (const tab of group.tabs)
      if (tab.input instanceof vscode.TabInputText && tab.input.uri.toString() === uri.toString()) return tab;
  return undefined;
}

function inTab(uri: vscode.Uri): boolean {
  return tabOf(uri) !== undefined;
}

/**
 * Resolves once diagnostics for `uri` have been reported and then stayed quiet for a moment
 * (servers often report syntax problems first and type errors a little later), or after `ms`.
 */
function firstReport(uri: vscode.Uri, ms: number): Promise<void> {
  return new Promise((resolve) => {
    let quiet: ReturnType<typeof setTimeout> | undefined;
    const done = () => {
      clearTimeout(limit);
      clearTimeout(quiet);
      listener.dispose();
      resolve();
    };
    const limit = setTimeout(done, ms);
    const listener = vscode.languages.onDidChangeDiagnostics((event) => {
      if (!event.uris.some((changed) => changed.toString() === uri.toString())) return;
      clearTimeout(quiet);
      quiet = setTimeout(done, SETTLE_MS);
    });
  });
}

function toPosition(at: CodeLocation): vscode.Position {
  return new vscode.Position(at.line - 1, at.column - 1);
}

function toLocation(uri: vscode.Uri, position: vscode.Position): CodeLocation {
  return { path: uri.fsPath, line: position.line + 1, column: position.character + 1 };
}

function toDiagnostic(uri: vscode.Uri, item: vscode.Diagnostic): Diagnostic {
  const code = typeof item.code === 'object' ? item.code.value : item.code;
  return {
    ...toLocation(uri, item.range.start),
    severity: SEVERITIES[item.severity],
    message: item.message,
    source: item.source ? `${item.source}${code !== undefined ? ` ${code}` : ''}` : undefined,
  };
}
