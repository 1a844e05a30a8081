/**
 * The MCP configuration files of the field, read beside OpenAgent's own (SPEC 2.10):
 * - VS Code's `mcp.json` (`.vscode/mcp.json` and the one in the user's profile): `servers`
 *   {name: {type: stdio | http | sse, command, args, env, envFile, cwd, url, headers}} and
 *   `inputs` [{type: "promptString", id, description, password}], with `${input:id}`,
 *   `${workspaceFolder}`, `${userHome}` and `${env:NAME}` in any string;
 * - `.mcp.json` at the workspace root (Claude Code's and Copilot's portable format):
 *   `mcpServers` {name: {type?, command, args, env, url, headers}}, with `${VAR}` and
 *   `${VAR:-default}` taken from the environment.
 * Both are JSONC (comments, trailing commas). A file gives definitions as written: variables
 * are resolved only when a server starts (mcp-definitions.ts), after the user allowed it, so
 * what is shown and remembered never holds an input's value.
 */
import { createScanner, parse, printParseErrorCode, type ParseError } from 'jsonc-parser';
import { z } from 'zod';
import { MCP_SERVER_NAME, type McpConfigProblem, type McpServerConfig } from './mcp-config';

/** Bigger than any hand-written configuration; a bigger file is refused unread. */
export const MAX_MCP_FILE_BYTES = 1024 * 1024;
/** Configuration never nests deeply; deeper JSON is refused before it is parsed. */
export const MAX_MCP_FILE_DEPTH = 32;
/** Inputs one file may declare; the rest are reported and ignored. */
export const MAX_MCP_INPUTS = 100;
/** An input's id: what `${input:…}` names. */
export const MCP_INPUT_ID = /^[A-Za-z0-9_.-]{1,64}$/;

/** Which syntax of variables the strings of a definition use. */
export type McpVariableSyntax = 'vscode' | 'claude' | 'none';

/** A server as its file defines it, variables unresolved. */
export interface McpDefinition {
  /** The name the tools carry (letters, digits, _ and -, at most 32). */
  name: string;
  /** The file or setting it comes from, as shown to the user (".vscode/mcp.json"). */
  source: string;
  /** A workspace's definition is code from the repository: it starts only once allowed. */
  origin: 'user' | 'workspace';
  variables: McpVariableSyntax;
  transport: 'stdio' | 'http' | 'sse';
  command?: string;
  args: string[];
  env: Record<string, string>;
  envFile?: string;
  cwd?: string;
  url?: string;
  headers: Record<string, string>;
}

export interface McpInputDefinition {
  id: string;
  description: string;
  password: boolean;
  /** Where it is declared: inputs of the user's file are kept for every workspace. */
  source: string;
}

export interface McpFileContent {
  definitions: McpDefinition[];
  inputs: McpInputDefinition[];
  problems: McpConfigProblem[];
}

/** Parses JSONC within the limits above; a problem instead of a value when it cannot. */
export function parseJsonc(text: string, source: string): { value?: unknown; problem?: McpConfigProblem } {
  if (text.length > MAX_MCP_FILE_BYTES)
    return { problem: { source, message: `the file is over ${MAX_MCP_FILE_BYTES / 1024} KiB: not read` } };
  if (nestingDepth(text) > MAX_MCP_FILE_DEPTH)
    return { problem: { source, message: `the JSON nests deeper than ${MAX_MCP_FILE_DEPTH} levels: not read` } };
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false });
  const error = errors[0];
  if (error) {
    const line = text.slice(0, error.offset).split('\n').length;
    return { problem: { source, message: `not valid JSON: ${printParseErrorCode(error.error)} at line ${line}` } };
  }
  return { value };
}

/** jsonc-parser's SyntaxKind values (a const enum, which isolated modules cannot read). */
const OPEN_BRACE = 1;
const CLOSE_BRACE = 2;
const OPEN_BRACKET = 3;
const CLOSE_BRACKET = 4;
const END = 17;

