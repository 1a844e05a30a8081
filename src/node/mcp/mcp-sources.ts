/**
 * Every place an MCP server can be defined, read in the order of MCP_SOURCE_ORDER: the user's
 * own servers (OpenAgent's setting, VS Code's user `mcp.json`) and — in a trusted workspace
 * only — `.openagent/mcp.json`, `.vscode/mcp.json` and `.mcp.json`. Shared by the editor and
 * the CLI; the editor says where the user's files are and whether the workspace is trusted.
 */
import * as path from 'node:path';
import { parseMcpJson, parseMcpServers, type McpConfigProblem } from '../../core/mcp/mcp-config';
import { combineDefinitions } from '../../core/mcp/mcp-definitions';
import {
  definitionsOf,
  MAX_MCP_FILE_BYTES,
  parseClaudeMcpJson,
  parseVscodeMcpJson,
  type McpDefinition,
  type McpInputDefinition,
} from '../../core/mcp/vscode-mcp-json';
import { McpFileError, readUserText, readWorkspaceText } from './mcp-files';

export const SETTINGS_SOURCE = 'settings (openagent.mcpServers)';
export const USER_MCP_JSON = 'user mcp.json';
/** The workspace's files, relative to its folder, in the order they are looked up. */
export const WORKSPACE_MCP_FILES = ['.openagent/mcp.json', '.vscode/mcp.json', '.mcp.json'] as const;

export interface McpSources {
  definitions: McpDefinition[];
  inputs: McpInputDefinition[];
  problems: McpConfigProblem[];
  /** Where each source is on disk, for "Open file" on a problem. */
  files: Map<string, string>;
}

export interface McpSourceOptions {
  /** The value of the `openagent.mcpServers` setting (validated here). */
  settings: unknown;
  /** VS Code's user mcp.json, if there is one to read. */
  userFile?: string;
  workspaceRoot?: string;
  /** A repository's files are code from the repository: not even read unless trusted. */
  workspaceTrusted: boolean;
}

export async function readMcpDefinitions(options: McpSourceOptions): Promise<McpSources> {
  const files = new Map<string, string>();
  const problems: McpConfigProblem[] = [];
  const inputs: McpInputDefinition[] = [];
  const groups: McpDefinition[][] = [];

  const settings = parseMcpServers(options.settings, SETTINGS_SOURCE);
  groups.push(definitionsOf(settings.servers, SETTINGS_SOURCE, 'user'));
  problems.push(...settings.problems);

  if (options.userFile) {
    const userFile = options.userFile;
    files.set(USER_MCP_JSON, userFile);
    const userText = await readOrReport(() => readUserText(userFile, MAX_MCP_FILE_BYTES), USER_MCP_JSON, problems);
    if (userText !== undefined) {
      const user = parseVscodeMcpJson(userText, USER_MCP_JSON, 'user');
      groups.push(user.definitions);
      inputs.push(...user.inputs);
      problems.push(...user.problems);
    }
  }

  const root = options.workspaceRoot;
  if (root && options.workspaceTrusted)
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
