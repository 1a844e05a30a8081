/**
 * What happens to MCP server definitions between their files and a running server: names that
 * collide across files (one wins by a stated order, the other is reported), the fingerprint the
 * user's "Allow" is remembered under, the text that question shows, and the variables resolved
 * at start (`${input:…}`, `${workspaceFolder}`, `${env:…}`; `${VAR}` in `.mcp.json`).
 */
import { createHash } from 'node:crypto';
import { composeFingerprint } from '../workspace/allow-fingerprint';
import type { McpConfigProblem, McpServerConfig } from './mcp-config';
import { escapeForDisplay, MCP_INPUT_ID, type McpDefinition } from './vscode-mcp-json';

/**
 * The order a server name is looked up in, first wins. The user's own configuration comes
 * before any repository's: a repository cannot take over the name of a server the user set up
 * (and the credentials they gave it). Among the workspace's files OpenAgent's own file comes
 * first, then the editor's, then the portable one other agents share.
 */
export const MCP_SOURCE_ORDER = [
  'settings (openagent.mcpServers)',
  'user mcp.json',
  '.openagent/mcp.json',
  '.vscode/mcp.json',
  '.mcp.json',
] as const;

/** Definitions of several files in the order above; a name already taken is reported, naming both files. */
export function combineDefinitions(groups: McpDefinition[][]): {
  definitions: McpDefinition[];
  problems: McpConfigProblem[];
} {
  const taken = new Map<string, McpDefinition>();
  const problems: McpConfigProblem[] = [];
  for (const definition of groups.flat()) {
    const winner = taken.get(definition.name);
    if (winner) {
      problems.push({
        source: definition.source,
        server: definition.name,
        message: `also defined in ${winner.source}, which wins (order: ${MCP_SOURCE_ORDER.join(' > ')}); this one is not started`,
      });
      continue;
    }
    taken.set(definition.name, definition);
  }
  return { definitions: [...taken.values()], problems };
}

/**
 * The parts of a definition's fingerprint after its identity (file and name), in order: how the
 * question names one that changed since the user allowed it.
 */
export const MCP_FINGERPRINT_PARTS = [
  'the command, arguments, folder or URL',
  "the environment's values",
  'the headers',
  'the env file',
  'a file it runs',
] as const;

/** What decides what runs besides the definition itself (read by the node side). */
export interface McpFingerprintContext {
  /** The env file's variables as read: each value counts by its hash, never kept or shown. */
  envFromFile?: Readonly<Record<string, string>>;
  /** The workspace files it runs, as src/node/referenced-files.ts lists them (hashes, no content). */
  files?: readonly string[];
}

/**
 * What the user allows: the file and name (its identity), then the transport, command,
 * arguments, folder and URL; the environment's and headers' names AND values as written in the
 * file — the templates, before `${input:…}` and `${env:…}` are put in, so an input's secret never
 * enters it and entering an input again does not ask again, while `NODE_OPTIONS` changing from
 * `--max-old-space-size=4096` to `--require ./x.js` does; the env file's path and each of its
 * variables (the value by its hash); and the files it runs. See allow-fingerprint.ts.
 */
export function definitionFingerprint(definition: McpDefinition, context: McpFingerprintContext = {}): string {
  const [command, environment, headers, envFile, files] = MCP_FINGERPRINT_PARTS;
  const sorted = (values: Record<string, string>, lower = false) =>
    Object.entries(values)
      .map(([name, value]): [string, string] => [lower ? name.toLowerCase() : name, value])
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const fromFile = sorted({ ...context.envFromFile }).map(([name, value]) => [
    name,
    createHash('sha256').update(value).digest('hex'),
  ]);
  return composeFingerprint(
    [definition.source, definition.name],
    [
      {
        label: command,
        value: [
          definition.transport,
          definition.command ?? null,
          definition.args,
          definition.cwd ?? null,
          definition.url ?? null,
        ],
      },
      { label: environment, value: sorted(definition.env) },
      { label: headers, value: sorted(definition.headers, true) },
      { label: envFile, value: [definition.envFile ?? null, fromFile] },
      { label: files, value: context.files ?? [] },
    ],
  );
}

