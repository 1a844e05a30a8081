import { z } from 'zod';
import { defineTool } from '../tool';

/**
 * A place to reason and to check work before finishing. It changes nothing; the system prompt
 * asks the agent to verify with it, which replaces a separate "verify" phase.
 */
export const thinkTool = defineTool({
  name: 'think',
  description:
    'Think step by step without acting: plan the next steps, or check your work before you finish ' +
    '(did the change do what was asked? did you run what proves it?). Changes nothing.',
  inputSchema: z.object({ thought: z.string().min(1).describe('Your reasoning.') }),
  readOnly: true,
  needsApproval: false,
  async execute() {
    return 'Thought recorded. Continue.';
  },
});
