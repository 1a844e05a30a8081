/**
 * Tools other extensions register through OpenAgent's API (SPEC 2.11): a definition with a zod
 * schema and a handler, checked when it is registered and adapted into the same Tool shape as
 * the built-in ones — so policy (tools.allow/deny by name), approvals, hooks, output caps and
 * the audit trail treat it like any other tool. The schema may come from the other extension's
 * own copy of zod (version 4): it is used through its methods and converted to JSON Schema once.
 */
import type { z } from 'zod';
import { toJsonSchema } from './registry';
import type { AnyTool, ToolOutput } from './tool';

export interface ExtensionToolContext {
  conversationId: string;
  /** "lead", a sub-agent's id or a teammate's name. */
  agentId: string;
  toolCallId: string;
  /** Aborted when the user stops or redirects the run. */
  signal: AbortSignal;
}

export interface ExtensionToolDefinition<Input = unknown> {
  /** Letters, digits, _ and - (at most 64); not a built-in tool's name, not mcp__…. */
  name: string;
  /** What the model reads to decide when to use it. */
  description: string;
  /** A zod (version 4) schema of the input; the model gets it as JSON Schema. */
  inputSchema: z.ZodType<Input>;
  /** A tool that only reads runs without asking (default false). */
  readOnly?: boolean;
  /** Whether a call asks the user first (default: unless read-only). */
  needsApproval?: boolean;
  /** One line for the approval notification (default: the tool's name). */
  summarize?(input: Input): string;
  /** Returns text for the model, or { output, isError }; a throw becomes an error result. */
  handler(input: Input, context: ExtensionToolContext): Promise<string | ToolOutput> | string | ToolOutput;
}

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export class ExtensionTools {
  private readonly tools = new Map<string, AnyTool>();

  /**
   * Checks a definition and adds it; throws an Error that says what is wrong. Returns the
   * function that removes it. Conversations started afterwards offer it.
   */
  register(definition: ExtensionToolDefinition<never>): () => void {
    const tool = adapt(definition);
    if (this.tools.has(tool.name))
      throw new Error(`Another extension has already registered a tool named "${tool.name}".`);
    this.tools.set(tool.name, tool);
    return () => {
      if (this.tools.get(tool.name) === tool) this.tools.delete(tool.name);
    };
  }

  /** The registered tools whose names are not `taken` (built-ins win), and the ones left out. */
  usable(taken: ReadonlySet<string>): { tools: AnyTool[]; shadowing: string[] } {
    const tools: AnyTool[] = [];
    const shadowing: string[] = [];
    for (const tool of this.tools.values()) {
      if (taken.has(tool.name)) shadowing.push(tool.name);
      else tools.push(tool);
    }
    return { tools, shadowing };
  }
}

function adapt(definition: ExtensionToolDefinition<never>): AnyTool {
  if (typeof definition !== 'object' || definition === null) throw new Error('A tool definition must be an object.');
  const { name, description, inputSchema, handler } = definition;
  if (typeof name !== 'string' || !NAME.test(name))
    throw new Error(`Invalid tool name "${String(name)}": use letters, digits, _ and -, at most 64.`);
  if (name.startsWith('mcp__')) throw new Error(`Tool names starting with mcp__ are for MCP servers' tools.`);
  if (typeof description !== 'string' || !description.trim())
    throw new Error(`The tool "${name}" needs a description for the model.`);
  if (typeof handler !== 'function') throw new Error(`The tool "${name}" needs a handler function.`);
  if (typeof (inputSchema as { safeParse?: unknown } | undefined)?.safeParse !== 'function')
    throw new Error(`The tool "${name}" needs a zod schema as inputSchema.`);
  let inputJsonSchema: Record<string, unknown>;
  try {
    inputJsonSchema = toJsonSchema(inputSchema);
  } catch (error) {
    throw new Error(
      `The input schema of "${name}" cannot be turned into JSON Schema (zod 4 is needed): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const readOnly = definition.readOnly === true;
  return {
    name,
    description,
    inputSchema,
    inputJsonSchema,
    readOnly,
    needsApproval: definition.needsApproval ?? !readOnly,
    summarize: (input: never) => {
      try {
        const line = definition.summarize?.(input);
        return typeof line === 'string' && line ? line : name;
      } catch {
        // Another extension's mistake must not break the approval: its name will do.
        return name;
      }
    },
    async execute(input: never, context) {
      const result = await handler(input, {
        conversationId: context.conversationId,
        agentId: context.agentId,
        toolCallId: context.toolCallId,
        signal: context.signal,
      });
      if (typeof result === 'string') return result;
      if (result && typeof result.output === 'string')
        return { output: result.output, isError: result.isError === true };
      throw new Error('the handler returned neither text nor { output }');
    },
  };
}
