import type OpenAI from 'openai';
import type { ToolDefinition } from '../llm-client';

/** Tool definitions → Chat Completions function tools. */
export function prepareOpenAiTools(tools: ToolDefinition[]): OpenAI.Chat.Completions.ChatCompletionTool[] {
  return tools.map((tool) => ({
    type: 'function' as const,
    function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
  }));
}
