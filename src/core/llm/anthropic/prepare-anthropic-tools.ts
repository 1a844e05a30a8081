import type Anthropic from '@anthropic-ai/sdk';
import type { ToolDefinition } from '../llm-client';

/**
 * Tool definitions → Anthropic tools. The tool list is the same on every request, so the last
 * one carries a cache breakpoint: system prompt and tools are then served from the cache.
 */
export function prepareAnthropicTools(tools: ToolDefinition[]): Anthropic.Tool[] {
  return tools.map((tool, index) => ({
    name: tool.name,
    description: tool.description,
    input_schema: tool.inputSchema as Anthropic.Tool.InputSchema,
    ...(index === tools.length - 1 ? { cache_control: { type: 'ephemeral' as const } } : {}),
  }));
}
