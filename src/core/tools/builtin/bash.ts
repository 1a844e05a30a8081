/**
 * The bash tool: runs a command where the user can see it (in VS Code, the "OpenAgent"
 * terminal through shell integration; in the CLI, a child process) and returns its output,
 * escape sequences stripped and capped, with the exit code.
 */
import { z } from 'zod';
import type { Shell } from '../../ports';
import { defineTool } from '../tool';

const DEFAULT_TIMEOUT_SECONDS = 120;
const MAX_OUTPUT_CHARS = 30_000;

export function createBashTool(shell: Shell, cwd: () => string | undefined) {
  return defineTool({
    name: 'bash',
    description:
      'Run a shell command in the workspace folder and get its output and exit code. The user sees it run. ' +
      `Times out after ${DEFAULT_TIMEOUT_SECONDS} s unless timeoutSeconds says otherwise; long output keeps its end.`,
    inputSchema: z.object({
      command: z.string().min(1).max(20_000).describe('The command line to run.'),
      timeoutSeconds: z.number().int().min(1).max(3_600).optional(),
    }),
    readOnly: false,
    needsApproval: true,
    traits: { command: (input) => input.command },
    summarize: (input) => `run \`${input.command.length > 120 ? `${input.command.slice(0, 119)}…` : input.command}\``,
    async execute(input, context) {
      const result = await shell.run(input.command, {
        cwd: cwd(),
        ...(context.unconfined ? { unconfined: true } : {}),
        timeoutMs: (input.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
        maxOutputChars: MAX_OUTPUT_CHARS,
        signal: context.signal,
      });
      const status = result.timedOut
        ? `Timed out after ${input.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS} s (stopped).`
        : result.exitCode === undefined
          ? 'Exit code unknown.'
          : `Exit code ${result.exitCode}.`;
      const output = result.output.trim() === '' ? '(no output)' : result.output;
      return {
        output: `${output}\n${status}`,
        isError: result.timedOut || (result.exitCode !== undefined && result.exitCode !== 0),
      };
    },
  });
}
