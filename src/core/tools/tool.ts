/**
 * The shape every tool has — built-in, MCP or registered by another extension: a name, a
 * description for the model, a zod input schema, and a handler that acts through ports.
 */
import type { z } from 'zod';
import type { ImagePart } from '../llm/llm-client';

export interface ToolContext {
  conversationId: string;
  agentId: string;
  toolCallId: string;
  /** Aborted when the user stops or redirects the run. */
  signal: AbortSignal;
  /**
   * The real path the call's `traits.path` resolved to when it was checked and approved: a tool
   * writes there, not to wherever the path leads by the time it runs.
   */
  checkedPath?: string;
  /**
   * The real path of the secret file or folder (`.env`, keys, `.ssh`…) the user approved this
   * very call to read. Without it a tool shows no content of secret files (secret-reads.ts).
   */
  approvedSecret?: string;
  /**
   * The user approved this very call knowing it needs out of the sandbox (the network, a
   * protected or outside path): a command runs unconfined.
   */
  unconfined?: boolean;
}

/** What a tool returns: text for the model, and whether it is an error. */
export interface ToolOutput {
  output: string;
  isError?: boolean;
  /** Pictures for the model with the text (read_file of an image); already within the image limits. */
  images?: ImagePart[];
}

/**
 * What a tool does, as data (SPEC 4.1): the approval and policy code decides from these, never
 * from a list of tool names, so a new tool cannot slip past a check written for the old ones.
 * A tool without traits is judged by `readOnly` / `needsApproval` alone (MCP and extension
 * tools), with any `path` in its input treated as a file it may change.
 */
export interface ToolTraits<Input = unknown> {
  /** The workspace file or folder the call is about, from its input. */
  path?(input: Input): string | undefined;
  /** Changes that file (create, replace, edit); otherwise the path is only read. */
  writes?: boolean;
  /** The shell command line the call runs. */
  command?(input: Input): string | undefined;
  /**
   * Writes something shared beyond this workspace (the user's global memory, the team's memory):
   * the reason, in words, that such a call always asks; undefined when this call does not.
   */
  sharedWrite?(input: Input): string | undefined;
  /**
   * Why every call is put to a person, whatever a rule, auto-approve, `--yes` or an earlier
   * "Always" says — a call whose point is that someone looks at it (a plan): the reason in words.
   * Such a call never offers "Always" and no standing answer covers it. Undefined: it may be.
   */
  asksEveryTime?(input: Input): string | undefined;
  /** The web host the call fetches from (web_fetch), for `network.fetch_allow`. */
  fetchHost?(input: Input): string | undefined;
}

export interface Tool<Input = unknown> {
  name: string;
  description: string;
  inputSchema: z.ZodType<Input>;
  /** The schema shown to the model when it is not the zod schema's (an MCP server's own JSON Schema). */
  inputJsonSchema?: Record<string, unknown>;
  /**
   * Changes when the tool's definition does (MCP tools): an "Always" approval covers one
   * version only, so a changed tool asks again.
   */
  version?: string;
  /** Read-only tools never change anything, so they run without asking. */
  readOnly: boolean;
  /** Whether a call needs the user's approval unless policy says otherwise. */
  needsApproval: boolean | ((input: Input) => boolean);
  /** What the tool does, for approvals and policy (see ToolTraits). */
  traits?: ToolTraits<Input>;
  /** One line for approvals and activity: the path, the command. */
  summarize?(input: Input): string;
  execute(input: Input, context: ToolContext): Promise<ToolOutput | string>;
}

/** Any tool, whatever its input type (for registries and lists). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyTool = Tool<any>;

/** Identity helper that infers a tool's input type from its schema. */
export function defineTool<Input>(tool: Tool<Input>): Tool<Input> {
  return tool;
}

/**
 * Runs a tool's work, turning an error of `kind` (a refusal the model should read and act on,
 * such as "task #3 is blocked") into an error result; any other error propagates.
 */
export async function refusalsAsResults(
  kind: abstract new (...args: never[]) => Error,
  run: () => Promise<string>,
): Promise<string | ToolOutput> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof kind) return { output: error.message, isError: true };
    throw error;
  }
}
