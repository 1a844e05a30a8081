/**
 * Open Agent Policy (creates a commented starter .openagent/agent.yaml when there is none; the
 * policy is not applied by this version yet and the file says so) and Restart MCP Servers.
 */
import * as vscode from 'vscode';
import type { McpServerStatus } from '../../node/mcp/mcp-connections';

const STARTER = `# OpenAgent policy for this workspace (SPEC 4.3). Honoured only in trusted workspaces.
# Note: this version of OpenAgent does not apply the policy file yet.
#
# models:            # which model serves which kind of work
#   chat: anthropic/claude-sonnet-4-5
#   compaction: anthropic/claude-haiku-4-5
# tools:
#   allow: [read_file, list_files, search_files]
#   deny: [mcp__*__delete_*]
# bash:
#   allow: ["npm test", "git status", "git diff *"]
#   deny: ["rm -rf *", "curl *"]
# budgets:
#   conversation_usd: 2
#   daily_usd: 10
#   action: block    # or warn
`;

export async function openAgentPolicy(): Promise<void> {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) {
    void vscode.window.showInformationMessage('Open a folder first: the policy lives in its .openagent/agent.yaml.');
    return;
  }
  const uri = vscode.Uri.joinPath(folder.uri, '.openagent', 'agent.yaml');
  try {
    await vscode.workspace.fs.stat(uri);
  } catch {
    await vscode.workspace.fs.createDirectory(vscode.Uri.joinPath(folder.uri, '.openagent'));
    await vscode.workspace.fs.writeFile(uri, new TextEncoder().encode(STARTER));
  }
  await vscode.window.showTextDocument(uri);
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
        'OpenAgent has no MCP servers configured (openagent.mcpServers, or .openagent/mcp.json in a trusted workspace).',
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
