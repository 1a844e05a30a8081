/**
 * A rough token count for when a server reports no usage (many local servers don't).
 * About four characters per token for English and code; good enough for budgets and display.
 */
export function estimateTokens(text: string): number {
  return Math.ceil(text.length / 4);
}
