/**
 * The MCP servers OpenAgent talks to (SPEC 2.10), through `@modelcontextprotocol/sdk`: stdio
 * servers as child processes, HTTP servers over Streamable HTTP with a fallback to the older
 * SSE transport. Each server connects in the background; `tools()` waits (a bounded time) for
 * the ones still connecting and returns the tools of those that are up. Calls time out; a
 * server that crashes or stops answering shows as an error, never takes the agent down, and
 * comes back with "Restart MCP Servers".
 */
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpServerConfig } from '../../core/mcp/mcp-config';
import {
  createMcpTool,
  MAX_MCP_DEPTH,
  nestedTooDeep,
  type McpCallResult,
  type McpToolInfo,
} from '../../core/mcp/mcp-tool';
import type { AnyTool } from '../../core/tools/tool';

export type McpServerState = 'connecting' | 'connected' | 'error' | 'stopped';

export interface McpServerStatus {
  name: string;
  transport: 'stdio' | 'http' | 'sse';
  state: McpServerState;
  toolCount: number;
  error?: string;
}

export interface McpConnectionsOptions {
  clientName: string;
  clientVersion: string;
  /** A tool call not answered within this is abandoned (the server is told to cancel); read at each call. */
  callTimeoutMs?: number | (() => number);
  /** Connecting (and listing tools) longer than this counts as failed. */
  connectTimeoutMs?: number;
  /** Working folder for stdio servers without their own cwd. */
  cwd?: () => string | undefined;
  /** Called whenever a server's status changes. */
  onStatus?: (statuses: McpServerStatus[]) => void;
}

interface Connection {
  name: string;
  config: McpServerConfig;
  status: McpServerStatus;
  client?: Client;
  tools: McpToolInfo[];
  /** The end of a stdio server's stderr, for error messages. */
  stderrTail: string;
  /** Transport errors (a message too big, garbage on the wire), for error messages. */
  errors: Array<{ time: number; message: string }>;
  ready: Promise<void>;
}

const DEFAULT_CALL_TIMEOUT_MS = 60_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 20_000;

export class McpConnections {
  private connections = new Map<string, Connection>();

  constructor(private readonly options: McpConnectionsOptions) {}

  /** Starts the servers of `servers` (stopping all others first). */
  async start(servers: Record<string, McpServerConfig>): Promise<void> {
    await this.stop();
    for (const [name, config] of Object.entries(servers)) {
      const connection: Connection = {
        name,
        config,
        tools: [],
        stderrTail: '',
        errors: [],
        status: { name, transport: 'url' in config ? 'http' : 'stdio', state: 'connecting', toolCount: 0 },
        ready: Promise.resolve(),
      };
      connection.ready = this.connect(connection);
      this.connections.set(name, connection);
    }
    this.publish();
  }

  /** Stops every server. */
  async stop(): Promise<void> {
    const closing = [...this.connections.values()];
    this.connections = new Map();
    await Promise.all(closing.map((connection) => connection.client?.close().catch(() => undefined)));
    if (closing.length) this.publish();
  }

  statuses(): McpServerStatus[] {
    return [...this.connections.values()].map((connection) => ({ ...connection.status }));
  }

  /** Resolves once every server has finished trying to connect. */
  async ready(): Promise<void> {
    await Promise.all([...this.connections.values()].map((connection) => connection.ready));
  }

  /** The tools of every connected server, once those still connecting have finished trying. */
  async tools(): Promise<AnyTool[]> {
    const connections = [...this.connections.values()];
    await Promise.all(connections.map((connection) => connection.ready));
    return connections
      .filter((connection) => connection.status.state === 'connected')
      .flatMap((connection) =>
        connection.tools.map((info) =>
          createMcpTool(connection.name, info, (tool, input, signal) => this.call(connection, tool, input, signal)),
        ),
      );
  }

  private async connect(connection: Connection): Promise<void> {
    const timeoutMs = this.options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS;
    try {
      const { client, transport } = await withTimeout(this.open(connection), timeoutMs, 'connecting');
      connection.client = client;
      connection.status.transport = transport;
      const listed = await withTimeout(listAllTools(client), timeoutMs, 'listing its tools');
      // A schema too deep to hash or send would fail every request that offers the tools.
      connection.tools = listed.filter((info) => !nestedTooDeep(info.inputSchema));
      const leftOut = listed.length - connection.tools.length;
      if (this.connections.get(connection.name) !== connection) {
        await client.close().catch(() => undefined);
        return;
      }
      client.onclose = () => this.fail(connection, 'the server closed the connection');
      this.update(connection, {
        state: 'connected',
        toolCount: connection.tools.length,
        error: leftOut
          ? `${leftOut} of its tools left out: their input schemas nest more than ${MAX_MCP_DEPTH} levels deep`
          : undefined,
      });
    } catch (error) {
      await connection.client?.close().catch(() => undefined);
      connection.client = undefined;
      this.fail(connection, error instanceof Error ? error.message : String(error));
    }
  }

