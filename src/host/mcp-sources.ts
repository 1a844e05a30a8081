/**
 * Where the editor's MCP definitions come from (src/node/mcp/mcp-sources.ts reads them): the
 * `openagent.mcpServers` setting, the user's VS Code `mcp.json` in the profile's User folder,
 * and the workspace's files when the workspace is trusted.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { McpVariableContext } from '../core/mcp/mcp-definitions';
import { readMcpDefinitions, type McpSources } from '../node/mcp/mcp-sources';
import { CONFIG_SECTION } from './settings';

/**
 * The user's mcp.json: VS Code keeps it in the profile's User folder, and this extension's
 * global storage is `<User>/globalStorage/<publisher.name>`, two levels below it.
 */
export function userMcpJsonPath(globalStorage: vscode.Uri): string {
  return path.join(globalStorage.fsPath, '..', '..', 'mcp.json');
}

export function readMcpSources(globalStorage: vscode.Uri): Promise<McpSources> {
  return readMcpDefinitions({
    settings: vscode.workspace.getConfiguration(CONFIG_SECTION).get<unknown>('mcpServers', {}),
    userFile: userMcpJsonPath(globalStorage),
    workspaceRoot: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    workspaceTrusted: vscode.workspace.isTrusted,
  });
}

/** The variables' context of the editor: the first folder, the home folder, the host's environment. */
export function editorVariableContext(input: (id: string) => string | undefined): McpVariableContext {
  return {
    workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    userHome: os.homedir(),
    env: process.env,
    pathSeparator: path.sep,
    input,
  };
}
