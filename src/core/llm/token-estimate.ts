/**
 * A rough token count for when a server reports no usage (many local servers don't).
 * About four characters per token for English and code; good enough for budgets and display.
 */
import type { LlmRequest, TokenUsage } from './llm-client';

export function estimateTokens(text: string): number {
  return tokensForChars(text.length);
}

export function tokensForChars(chars: number): number {
  return Math.ceil(chars / 4);
}

/** Usage estimated from what was sent and how many characters came back. */
export function estimateUsage(
  request: Pick<LlmRequest, 'system' | 'messages' | 'tools'>,
  outputChars: number,
): TokenUsage {
  const inputChars =
    request.system.length + JSON.stringify(request.messages).length + JSON.stringify(request.tools).length;
  return {
    inputTokens: Math.ceil(inputChars / 4),
    outputTokens: Math.ceil(outputChars / 4),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  };
}
