/** Runs a tool the way the loop does (schema parse, then execute), as text and an error flag. */
import type { AnyTool } from '../../../../src/core/tools/tool';

export async function runTool(
  tool: AnyTool | undefined,
  input: unknown,
  signal = new AbortController().signal,
): Promise<{ output: string; isError: boolean }> {
  const parsed = tool!.inputSchema.parse(input);
  try {
    const result = await tool!.execute(parsed, { conversationId: 'c', agentId: 'lead', toolCallId: 't', signal });
    return typeof result === 'string'
      ? { output: result, isError: false }
      : { output: result.output, isError: result.isError ?? false };
  } catch (error) {
    return { output: (error as Error).message, isError: true };
  }
}
