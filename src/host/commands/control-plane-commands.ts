/**
 * Open Agent Policy (creates a commented starter .openagent/agent.yaml when there is none; the
 * policy is not applied by this version yet and the file says so) and Restart MCP Servers.
 */
import * as vscode from 'vscode';
import { POLICY_STARTER } from '../../core/policy/policy-starter';
import { showFileCreatingIt } from '../uri-files';
import type { McpServerStatus } from '../../node/mcp/mcp-connections';

export async function openAgentPolicy(): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void vscode.window.showInformationMessage('Open a folder first: the policy lives in its .openagent/agent.yaml.');
    return;
  }
  await showFileCreatingIt(vscode.Uri.joinPath(folder.uri, '.openagent', 'agent.yaml'), POLICY_STARTER);
}

/** Restarts every MCP server from the configuration as it is now, and says how each came back. */
export async function restartMcpServers(restart: () => Promise<McpServerStatus[]>): Promise<void> {
  const statuses = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: 'Restarting the MCP servers…' },
    restart,
  );
  if (statuses.length === 0) {
    void vscode.window
      .showInformationMessage(
        'OpenAgent has no MCP servers configured (openagent.mcpServers, your mcp.json, or .openagent/mcp.json, .vscode/mcp.json or .mcp.json in a trusted workspace).',
        'Open Settings',
      )
      .then(
        (choice) => choice && vscode.commands.executeCommand('workbench.action.openSettings', 'openagent.mcpServers'),
      );
    return;
  }
  const lines = statuses.map((status) =>
    status.state === 'connected'
      ? `${status.name}: ${status.toolCount} tool(s)`
      : `${status.name}: ${status.state}${status.error ? ` — ${status.error}` : ''}`,
  );
  const failed = statuses.some((status) => status.state !== 'connected');
  const show = failed ? vscode.window.showWarningMessage : vscode.window.showInformationMessage;
  void show(`MCP servers restarted. ${lines.join('; ')}`);
}
