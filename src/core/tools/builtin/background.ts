/**
 * The background job tools (SPEC 2.9): `background_run` starts a command beside the agent and
 * returns its job id at once; `check_background` shows one job's status and output so far, or
 * lists them all. Completions reach the model by themselves at the top of a later turn (the
 * jobs' inbox), so polling is rarely needed.
 */
import { z } from 'zod';
import { BackgroundJobError, formatDuration, type BackgroundJobs } from '../background-jobs';
import { defineTool, type AnyTool } from '../tool';

export function createBackgroundTools(jobs: BackgroundJobs, cwd: () => string | undefined): AnyTool[] {
  return [createBackgroundRunTool(jobs, cwd), createCheckBackgroundTool(jobs)];
}

function createBackgroundRunTool(jobs: BackgroundJobs, cwd: () => string | undefined) {
  const defaultTimeout = formatDuration(jobs.defaultTimeoutMs);
  const maxTimeoutSeconds = Math.floor(jobs.maxTimeoutMs / 1000);
  return defineTool({
    name: 'background_run',
    description:
      'Start a shell command (a build, tests, a server) in the background in the workspace folder; returns a job id ' +
      'at once. Its exit code and last output are reported at the start of your next turn after it ends; ' +
      `check_background shows its output so far. Stopped after ${defaultTimeout} unless timeoutSeconds says ` +
      `otherwise; at most ${jobs.maxConcurrent} jobs at a time.`,
    inputSchema: z.object({
      command: z.string().min(1).max(20_000).describe('The command line to run.'),
      timeoutSeconds: z.number().int().min(1).max(maxTimeoutSeconds).optional(),
    }),
    readOnly: false,
    needsApproval: true,
    traits: { command: (input) => input.command },
    summarize: (input) => `run \`${clip(input.command)}\` in the background`,
    async execute(input, context) {
      try {
        const job = jobs.start(input.command, {
          cwd: cwd(),
          ...(context.unconfined ? { unconfined: true } : {}),
          timeoutMs: input.timeoutSeconds === undefined ? undefined : input.timeoutSeconds * 1000,
        });
        return (
          `Started background job ${job.id}: \`${clip(job.command)}\` (stopped after ${formatDuration(job.timeoutMs)}). ` +
          `Its result will be reported when it finishes; check_background with id "${job.id}" shows its output so far.`
        );
      } catch (error) {
        if (error instanceof BackgroundJobError) return { output: error.message, isError: true };
        throw error;
      }
    },
  });
}

function createCheckBackgroundTool(jobs: BackgroundJobs) {
  return defineTool({
    name: 'check_background',
    description:
      'Show a background job’s status and output so far (its end, when long); without an id, list every background ' +
      'job of this conversation.',
    inputSchema: z.object({
      id: z.string().min(1).optional().describe('The job id from background_run, e.g. "bg-1".'),
    }),
    readOnly: true,
    needsApproval: false,
    summarize: (input) => (input.id ? `check background job ${input.id}` : 'list background jobs'),
    async execute(input) {
      if (input.id === undefined) return listJobs(jobs);
      const job = jobs.check(input.id.trim());
      if (!job) {
        const known = jobs.list().map((info) => info.id);
        return {
          output: `No background job "${input.id}". ${known.length ? `Known jobs: ${known.join(', ')}.` : 'There are none.'}`,
          isError: true,
        };
      }
      const output = job.output.trim() === '' ? '(no output yet)' : job.output;
      return `Job ${job.id} ${jobs.describe(job)}: \`${clip(job.command)}\`\n${output}`;
    },
  });
}

function listJobs(jobs: BackgroundJobs): string {
  const all = jobs.list();
  if (all.length === 0) return 'No background jobs in this conversation.';
  const running = all.filter((info) => info.status === 'running').length;
  const lines = all.map((info) => `- ${info.id} ${jobs.describe(info)}: \`${clip(info.command)}\``);
  return `${all.length} background job(s), ${running} running (at most ${jobs.maxConcurrent}):\n${lines.join('\n')}`;
}

function clip(command: string): string {
  return command.length > 120 ? `${command.slice(0, 119)}…` : command;
}
