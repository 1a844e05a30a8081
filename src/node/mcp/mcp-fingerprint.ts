/**
 * The fingerprint a workspace's MCP server definition is allowed under, with what only the node
 * side can read: the env file's variables (values by hash) and the workspace files the server
 * runs (`node ./tools/server.js`, `${workspaceFolder}/server.py`, `--require ./x.js` in
 * NODE_OPTIONS), by content (referenced-files.ts). Files are found from the definition as
 * written with the folder and home variables put in, never an input or an environment variable:
 * a word that needs one is not followed (an input is a secret, and entering it again must not
 * ask again).
 */
import * as path from 'node:path';
import {
  definitionFingerprint,
  McpVariableError,
  resolveVariables,
  type McpVariableContext,
} from '../../core/mcp/mcp-definitions';
import type { McpDefinition } from '../../core/mcp/vscode-mcp-json';
import { ReferencedFiles, type ReferencedFile } from '../referenced-files';

const PLACE_VARIABLES = /^(workspaceFolder|workspaceFolderBasename|userHome|pathSeparator|\/)$/;
const CLAUDE_PLACE_VARIABLES = /^CLAUDE_PROJECT_DIR$/;

/** The file hashes of every MCP fingerprint in this process (cached by inode and times). */
const defaultReferencedFiles = new ReferencedFiles();

export interface McpFingerprintInputs {
  root: string | undefined;
  /** Where the folder and home variables get their values (inputs and env are never put in). */
  variables: McpVariableContext;
  envFromFile: Readonly<Record<string, string>>;
  files?: ReferencedFiles;
}

export async function mcpDefinitionFingerprint(
  definition: McpDefinition,
  inputs: McpFingerprintInputs,
): Promise<{ fingerprint: string; files: ReferencedFile[] }> {
  const { root } = inputs;
  if (root === undefined || definition.transport !== 'stdio')
    return { fingerprint: definitionFingerprint(definition, { envFromFile: inputs.envFromFile }), files: [] };
  const resolve = (text: string): string | undefined => {
    // Only the variables that name places; `${input:…}` is a secret and `${env:…}` (or `${VAR}`
    // in .mcp.json) the user's environment: a word holding one is decided at run time.
    for (const match of text.matchAll(/\$\{([^}]*)\}/g))
      if (!(definition.variables === 'vscode' ? PLACE_VARIABLES : CLAUDE_PLACE_VARIABLES).test(match[1]!))
        return undefined;
    if (definition.variables === 'claude') return text.split('${CLAUDE_PROJECT_DIR}').join(root);
    try {
      return resolveVariables(text, definition.variables, inputs.variables);
    } catch (error) {
      if (error instanceof McpVariableError) return undefined;
      throw error;
    }
  };
  const defined = (values: (string | undefined)[]) => values.filter((value): value is string => value !== undefined);
  const args = defined(definition.args.map(resolve));
  const folder = definition.cwd === undefined ? root : resolve(definition.cwd);
  const set = await (inputs.files ?? defaultReferencedFiles).examine({
    root,
    // As the server starts: relative words from its own folder (outside the workspace: none count).
    cwd: folder === undefined ? root : path.resolve(root, folder),
    argv: defined([resolve(definition.command ?? ''), ...args]),
    // An argument with spaces may be a shell line (`bash -c '…'`).
    lines: args.filter((arg) => /\s/.test(arg)),
    // NODE_OPTIONS, BASH_ENV, LD_PRELOAD (in the definition or its env file) name files to load too.
    environment: {
      ...inputs.envFromFile,
      ...Object.fromEntries(
        Object.entries(definition.env).flatMap(([name, value]) => {
          const text = resolve(value);
          return text === undefined ? [] : [[name, text]];
        }),
      ),
    },
  });
  return {
    fingerprint: definitionFingerprint(definition, { envFromFile: inputs.envFromFile, files: set.entries }),
    files: set.files,
  };
}
