/**
 * MCP servers in the CLI, from the same files as the editor (src/node/mcp/mcp-sources.ts):
 * VS Code's user mcp.json, and the folder's `.openagent/mcp.json`, `.vscode/mcp.json` and
 * `.mcp.json` (the folder the user started the CLI in is trusted, as their shell is). A server
 * the folder defines starts only once the user allowed that exact definition on the terminal
 * (remembered per folder in the store directory; a changed definition asks again). Inputs are
 * asked on the terminal for this run only — the CLI has no keychain — and held as secrets.
 * Without a terminal nothing can be asked: the server does not start and the reason names it.
 */
import { randomUUID } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { HeldSecrets } from '../core/llm/held-secrets';
import { lazyModule } from '../core/lazy-module';
import { mcpCredentialSettings } from '../core/mcp/mcp-config';
import type { McpInputDefinition } from '../core/mcp/vscode-mcp-json';
import type { AnyTool } from '../core/tools/tool';
import type { McpConnections } from '../node/mcp/mcp-connections';
import type * as McpConnectionsModule from '../node/mcp/mcp-connections';
import { readMcpDefinitions } from '../node/mcp/mcp-sources';
import { planMcpStart, type McpApprovalPort, type McpDecision, type McpInputPort } from '../node/mcp/mcp-startup';

const mcpConnections = lazyModule(() => require('../node/mcp/mcp-connections') as typeof McpConnectionsModule);

export interface CliMcpDeps {
  workspaceRoot: string;
  storeDirectory: string;
  env: NodeJS.ProcessEnv;
  heldSecrets: HeldSecrets;
  version: string;
  /** Asks one line on the terminal (undefined: interrupted); absent without a terminal. */
  ask?: (question: string) => Promise<string | undefined>;
  warn(message: string): void;
  /** VS Code's user mcp.json (default: where VS Code keeps it on this system). */
  userMcpJson?: string;
}

export class CliMcp {
  private connections: McpConnections | undefined;
  private started: Promise<void> | undefined;

  constructor(private readonly deps: CliMcpDeps) {}

  /** The tools of the servers that are up, starting them (and asking what must be asked) the first time. */
  async tools(): Promise<AnyTool[]> {
    await (this.started ??= this.start());
    return (await this.connections?.tools()) ?? [];
  }

  async close(): Promise<void> {
    await this.connections?.stop();
  }

  private async start(): Promise<void> {
    const { deps } = this;
    const userFile = deps.userMcpJson ?? vscodeUserMcpJson(deps.env);
    const sources = await readMcpDefinitions({
      settings: undefined,
      userFile,
      workspaceRoot: deps.workspaceRoot,
      workspaceTrusted: true,
    });
    const unanswered = deps.ask ? 'answer it when asked' : 'run openagent in a terminal to be asked';
    const plan = await planMcpStart(sources.definitions, sources.inputs, {
      approvals: new CliMcpApprovals(path.join(deps.storeDirectory, 'mcp-decisions.json'), deps.workspaceRoot, deps),
      inputs: new CliMcpInputs(deps),
      variables: (input) => ({
        workspaceFolder: deps.workspaceRoot,
        userHome: os.homedir(),
        env: deps.env,
        pathSeparator: path.sep,
        input,
      }),
      workspaceRoot: () => deps.workspaceRoot,
      userFolder: path.dirname(userFile),
      onAllowed: () => undefined,
      onChanged: () => undefined,
      waitForAnswers: true,
      unanswered,
    });
    for (const problem of [...sources.problems, ...plan.problems])
      deps.warn(
        `openagent: MCP server${problem.server ? ` "${problem.server}"` : 's'} in ${problem.source}: ${problem.message}`,
      );
    for (const held of plan.held)
      if (held.state !== 'error') deps.warn(`openagent: MCP server "${held.name}" ${held.error ?? 'not started'}`);
    if (Object.keys(plan.servers).length === 0) return;
    const credentials = mcpCredentialSettings(plan.servers);
    deps.heldSecrets.addEnvironment(credentials.env);
    deps.heldSecrets.addHeaders(credentials.headers);
    this.connections = new (mcpConnections().McpConnections)({
      clientName: 'OpenAgent',
      clientVersion: deps.version,
      cwd: () => deps.workspaceRoot,
    });
    await this.connections.start(plan.servers);
  }
}

