/**
 * A rough token count for when a server reports no usage (many local servers don't).
 * About four characters per token for English and code; good enough for budgets and display.
 */
import type { LlmRequest, TokenUsage } from './llm-client';
import { imageTokens } from '../images/image-limits';

function isImage(value: unknown): value is { width: number; height: number } {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as { type?: unknown }).type === 'image' &&
    typeof (value as { width?: unknown }).width === 'number'
  );
}

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
  let imageTokenCount = 0;
  // An image counts by its pixels, not by the length of its base64 (which would be ten times
  // more) nor its sha256 and name (which the server never reads as text).
  const withoutImageData = function (key: string, value: unknown) {
    if (!isImage(value)) return value;
    imageTokenCount += imageTokens(value.width, value.height);
    return undefined;
  };
  const inputChars =
    request.system.length +
    JSON.stringify(request.messages, withoutImageData).length +
    JSON.stringify(request.tools).length;
  return {
    inputTokens: Math.ceil(inputChars / 4) + imageTokenCount,
    outputTokens: Math.ceil(outputChars / 4),
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
  };
}

export { imageTokens };
