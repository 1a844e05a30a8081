import { z } from 'zod';
import { defineTool } from '../tool';

/**
 * Lets the agent compact its own context when it is about to start a new phase of work. The
 * compaction itself happens after this turn's tool calls, so the history stays consistent.
 */
export function createCompactTool(requestCompaction: (focus: string | undefined) => void) {
  return defineTool({
    name: 'compact',
    description:
      'Summarise the conversation so far to free context space, e.g. before a new phase of work. ' +
      'Optionally name what the summary must keep in focus.',
    inputSchema: z.object({
      focus: z.string().max(2_000).optional().describe('What the summary should concentrate on.'),
    }),
    readOnly: true,
    needsApproval: false,
    async execute(input) {
      requestCompaction(input.focus);
      return 'The conversation will be compacted after this turn.';
    },
  });
}
