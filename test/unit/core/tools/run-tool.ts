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

/** The same, with a schema refusal as an error result too: hostile inputs may not parse. */
export async function runToolSafely(tool: AnyTool, input: unknown): Promise<{ output: string; isError: boolean }> {
  try {
    return await runTool(tool, input);
  } catch (error) {
    return { output: error instanceof Error ? error.message : String(error), isError: true };
  }
}