/**
 * The question's body: what would run, every character that is not plain ASCII escaped. Each
 * part is cut on its own, so a long command cannot push the variables the values take (the
 * user's `${env:GITHUB_TOKEN}` in a header) out of sight.
 */
export function describeDefinition(
  definition: McpDefinition,
  envFileNames: readonly string[] = [],
  files: readonly string[] = [],
): string {
  const parts: string[] = [];
  if (definition.transport === 'stdio') {
    parts.push(cut([definition.command ?? '', ...definition.args].map(quoteForDisplay).join(' '), 400));
    if (definition.cwd) parts.push(`in ${escapeForDisplay(definition.cwd, 200)}`);
  } else parts.push(`${definition.transport.toUpperCase()} ${escapeForDisplay(definition.url ?? '', 300)}`);
  const envNames = [...new Set([...Object.keys(definition.env), ...envFileNames])];
  if (envNames.length) parts.push(`env: ${escapeForDisplay(envNames.join(', '), 200)}`);
  if (definition.envFile) parts.push(`env file: ${escapeForDisplay(definition.envFile, 200)}`);
  const headerNames = Object.keys(definition.headers);
  if (headerNames.length) parts.push(`headers: ${escapeForDisplay(headerNames.join(', '), 200)}`);
  const taken = variablesInValues(definition);
  if (taken.length) parts.push(`values from variables: ${escapeForDisplay(taken.join('; '), 300)}`);
  if (files.length) parts.push(`workspace files it runs: ${escapeForDisplay(files.join(', '), 200)}`);
  return parts.join(' · ');
}

/**
 * The variables env and header values take, by name (`LOG: ${env:AWS_SECRET_ACCESS_KEY}`,
 * `header Authorization: ${input:token}`): only names are shown otherwise, and a value is where
 * a repository would pull the user's secrets into a server it names.
 */
function variablesInValues(definition: McpDefinition): string[] {
  if (definition.variables === 'none') return [];
  const found: string[] = [];
  const add = (label: string, value: string) => {
    const variables = [...value.matchAll(VARIABLE)].map((match) => match[0]);
    if (variables.length) found.push(`${label}: ${[...new Set(variables)].join(' ')}`);
  };
  for (const [name, value] of Object.entries(definition.env)) add(name, value);
  for (const [name, value] of Object.entries(definition.headers)) add(`header ${name}`, value);
  return found;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function quoteForDisplay(word: string): string {
  const shown = escapeForDisplay(word, 200);
  return /^[\w@%+=:,./\\{}$-]+$/.test(shown) ? shown : `'${shown.replace(/'/g, "'\\''")}'`;
}

/** Where a definition's variables get their values when it starts. */
export interface McpVariableContext {
  workspaceFolder?: string;
  userHome: string;
  env: Readonly<Record<string, string | undefined>>;
  pathSeparator: string;
  /** An input's value, already asked; undefined when it was not given. */
  input(id: string): string | undefined;
}

/** `${…}` with anything but a closing brace inside: `${input:${input:y}}` is one (invalid) variable, never nested. */
const VARIABLE = /\$\{([^}]*)\}/g;

/** The `${input:…}` ids a definition's strings use (to ask them before it starts). */
export function inputIdsOf(definition: McpDefinition): string[] {
  if (definition.variables !== 'vscode') return [];
  const ids = new Set<string>();
  for (const text of stringsOf(definition))
    for (const match of text.matchAll(VARIABLE))
      // An invalid id is never asked for: resolving it fails with the id escaped.
      if (match[1]!.startsWith('input:') && MCP_INPUT_ID.test(match[1]!.slice(6))) ids.add(match[1]!.slice(6));
  return [...ids];
}

function stringsOf(definition: McpDefinition): string[] {
  return [
    definition.command ?? '',
    ...definition.args,
    ...Object.values(definition.env),
    definition.envFile ?? '',
    definition.cwd ?? '',
    definition.url ?? '',
    ...Object.values(definition.headers),
  ];
}

export class McpVariableError extends Error {}

