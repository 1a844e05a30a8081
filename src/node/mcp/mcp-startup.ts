/**
 * From definitions to servers that may start: the env file read, a workspace definition
 * checked against the user's decisions (and asked about — without waiting: the conversation goes
 * on without that server until "Allow" restarts them), the inputs asked, the variables resolved.
 * A server that does not start gets a status saying why, for the developer panel.
 */
import type { McpConfigProblem, McpServerConfig } from '../../core/mcp/mcp-config';
import {
  describeDefinition,
  inputIdsOf,
  MCP_FINGERPRINT_PARTS,
  McpVariableError,
  parseEnvFile,
  type McpVariableContext,
  resolveDefinition,
  resolveVariables,
} from '../../core/mcp/mcp-definitions';
import type { McpDefinition, McpInputDefinition } from '../../core/mcp/vscode-mcp-json';
import { changedParts, changeNote } from '../../core/workspace/allow-fingerprint';
import type { McpServerStatus } from './mcp-connections';
import { McpFileError, readEnvFileText } from './mcp-files';
import { mcpDefinitionFingerprint } from './mcp-fingerprint';

export interface McpStartPlan {
  servers: Record<string, McpServerConfig>;
  /** The servers that do not start, and why. */
  held: McpServerStatus[];
  problems: McpConfigProblem[];
}

export type McpDecision = 'allowed' | 'refused';

/** The user's decisions on workspace definitions (the editor keeps them in workspaceState). */
export interface McpApprovalPort {
  decision(fingerprint: string): McpDecision | undefined;
  /** Asks once at a time per fingerprint; undefined when the question was dismissed. */
  ask(fingerprint: string, name: string, source: string, description: string): Promise<McpDecision | undefined>;
  /** The fingerprints allowed before, oldest first: to say what changed since (optional). */
  allowedFingerprints?(): string[];
}

/** The values of `${input:…}` (the editor asks once and keeps them in SecretStorage). */
export interface McpInputPort {
  value(input: McpInputDefinition): Promise<string | undefined>;
}

export interface McpStartupDeps {
  approvals: McpApprovalPort;
  inputs: McpInputPort;
  /** Where variables get their values, with the inputs given. */
  variables(input: (id: string) => string | undefined): McpVariableContext;
  workspaceRoot: () => string | undefined;
  userFolder: string;
  /** Called when the user allowed a definition: the servers restart with it. */
  onAllowed: () => void;
  /** Called when a held server's status changed (refused). */
  onChanged: () => void;
  /**
   * Wait for the answer to "Allow?" and start an allowed server in this very plan (the CLI, on
   * a terminal), instead of asking in the background and restarting on "Allow" (the editor).
   */
  waitForAnswers?: boolean;
  /** Why a server waits when the question got no answer (the editor: "Restart MCP Servers asks again"). */
  unanswered?: string;
}

export async function planMcpStart(
  definitions: McpDefinition[],
  inputs: McpInputDefinition[],
  deps: McpStartupDeps,
): Promise<McpStartPlan> {
  const plan: McpStartPlan = { servers: {}, held: [], problems: [] };
  for (const definition of definitions) {
    const hold = (state: McpServerStatus['state'], error: string) => {
      const status: McpServerStatus = {
        name: definition.name,
        transport: transportOf(definition),
        state,
        toolCount: 0,
        error,
      };
      plan.held.push(status);
      return status;
    };
    try {
      const envFromFile = definition.envFile ? await readEnvFile(definition, deps) : {};
      if (definition.origin === 'workspace' && !(await allowed(definition, envFromFile, deps, hold))) continue;
      const values = new Map<string, string>();
      for (const id of inputIdsOf(definition)) {
        const declared = inputs.find((input) => input.id === id && input.source === definition.source);
        if (!declared)
          throw new McpVariableError(`\${input:${id}} is used but not declared under "inputs" of ${definition.source}`);
        const value = await deps.inputs.value(declared);
        if (value === undefined)
          throw new McpVariableError(
            `the input "${id}" was not given (${deps.unanswered ?? 'Restart MCP Servers asks again'})`,
          );
        values.set(id, value);
      }
      const context = deps.variables((id) => values.get(id));
      plan.servers[definition.name] = resolveDefinition(definition, context, envFromFile);
    } catch (error) {
      if (!(error instanceof McpVariableError || error instanceof McpFileError)) throw error;
      hold('error', `${definition.source}: ${error.message}`);
      plan.problems.push({ source: definition.source, server: definition.name, message: error.message });
    }
  }
  return plan;
}

/** Whether a workspace definition may start now; asks when it was never decided (waiting for the answer or not). */
async function allowed(
  definition: McpDefinition,
  envFromFile: Record<string, string>,
  deps: McpStartupDeps,
  hold: (state: McpServerStatus['state'], error: string) => McpServerStatus,
): Promise<boolean> {
  // Taken at every start: a changed env file or script is another fingerprint, asked again.
  const { fingerprint, files } = await mcpDefinitionFingerprint(definition, {
    root: deps.workspaceRoot(),
    variables: deps.variables(() => undefined),
    envFromFile,
  });
  const decision = deps.approvals.decision(fingerprint);
  const refusedText = `not allowed: you refused this definition in ${definition.source}; it is asked again when it changes`;
  if (decision === 'allowed') return true;
  if (decision === 'refused') {
    hold('stopped', refusedText);
    return false;
  }
  const unansweredText = `not started: the question got no answer (${deps.unanswered ?? 'Restart MCP Servers asks again'})`;
  const question = deps.approvals.ask(
    fingerprint,
    definition.name,
    definition.source,
    [
      describeDefinition(
        definition,
        Object.keys(envFromFile),
        files.map((file) => (file.state === 'file' ? file.path : `${file.path} (${file.state})`)),
      ),
      changeNote(changedParts(deps.approvals.allowedFingerprints?.() ?? [], fingerprint, MCP_FINGERPRINT_PARTS)),
    ]
      .filter(Boolean)
      .join(' · '),
  );
  if (deps.waitForAnswers) {
    const answer = await question;
    if (answer === 'allowed') return true;
    hold('stopped', answer === 'refused' ? refusedText : unansweredText);
    return false;
  }
  const status = hold('stopped', `waiting for your approval of its definition in ${definition.source}`);
  void question.then((answer) => {
    if (answer === 'allowed') deps.onAllowed();
    else {
      status.error = answer === 'refused' ? refusedText : unansweredText;
      deps.onChanged();
    }
  });
  return false;
}

async function readEnvFile(definition: McpDefinition, deps: McpStartupDeps): Promise<Record<string, string>> {
  // The env file's path may name the folder (`${workspaceFolder}/.env`), never an input.
  const file = resolveVariables(
    definition.envFile!,
    definition.variables,
    deps.variables(() => {
      throw new McpVariableError('envFile cannot use ${input:…}');
    }),
  );
  const text = await readEnvFileText(
    file,
    definition.origin === 'workspace' ? { workspaceRoot: deps.workspaceRoot() } : { userFolder: deps.userFolder },
  );
  return parseEnvFile(text);
}

function transportOf(definition: McpDefinition): McpServerStatus['transport'] {
  return definition.transport;
}