/** Where VS Code (stable) keeps the user's mcp.json on this system. */
export function vscodeUserMcpJson(env: NodeJS.ProcessEnv, platform = process.platform, home = os.homedir()): string {
  const base =
    platform === 'win32'
      ? (env.APPDATA ?? path.join(home, 'AppData', 'Roaming'))
      : platform === 'darwin'
        ? path.join(home, 'Library', 'Application Support')
        : (env.XDG_CONFIG_HOME ?? path.join(home, '.config'));
  return path.join(base, 'Code', 'User', 'mcp.json');
}

/** Decisions per folder in a file of the store directory: `{"<folder>": {"<fingerprint>": "allowed"}}`. */
class CliMcpApprovals implements McpApprovalPort {
  constructor(
    private readonly file: string,
    private readonly folder: string,
    private readonly deps: CliMcpDeps,
  ) {}

  decision(fingerprint: string): McpDecision | undefined {
    const value = this.read()[this.folder]?.[fingerprint];
    return value === 'allowed' || value === 'refused' ? value : undefined;
  }

  allowedFingerprints(): string[] {
    return Object.entries(this.read()[this.folder] ?? {})
      .filter(([, decision]) => decision === 'allowed')
      .map(([fingerprint]) => fingerprint);
  }

  async ask(fingerprint: string, name: string, source: string, description: string): Promise<McpDecision | undefined> {
    if (!this.deps.ask) return undefined;
    for (;;) {
      const answer = await this.deps.ask(`Start MCP server "${name}" from ${source}? ${description}\n[y]es / [n]o: `);
      if (answer === undefined) return undefined;
      const word = answer.trim().toLowerCase();
      const decision =
        word === 'y' || word === 'yes' ? 'allowed' : word === 'n' || word === 'no' ? 'refused' : undefined;
      if (!decision) continue;
      this.remember(fingerprint, decision);
      return decision;
    }
  }

  private read(): Record<string, Record<string, string>> {
    try {
      const value: unknown = JSON.parse(fs.readFileSync(this.file, 'utf8'));
      return typeof value === 'object' && value !== null ? (value as Record<string, Record<string, string>>) : {};
    } catch {
      return {};
    }
  }

  private remember(fingerprint: string, decision: McpDecision): void {
    const all = this.read();
    // Each change of a definition adds one: the oldest go, as in the editor (they ask again).
    const kept = Object.entries({ ...all[this.folder] }).filter(([key]) => key !== fingerprint);
    all[this.folder] = Object.fromEntries([...kept, [fingerprint, decision]].slice(-200));
    fs.mkdirSync(path.dirname(this.file), { recursive: true });
    // Written whole, then renamed: two CLIs at once never leave half a file.
    const temporary = `${this.file}.${randomUUID()}.tmp`;
    fs.writeFileSync(temporary, JSON.stringify(all, null, 2), { mode: 0o600 });
    fs.renameSync(temporary, this.file);
  }
}

/** Inputs asked on the terminal, kept for this run only. */
class CliMcpInputs implements McpInputPort {
  private readonly given = new Map<string, string>();

  constructor(private readonly deps: CliMcpDeps) {}

  async value(input: McpInputDefinition): Promise<string | undefined> {
    const key = `${input.source}\n${input.id}`;
    const kept = this.given.get(key);
    if (kept !== undefined) return kept;
    if (!this.deps.ask) return undefined;
    // No hidden entry on this terminal yet: said before the value is typed.
    const shown = input.password ? ' (shown as you type it)' : '';
    const answer = await this.deps.ask(
      `MCP input "${input.id}" for ${input.source}: ${input.description || input.id}${shown}: `,
    );
    if (answer === undefined || answer === '') return undefined;
    this.deps.heldSecrets.add(answer);
    this.given.set(key, answer);
    return answer;
  }
}
