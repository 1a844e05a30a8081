/**
 * The shape every tool has — built-in, MCP or registered by another extension: a name, a
 * description for the model, a zod input schema, and a handler that acts through ports.
 */
import type { z } from 'zod';

export interface ToolContext {
  conversationId: string;
  agentId: string;
  toolCallId: string;
  /** Aborted when the user stops or redirects the run. */
  signal: AbortSignal;
}

/** What a tool returns: text for the model, and whether it is an error. */
export interface ToolOutput {
  output: string;
  isError?: boolean;
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