/** The deepest nesting of objects and arrays, counted without recursion. */
function nestingDepth(text: string): number {
  const scanner = createScanner(text, true);
  let depth = 0;
  let deepest = 0;
  for (let kind = scanner.scan(); kind !== END; kind = scanner.scan()) {
    if (kind === OPEN_BRACE || kind === OPEN_BRACKET) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > MAX_MCP_FILE_DEPTH) return deepest;
    } else if (kind === CLOSE_BRACE || kind === CLOSE_BRACKET) depth--;
  }
  return deepest;
}

const stringMap = z.record(
  z.string(),
  z
    .union([z.string(), z.number(), z.boolean(), z.null()])
    .transform((value) => (value === null ? null : String(value))),
);

const serverSchema = z.looseObject({
  type: z.enum(['stdio', 'http', 'sse']).optional(),
  command: z.string().trim().min(1).optional(),
  args: z.array(z.union([z.string(), z.number()]).transform(String)).default([]),
  env: stringMap.default({}),
  envFile: z.string().min(1).optional(),
  cwd: z.string().min(1).optional(),
  url: z.string().min(1).optional(),
  headers: z.record(z.string(), z.string()).default({}),
  disabled: z.boolean().optional(),
});

const inputSchema = z.looseObject({
  type: z.string(),
  id: z.string(),
  description: z.string().default(''),
  password: z.boolean().default(false),
});

/** VS Code's mcp.json (`servers` and `inputs`). */
export function parseVscodeMcpJson(text: string, source: string, origin: McpDefinition['origin']): McpFileContent {
  const empty: McpFileContent = { definitions: [], inputs: [], problems: [] };
  const { value, problem } = parseJsonc(text, source);
  if (problem) return { ...empty, problems: [problem] };
  if (!isObject(value)) return { ...empty, problems: [{ source, message: 'expected {"servers": {...}}' }] };
  const problems: McpConfigProblem[] = [];
  const inputs = parseInputs(value.inputs, source, problems);
  const definitions = parseServers(value.servers, source, origin, 'vscode', problems, 'servers');
  return { definitions, inputs, problems };
}

/** `.mcp.json` (Claude Code's and Copilot's `mcpServers`). */
export function parseClaudeMcpJson(text: string, source: string, origin: McpDefinition['origin']): McpFileContent {
  const empty: McpFileContent = { definitions: [], inputs: [], problems: [] };
  const { value, problem } = parseJsonc(text, source);
  if (problem) return { ...empty, problems: [problem] };
  if (!isObject(value)) return { ...empty, problems: [{ source, message: 'expected {"mcpServers": {...}}' }] };
  const problems: McpConfigProblem[] = [];
  const definitions = parseServers(value.mcpServers, source, origin, 'claude', problems, 'mcpServers');
  return { definitions, inputs: [], problems };
}

/** OpenAgent's own servers (the setting, .openagent/mcp.json), already validated, as definitions. */
export function definitionsOf(
  servers: Record<string, McpServerConfig>,
  source: string,
  origin: McpDefinition['origin'],
): McpDefinition[] {
  return Object.entries(servers).map(([name, server]) =>
    'url' in server
      ? {
          name,
          source,
          origin,
          variables: 'none',
          transport: 'http',
          url: server.url,
          args: [],
          env: {},
          headers: server.headers,
        }
      : {
          name,
          source,
          origin,
          variables: 'none',
          transport: 'stdio',
          command: server.command,
          args: server.args,
          env: server.env,
          cwd: server.cwd,
          headers: {},
        },
  );
}