/**
 * One string with its variables replaced, in one pass: a value put in is never read again for
 * variables, so an input cannot expand into another. An unknown or unset variable is an error
 * naming it (never the value of anything).
 */
export function resolveVariables(
  text: string,
  syntax: McpDefinition['variables'],
  context: McpVariableContext,
): string {
  if (syntax === 'none') return text;
  return text.replace(VARIABLE, (_whole, inner: string) =>
    syntax === 'claude' ? claudeVariable(inner, context) : vscodeVariable(inner, context),
  );
}

function vscodeVariable(inner: string, context: McpVariableContext): string {
  if (inner === 'workspaceFolder' || inner === 'workspaceFolderBasename') {
    if (context.workspaceFolder === undefined) throw new McpVariableError(`\${${inner}} needs an open folder`);
    return inner === 'workspaceFolder' ? context.workspaceFolder : basename(context.workspaceFolder);
  }
  if (inner === 'userHome') return context.userHome;
  if (inner === 'pathSeparator' || inner === '/') return context.pathSeparator;
  if (inner.startsWith('env:')) return context.env[inner.slice(4)] ?? '';
  if (inner.startsWith('input:')) {
    const id = inner.slice(6);
    if (!MCP_INPUT_ID.test(id))
      throw new McpVariableError(`\${input:${escapeForDisplay(id, 80)}} is not a valid input id`);
    const value = context.input(id);
    if (value === undefined) throw new McpVariableError(`the input "${id}" was not given`);
    return value;
  }
  throw new McpVariableError(`\${${escapeForDisplay(inner, 80)}} is not a variable OpenAgent knows`);
}

/** Claude Code's `${VAR}` and `${VAR:-default}`, from the environment. */
function claudeVariable(inner: string, context: McpVariableContext): string {
  const split = inner.indexOf(':-');
  const name = split === -1 ? inner : inner.slice(0, split);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(name))
    throw new McpVariableError(`\${${escapeForDisplay(inner, 80)}} is not a variable name`);
  const value = context.env[name];
  if (value !== undefined && value !== '') return value;
  if (split !== -1) return inner.slice(split + 2);
  throw new McpVariableError(`\${${name}} is not set and has no default`);
}

/**
 * The server to start: every string resolved, the env file's variables under the definition's
 * own (which win, as in VS Code). Throws McpVariableError.
 */
export function resolveDefinition(
  definition: McpDefinition,
  context: McpVariableContext,
  envFromFile: Readonly<Record<string, string>> = {},
): McpServerConfig {
  const resolve = (text: string) => resolveVariables(text, definition.variables, context);
  const resolveAll = (values: Record<string, string>) =>
    Object.fromEntries(Object.entries(values).map(([key, value]) => [key, resolve(value)]));
  if (definition.transport !== 'stdio') {
    const url = resolve(definition.url ?? '');
    if (!/^https?:\/\//i.test(url)) throw new McpVariableError('the URL must start with http:// or https://');
    return { url, headers: resolveAll(definition.headers) };
  }
  const cwd = definition.cwd === undefined ? undefined : resolve(definition.cwd);
  return {
    command: resolve(definition.command ?? ''),
    args: definition.args.map(resolve),
    env: { ...envFromFile, ...resolveAll(definition.env) },
    ...(cwd === undefined ? {} : { cwd }),
  };
}

/**
 * A dotenv file: `NAME=value` lines, `export ` allowed, `#` comments, values in single quotes
 * taken as is and in double quotes with \n escapes. Lines that are none of these are skipped.
 */
export function parseEnvFile(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(.*?)\s*$/.exec(raw);
    if (!match) continue;
    let value = match[2]!;
    const quote = value[0];
    if ((quote === '"' || quote === "'") && value.length >= 2 && value.endsWith(quote)) {
      value = value.slice(1, -1);
      if (quote === '"') value = value.replace(/\\n/g, '\n').replace(/\\(["\\])/g, '$1');
    } else value = value.replace(/\s+#.*$/, '');
    env[match[1]!] = value;
  }
  return env;
}

function basename(folder: string): string {
  const parts = folder.split(/[\\/]+/).filter(Boolean);
  return parts[parts.length - 1] ?? folder;
}