  private async open(connection: Connection): Promise<{ client: Client; transport: McpServerStatus['transport'] }> {
    const config = connection.config;
    const client = this.newClient(connection);
    if (!('url' in config)) {
      const transport = new StdioClientTransport({
        command: config.command,
        args: config.args,
        env: { ...getDefaultEnvironment(), ...config.env },
        // A relative folder is the workspace's (as the allow's fingerprint read it), never the
        // extension host's or the CLI's own working folder.
        cwd: workingFolder(config.cwd, this.options.cwd?.()),
        stderr: 'pipe',
      });
      // Read (so a chatty server never blocks on a full pipe) and keep the end for error messages.
      transport.stderr?.on('data', (chunk: Buffer) => {
        connection.stderrTail = (connection.stderrTail + chunk.toString('utf8')).slice(-2_000);
      });
      await client.connect(transport);
      return { client, transport: 'stdio' };
    }
    const url = new URL(config.url);
    const requestInit = { headers: config.headers };
    try {
      await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
      return { client, transport: 'http' };
    } catch (streamableError) {
      // Servers of the 2024-11-05 protocol speak SSE only.
      const fallback = this.newClient(connection);
      try {
        await fallback.connect(new SSEClientTransport(url, { requestInit }) as Transport);
        return { client: fallback, transport: 'sse' };
      } catch {
        throw streamableError;
      }
    }
  }

  private newClient(connection: Connection): Client {
    const client = new Client({ name: this.options.clientName, version: this.options.clientVersion });
    // Garbage on the wire is not fatal: the server stays up if it can still answer. A message
    // over the SDK's stdio limit (10 MB) closes the connection; the reason is kept for the user.
    client.onerror = (error) => {
      connection.errors = [...connection.errors.slice(-4), { time: Date.now(), message: error.message }];
    };
    return client;
  }

  private async call(
    connection: Connection,
    tool: string,
    input: Record<string, unknown>,
    signal: AbortSignal,
  ): Promise<McpCallResult> {
    const client = connection.client;
    if (!client || connection.status.state !== 'connected')
      throw new Error(
        `The MCP server "${connection.name}" is not connected${connection.status.error ? ` (${connection.status.error})` : ''}. Run "OpenAgent: Restart MCP Servers" to try again.`,
      );
    const configured = this.options.callTimeoutMs;
    const timeout = (typeof configured === 'function' ? configured() : configured) ?? DEFAULT_CALL_TIMEOUT_MS;
    try {
      return (await client.callTool({ name: tool, arguments: input }, undefined, {
        signal,
        timeout,
        maxTotalTimeout: timeout,
      })) as McpCallResult;
    } catch (error) {
      if (signal.aborted) throw error;
      const message = error instanceof Error ? error.message : String(error);
      if (/timed out|timeout/i.test(message))
        throw new Error(
          `The MCP server "${connection.name}" did not answer ${tool} within ${Math.round(timeout / 1000)} s.`,
          {
            cause: error,
          },
        );
      // The call may have ended because the connection did (a crash, an oversized answer).
      const state = connection.status.state as McpServerState;
      const status = state === 'error' ? ` — ${connection.status.error}` : '';
      throw new Error(`The MCP server "${connection.name}" failed on ${tool}: ${message}${status}`, { cause: error });
    }
  }

  private fail(connection: Connection, message: string): void {
    if (this.connections.get(connection.name) !== connection) return;
    const stderr = connection.stderrTail.trim().split('\n').at(-1);
    // The first recent error is the cause; what follows it (the rest of an oversized message
    // failing to parse) is noise.
    const cause = connection.errors.find((error) => error.time >= Date.now() - 10_000)?.message;
    const detail = [cause, stderr && `stderr: ${stderr}`].filter(Boolean).join('; ');
    this.update(connection, { state: 'error', error: detail ? `${message} (${detail})` : message });
  }

  private update(connection: Connection, changes: Partial<McpServerStatus>): void {
    Object.assign(connection.status, changes);
    if (changes.error === undefined && 'error' in changes) delete connection.status.error;
    this.publish();
  }

  private publish(): void {
    this.options.onStatus?.(this.statuses());
  }
}

async function listAllTools(client: Client): Promise<McpToolInfo[]> {
  const tools: McpToolInfo[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.listTools(cursor ? { cursor } : undefined);
    tools.push(...(page.tools as McpToolInfo[]));
    cursor = page.nextCursor;
  } while (cursor && tools.length < 1_000);
  return tools;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer after ${Math.round(ms / 1000)} s while ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** A server's folder: its own `cwd` against the workspace folder, else the workspace folder. */
export function workingFolder(own: string | undefined, workspace: string | undefined): string | undefined {
  if (own === undefined) return workspace;
  return workspace === undefined ? own : path.resolve(workspace, own);
}
