/**
 * The MCP servers in the editor: configured in the user's `openagent.mcpServers` setting and
 * VS Code's user `mcp.json`, and, in a trusted workspace, in `.openagent/mcp.json`,
 * `.vscode/mcp.json` and `.mcp.json` (SPEC 2.10, 4.2; mcp-sources.ts) — a workspace's server
 * only once the user allowed its definition (src/node/mcp/mcp-startup.ts). They start with the first
 * conversation (not at activation), restart when their configuration changes or on "Restart MCP
 * Servers", and report their status to the developer panel. Configuration problems are shown
 * once each, with a way to the file.
 */
import * as vscode from 'vscode';
import { createHash } from 'node:crypto';
import * as path from 'node:path';
import { mcpCredentialSettings, type McpConfigProblem } from '../core/mcp/mcp-config';
import type { HeldSecrets } from '../core/llm/held-secrets';
import type { AnyTool } from '../core/tools/tool';
import { lazyModule } from '../core/lazy-module';
import type { McpConnections, McpServerStatus } from '../node/mcp/mcp-connections';
import type { McpStatusSource } from './panel/panel-controller';
import { McpDefinitionApprovals, McpInputValues } from './mcp-consent';
import { editorVariableContext, readMcpSources, userMcpJsonPath } from './mcp-sources';
import { SETTINGS_SOURCE, WORKSPACE_MCP_FILES } from '../node/mcp/mcp-sources';
import { planMcpStart } from '../node/mcp/mcp-startup';
import { CONFIG_SECTION } from './settings';
import type * as McpConnectionsModule from '../node/mcp/mcp-connections';

/** What the service keeps of the extension's context: where the user's mcp.json is, and the stores of consent. */
export type McpServiceContext = Pick<vscode.ExtensionContext, 'globalStorageUri' | 'secrets' | 'workspaceState'>;

/** The MCP SDK and what runs servers with it, loaded when the first server starts (see lazy-module.ts). */
const mcpConnections = lazyModule(() => require('../node/mcp/mcp-connections') as typeof McpConnectionsModule);

