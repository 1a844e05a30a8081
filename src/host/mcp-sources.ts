/**
 * Every place an MCP server can be defined, read in the order of MCP_SOURCE_ORDER: the
 * `openagent.mcpServers` setting, the user's VS Code `mcp.json` (in the profile's User folder),
 * and — in a trusted workspace only — `.openagent/mcp.json`, `.vscode/mcp.json` and `.mcp.json`.
 */
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseMcpJson, parseMcpServers, type McpConfigProblem } from '../core/mcp/mcp-config';
import { combineDefinitions } from '../core/mcp/mcp-definitions';
import {
  definitionsOf,
  MAX_MCP_FILE_BYTES,
  parseClaudeMcpJson,
  parseVscodeMcpJson,
  type McpDefinition,
  type McpInputDefinition,
} from '../core/mcp/vscode-mcp-json';
import { McpFileError, readUserText, readWorkspaceText } from '../node/mcp/mcp-files';
import { CONFIG_SECTION } from './settings';

export const SETTINGS_SOURCE = 'settings (openagent.mcpServers)';
export const USER_MCP_JSON = 'user mcp.json';
/** The workspace's files, relative to its first folder, in the order they are looked up. */
export const WORKSPACE_MCP_FILES = ['.openagent/mcp.json', '.vscode/mcp.json', '.mcp.json'] as const;

export interface McpSources {
  definitions: McpDefinition[];
  inputs: McpInputDefinition[];
  problems: McpConfigProblem[];
  /** Where each source is on disk, for "Open file" on a problem. */
  files: Map<string, string>;
}

/**
 * The user's mcp.json: VS Code keeps it in the profile's User folder, and this extension's
 * global storage is `<User>/globalStorage/<publisher.name>`, two levels below it.
 */
export function userMcpJsonPath(globalStorage: vscode.Uri): string {
  return path.join(globalStorage.fsPath, '..', '..', 'mcp.json');
}

export async function readMcpSources(globalStorage: vscode.Uri): Promise<McpSources> {
  const files = new Map<string, string>();
  const problems: McpConfigProblem[] = [];
  const inputs: McpInputDefinition[] = [];
  const groups: McpDefinition[][] = [];

  const settings = parseMcpServers(
    vscode.workspace.getConfiguration(CONFIG_SECTION).get<unknown>('mcpServers', {}),
    SETTINGS_SOURCE,
  );
  groups.push(definitionsOf(settings.servers, SETTINGS_SOURCE, 'user'));
  problems.push(...settings.problems);

  const userFile = userMcpJsonPath(globalStorage);
  files.set(USER_MCP_JSON, userFile);
  const userText = await readOrReport(() => readUserText(userFile, MAX_MCP_FILE_BYTES), USER_MCP_JSON, problems);
  if (userText !== undefined) {
    const user = parseVscodeMcpJson(userText, USER_MCP_JSON, 'user');
    groups.push(user.definitions);
    inputs.push(...user.inputs);
    problems.push(...user.problems);
  }

  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  // A repository's files are code from the repository: not even read in Restricted Mode.
  if (root && vscode.workspace.isTrusted)
    for (const relative of WORKSPACE_MCP_FILES) {
      const absolute = path.join(root, relative);
      files.set(relative, absolute);
      const text = await readOrReport(() => readWorkspaceText(root, absolute, MAX_MCP_FILE_BYTES), relative, problems);
      if (text === undefined) continue;
      const content =
        relative === '.vscode/mcp.json'
          ? parseVscodeMcpJson(text, relative, 'workspace')
          : relative === '.mcp.json'
            ? parseClaudeMcpJson(text, relative, 'workspace')
            : ownFile(text, relative);
      groups.push(content.definitions);
      inputs.push(...content.inputs);
      problems.push(...content.problems);
    }

  const combined = combineDefinitions(groups);
  return { definitions: combined.definitions, inputs, problems: [...problems, ...combined.problems], files };
}

function ownFile(text: string, source: string) {
  const parsed = parseMcpJson(text, source);
  return { definitions: definitionsOf(parsed.servers, source, 'workspace'), inputs: [], problems: parsed.problems };
}

async function readOrReport(
  read: () => Promise<string | undefined>,
  source: string,
  problems: McpConfigProblem[],
): Promise<string | undefined> {
  try {
    return await read();
  } catch (error) {
    if (!(error instanceof McpFileError)) throw error;
    problems.push({ source, message: error.message });
    return undefined;
  }
}

/** The variables' context of the editor: the first folder, the home folder, the host's environment. */
export function editorVariableContext(input: (id: string) => string | undefined) {
  return {
    workspaceFolder: vscode.workspace.workspaceFolders?.[0]?.uri.fsPath,
    userHome: os.homedir(),
    env: process.env,
    pathSeparator: path.sep,
    input,
  };
}
