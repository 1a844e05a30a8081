/**
 * Open Agent Policy (creates a commented starter .openagent/agent.yaml when there is none) and
 * Restart MCP Servers. Policy and MCP are not applied by this version yet; both say so.
 */
import * as vscode from 'vscode';

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

export function restartMcpServers(): void {
  void vscode.window.showInformationMessage(
    'OpenAgent has no MCP servers running: this version does not connect to MCP servers yet.',
  );
}
