/**
 * MCP server configuration (SPEC 2.10): the common `{"mcpServers": {name: {command, args, env}
 * | {url, headers}}}` shape, from the user's settings and the workspace's .openagent/mcp.json
 * (read only in trusted workspaces; a workspace server wins over a user one of the same name).
 * Every problem is reported with the server it concerns; the valid servers still start.
 */
import { z } from 'zod';

const stdioSchema = z.strictObject({
  command: z.string().trim().min(1),
  args: z.array(z.string()).default([]),
  env: z.record(z.string(), z.string()).default({}),
  cwd: z.string().optional(),
  /** Turned off without removing it. */
  disabled: z.boolean().optional(),
});

const httpSchema = z.strictObject({
  url: z.url({ protocol: /^https?$/ }),
  headers: z.record(z.string(), z.string()).default({}),
  disabled: z.boolean().optional(),
});

export type McpServerConfig = z.infer<typeof stdioSchema> | z.infer<typeof httpSchema>;

export interface McpConfigProblem {
  source: string;
  server?: string;
  message: string;
}

export interface McpServers {
  servers: Record<string, McpServerConfig>;
  problems: McpConfigProblem[];
}

/**
 * Where the servers' settings may hold credentials: their `env` (judged like the environment's
 * variables), their `headers` and URL (judged like request headers). For HeldSecrets, so a
 * server's key echoed back is redacted like any other.
 */
export function mcpCredentialSettings(servers: Record<string, McpServerConfig>): {
  env: Record<string, string>;
  headers: Record<string, string>;
} {
  const env: Record<string, string> = {};
  const headers: Record<string, string> = {};
  for (const [name, server] of Object.entries(servers)) {
    if ('url' in server) {
      for (const [key, value] of Object.entries(server.headers)) headers[key] = value;
      headers[`${name}-url`] = server.url;
      // Two servers may set the same variable to different keys: both are kept.
    } else for (const [key, value] of Object.entries(server.env)) env[key in env ? `${name}_${key}` : key] = value;
  }
  return { env, headers };
}

/** A server name as it appears in tool names: letters, digits, _ and -. */
export const MCP_SERVER_NAME = /^[a-zA-Z0-9_-]{1,32}$/;

/** Validates one source's servers (the object under "mcpServers", or the settings value). */
export function parseMcpServers(value: unknown, source: string): McpServers {
  const servers: Record<string, McpServerConfig> = {};
  const problems: McpConfigProblem[] = [];
  if (value === undefined || value === null) return { servers, problems };
  if (typeof value !== 'object' || Array.isArray(value)) {
    problems.push({ source, message: 'mcpServers must be an object of server name → server' });
    return { servers, problems };
  }
  for (const [name, raw] of Object.entries(value as Record<string, unknown>)) {
    if (!MCP_SERVER_NAME.test(name)) {
      problems.push({ source, server: name, message: 'a server name is letters, digits, _ and -, at most 32' });
      continue;
    }
    const shape = typeof raw === 'object' && raw !== null && 'url' in raw ? httpSchema : stdioSchema;
    const parsed = shape.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      problems.push({ source, server: name, message: `${issue.path.join('.') || 'server'}: ${issue.message}` });
      continue;
    }
    if (!parsed.data.disabled) servers[name] = parsed.data;
  }
  return { servers, problems };
}

/** Parses the text of .openagent/mcp.json. */
export function parseMcpJson(text: string, source: string): McpServers {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    return { servers: {}, problems: [{ source, message: `not valid JSON: ${(error as Error).message}` }] };
  }
  if (typeof data !== 'object' || data === null || !('mcpServers' in data))
    return { servers: {}, problems: [{ source, message: 'expected {"mcpServers": {...}}' }] };
  return parseMcpServers((data as { mcpServers: unknown }).mcpServers, source);
}

/** Later sources win on the same server name. */
export function mergeMcpServers(...sources: McpServers[]): McpServers {
  return {
    servers: Object.assign({}, ...sources.map((source) => source.servers)) as Record<string, McpServerConfig>,
    problems: sources.flatMap((source) => source.problems),
  };
}
