import { z } from 'zod';
import type { ToolDefinition } from '../llm/llm-client';
import { modelFacingSchema } from './model-facing-schema';
import type { AnyTool } from './tool';

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** The tools a conversation may use, by name, with their model-facing definitions. */
export class ToolRegistry {
  private readonly tools = new Map<string, AnyTool>();
  private readonly definitionCache = new Map<string, ToolDefinition>();

  constructor(tools: Iterable<AnyTool> = []) {
    for (const tool of tools) this.register(tool);
  }

  /** Adds a tool; returns a function that removes it again. A name may be taken only once. */
  register(tool: AnyTool): () => void {
    if (!TOOL_NAME.test(tool.name))
      throw new Error(`Invalid tool name "${tool.name}": use letters, digits, _ and -, at most 64.`);
    if (this.tools.has(tool.name)) throw new Error(`A tool named "${tool.name}" is already registered.`);
    this.tools.set(tool.name, tool);
    return () => {
      if (this.tools.get(tool.name) === tool) {
        this.tools.delete(tool.name);
        this.definitionCache.delete(tool.name);
      }
    };
  }

  get(name: string): AnyTool | undefined {
    return this.tools.get(name);
  }

  list(): AnyTool[] {
    return [...this.tools.values()];
  }

  get names(): string[] {
    return [...this.tools.keys()];
  }

  /**
   * Definitions for the model, optionally only those `filter` lets through (plan mode: read-only).
   * Their schemas are the model-facing ones (constraints in words; see model-facing-schema.ts).
   */
  definitions(filter: (tool: AnyTool) => boolean = () => true): ToolDefinition[] {
    return this.list()
      .filter(filter)
      .map((tool) => {
        let definition = this.definitionCache.get(tool.name);
        if (!definition) {
          definition = {
            name: tool.name,
            description: tool.description,
            inputSchema: modelFacingSchema(tool.inputJsonSchema ?? toJsonSchema(tool.inputSchema)),
          };
          this.definitionCache.set(tool.name, definition);
        }
        return definition;
      });
  }
}

/** A zod schema as the JSON Schema object the model APIs expect. */
export function toJsonSchema(schema: z.ZodType): Record<string, unknown> {
  const { $schema: _ignored, ...jsonSchema } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return jsonSchema;
}