function parseInputs(value: unknown, source: string, problems: McpConfigProblem[]): McpInputDefinition[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    problems.push({ source, message: 'inputs must be an array' });
    return [];
  }
  if (value.length > MAX_MCP_INPUTS)
    problems.push({ source, message: `${value.length} inputs: only the first ${MAX_MCP_INPUTS} are read` });
  const inputs: McpInputDefinition[] = [];
  for (const raw of value.slice(0, MAX_MCP_INPUTS)) {
    const parsed = inputSchema.safeParse(raw);
    if (!parsed.success) {
      problems.push({
        source,
        message: `an input: ${parsed.error.issues[0]!.path.join('.')}: ${parsed.error.issues[0]!.message}`,
      });
      continue;
    }
    const { id, type, description, password } = parsed.data;
    if (!MCP_INPUT_ID.test(id)) {
      problems.push({
        source,
        message: `input id "${escapeForDisplay(id, 80)}": letters, digits, _ . and -, at most 64`,
      });
      continue;
    }
    // pickString and command inputs need more than a text box; their servers report it when they start.
    if (type !== 'promptString') {
      problems.push({
        source,
        message: `input "${id}" is a ${escapeForDisplay(type, 40)}: only promptString is supported`,
      });
      continue;
    }
    if (inputs.some((input) => input.id === id)) {
      problems.push({ source, message: `input "${id}" is declared twice: the first is used` });
      continue;
    }
    inputs.push({ id, description: description.slice(0, 500), password, source });
  }
  return inputs;
}

function parseServers(
  value: unknown,
  source: string,
  origin: McpDefinition['origin'],
  variables: McpVariableSyntax,
  problems: McpConfigProblem[],
  key: string,
): McpDefinition[] {
  if (value === undefined) return [];
  if (!isObject(value)) {
    problems.push({ source, message: `${key} must be an object of server name → server` });
    return [];
  }
  const definitions: McpDefinition[] = [];
  for (const [written, raw] of Object.entries(value)) {
    const name = toolSafeName(written);
    const parsed = serverSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      problems.push({ source, server: name, message: `${issue.path.join('.') || 'server'}: ${issue.message}` });
      continue;
    }
    const server = parsed.data;
    if (server.disabled) continue;
    const transport = server.type ?? (server.url !== undefined ? 'http' : 'stdio');
    const env = Object.fromEntries(
      Object.entries(server.env).filter((entry): entry is [string, string] => entry[1] !== null),
    );
    if (transport === 'stdio' && server.command === undefined) {
      problems.push({ source, server: name, message: 'a stdio server needs "command"' });
      continue;
    }
    if (transport !== 'stdio' && server.url === undefined) {
      problems.push({ source, server: name, message: `an ${transport} server needs "url"` });
      continue;
    }
    definitions.push(
      transport === 'stdio'
        ? {
            name,
            source,
            origin,
            variables,
            transport,
            command: server.command,
            args: server.args,
            env,
            envFile: server.envFile,
            cwd: server.cwd,
            headers: {},
          }
        : { name, source, origin, variables, transport, url: server.url, args: [], env: {}, headers: server.headers },
    );
  }
  return definitions;
}

/**
 * A name the tools can carry (`mcp__<name>__<tool>`): VS Code's names may hold dots, slashes and
 * spaces. A gallery name ("io.github.github/github-mcp-server") is known by its last part; each
 * run of other characters becomes "_", and the name is cut at 32. Two names that end up the
 * same are reported as a collision.
 */
export function toolSafeName(written: string): string {
  const last = written.includes('/') ? written.slice(written.lastIndexOf('/') + 1) || written : written;
  const safe = last.replace(/[^a-zA-Z0-9_-]+/g, '_').slice(0, 32);
  return MCP_SERVER_NAME.test(safe) ? safe : 'server';
}

/**
 * `text` as it may be shown in a question about what will run: printable ASCII as is, anything
 * else escaped (\u{…}), so a look-alike letter, a control character or a right-to-left override
 * cannot make one command read as another; cut at `max` characters.
 */
export function escapeForDisplay(text: string, max = 300): string {
  let shown = '';
  for (const character of text) {
    const code = character.codePointAt(0)!;
    shown += code >= 0x20 && code <= 0x7e ? character : `\\u{${code.toString(16)}}`;
    if (shown.length > max) return `${shown.slice(0, max)}…`;
  }
  return shown;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