export class McpService implements McpStatusSource, vscode.Disposable {
  private made: McpConnections | undefined;
  private started: Promise<void> | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly shownProblems = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];
  /** Servers defined but not started (waiting for approval, refused, an input not given). */
  private held: McpServerStatus[] = [];
  private readonly approvals: McpDefinitionApprovals;
  private readonly inputs: McpInputValues;
  private files = new Map<string, string>();
  /** The digest of the servers last started (see restart). */
  private running: string | undefined;

  constructor(
    private readonly version: string,
    /** Every secret the extension holds: the servers' keys join them when they start. */
    private readonly heldSecrets: HeldSecrets | undefined,
    private readonly context: McpServiceContext,
  ) {
    this.approvals = new McpDefinitionApprovals(context.workspaceState);
    this.inputs = new McpInputValues(
      context.secrets,
      () => vscode.workspace.workspaceFolders?.[0]?.uri.toString() ?? '',
      heldSecrets,
    );
    const folder = vscode.workspace.workspaceFolders?.[0];
    const watchers = [
      ...(folder
        ? WORKSPACE_MCP_FILES.map((file) =>
            vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(folder, file)),
          )
        : []),
      vscode.workspace.createFileSystemWatcher(
        new vscode.RelativePattern(
          vscode.Uri.file(path.dirname(userMcpJsonPath(context.globalStorageUri))),
          'mcp.json',
        ),
      ),
    ];
    for (const watcher of watchers)
      this.disposables.push(
        watcher,
        watcher.onDidChange(() => this.restartIfStarted()),
        watcher.onDidCreate(() => this.restartIfStarted()),
        watcher.onDidDelete(() => this.restartIfStarted()),
      );
    this.disposables.push(
      vscode.workspace.onDidChangeConfiguration((event) => {
        if (event.affectsConfiguration(`${CONFIG_SECTION}.mcpServers`)) this.restartIfStarted();
      }),
      vscode.workspace.onDidGrantWorkspaceTrust(() => this.restartIfStarted()),
    );
  }

  /** Made when the servers first start: until then nothing of MCP is loaded. */
  private get connections(): McpConnections {
    return (this.made ??= new (mcpConnections().McpConnections)({
      clientName: 'OpenAgent',
      clientVersion: this.version,
      callTimeoutMs: () => timeoutSeconds() * 1000,
      cwd: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      onStatus: () => this.changed(),
    }));
  }

  /** The tools of the servers that are up (starting them the first time). */
  async tools(): Promise<AnyTool[]> {
    await (this.started ??= this.start());
    return (await this.made?.tools()) ?? [];
  }

  /**
   * Stops every server and starts them again from the configuration as it is now ("Restart MCP
   * Servers"). Without `always` (a file or setting changed, an "Allow") the servers keep running
   * when what they would start with is the same: a watcher's late or repeated event never cuts
   * a conversation's tools away.
   */
  async restart(always = true): Promise<McpServerStatus[]> {
    // One start at a time: two at once (a file saved while "Allow" restarts them) would each
    // start the same servers and leave one set running unseen.
    const previous = this.started?.catch(() => undefined);
    this.started = (previous ?? Promise.resolve()).then(() => this.start(always));
    await this.started;
    await this.made?.ready();
    return this.statuses() ?? [];
  }

  statuses(): McpServerStatus[] | undefined {
    return this.started ? [...(this.made?.statuses() ?? []), ...this.held.map((status) => ({ ...status }))] : undefined;
  }

  onDidChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  dispose(): void {
    for (const disposable of this.disposables) disposable.dispose();
    void this.made?.stop();
  }

  private async start(always = true): Promise<void> {
    const sources = await readMcpSources(this.context.globalStorageUri);
    this.files = sources.files;
    const plan = await planMcpStart(sources.definitions, sources.inputs, {
      approvals: this.approvals,
      inputs: this.inputs,
      variables: editorVariableContext,
      workspaceRoot: () => vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
      userFolder: path.dirname(userMcpJsonPath(this.context.globalStorageUri)),
      onAllowed: () => this.restartIfStarted(),
      onChanged: () => this.changed(),
    });
    const { servers } = plan;
    const problems = [...sources.problems, ...plan.problems];
    this.held = plan.held;
    const credentials = mcpCredentialSettings(servers);
    this.heldSecrets?.addEnvironment(credentials.env);
    this.heldSecrets?.addHeaders(credentials.headers);
    this.report(problems);
    // A digest, not a copy: the servers' settings hold their keys.
    const running = createHash('sha256').update(JSON.stringify(servers)).digest('hex');
    const same = running === this.running && !always;
    this.running = running;
    // With no server configured (and none running) MCP's SDK is not even loaded.
    if (!same && (this.made || Object.keys(servers).length > 0)) await this.connections.start(servers);
    this.changed();
  }

  private restartIfStarted(): void {
    if (this.started) void this.restart(false);
  }

  private changed(): void {
    for (const listener of this.listeners) listener();
  }

  private report(problems: McpConfigProblem[]): void {
    for (const problem of problems) {
      const text = `OpenAgent: MCP server${problem.server ? ` "${problem.server}"` : 's'} in ${problem.source}: ${problem.message}`;
      if (this.shownProblems.has(text)) continue;
      this.shownProblems.add(text);
      const file = this.files.get(problem.source);
      const action = problem.source === SETTINGS_SOURCE || !file ? 'Open Settings' : `Open ${path.basename(file)}`;
      void vscode.window.showWarningMessage(text, action).then(async (choice) => {
        if (choice === 'Open Settings')
          await vscode.commands.executeCommand('workbench.action.openSettingsJson', {
            revealSetting: { key: 'openagent.mcpServers' },
          });
        else if (choice && file) await vscode.window.showTextDocument(vscode.Uri.file(file));
      });
    }
  }
}

function timeoutSeconds(): number {
  const value = vscode.workspace.getConfiguration(CONFIG_SECTION).get<number>('mcpCallTimeoutSeconds', 60);
  return Number.isFinite(value) && value > 0 ? value : 60;
}
