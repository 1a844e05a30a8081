/**
 * The task tools (SPEC 2.9): task_create, task_get, task_update, task_list over the
 * conversation's persistent task board. They change only the agent's own board, never the
 * workspace, so they count as read-only: offered in plan mode and untrusted folders, never
 * asked about.
 */
import { z } from 'zod';
import type { StoredTask } from '../../ports';
import { TaskBoard, TaskError } from '../../tasks/task-board';
import { defineTool, refusalsAsResults, type AnyTool, type ToolContext } from '../tool';

/** The board a tool call works on (the conversation's, or the team's for teammates). */
export type BoardFor = (context: ToolContext) => TaskBoard;

// Checked by a refinement, not a regex, so the model-facing schema does not repeat the pattern
// on every id (see model-facing-schema.ts): "3" and "#3" are self-explanatory.
const taskId = z
  .string()
  .trim()
  .refine((id) => /^#?\d+$/.test(id), 'a task id such as "3"')
  .transform((id) => id.replace(/^#/, ''));

export function createTaskTools(boardFor: BoardFor): AnyTool[] {
  const create = defineTool({
    name: 'task_create',
    description:
      'Add a task to the task board, with a short imperative subject ("Add the login route"). Use the board to plan ' +
      'and track work of three steps or more; it survives compaction and restarts. blockedBy: tasks to finish first.',
    inputSchema: z.object({
      subject: z.string().trim().min(1).max(200),
      description: z.string().max(10_000).optional().describe('What done means, details.'),
      activeForm: z.string().max(200).optional().describe('Shown while in progress: "Adding the login route".'),
      blockedBy: z.array(taskId).max(50).optional(),
    }),
    readOnly: true,
    needsApproval: false,
    summarize: (input) => `create the task "${input.subject}"`,
    execute: (input, context) =>
      refusalsAsResults(TaskError, async () => {
        const task = await boardFor(context).create(input);
        return `Created task #${task.id}: ${task.subject}${task.blockedBy.length ? ` (blocked by ${ids(task.blockedBy)})` : ''}.`;
      }),
  });

  const get = defineTool({
    name: 'task_get',
    description: 'Show one task in full: subject, description, status, owner, what blocks it and what it blocks.',
    inputSchema: z.object({ taskId }),
    readOnly: true,
    needsApproval: false,
    summarize: (input) => `read task #${input.taskId}`,
    execute: (input, context) =>
      refusalsAsResults(TaskError, async () => {
        const board = boardFor(context);
        const [task, tasks] = await Promise.all([board.get(input.taskId), board.list()]);
        const open = TaskBoard.openBlockers(tasks, task);
        return [
          `#${task.id} ${task.subject}`,
          `Status: ${task.status}${task.owner ? ` (owner: ${task.owner})` : ''}`,
          `Blocked by: ${task.blockedBy.length ? `${ids(task.blockedBy)}${open.length ? ` — still open: ${ids(open.map((t) => t.id))}` : ' — all completed'}` : 'nothing'}`,
          `Blocks: ${task.blocks.length ? ids(task.blocks) : 'nothing'}`,
          ...(task.description ? ['', task.description] : []),
        ].join('\n');
      }),
  });

  const update = defineTool({
    name: 'task_update',
    description:
      'Change a task: status ("in_progress" when you start it, once nothing blocks it; "completed" when done and ' +
      'verified; "deleted" removes it), subject, description, owner (an agent’s name, "" releases it), or ' +
      'dependencies (kept on both tasks).',
    inputSchema: z.object({
      taskId,
      status: z.enum(['pending', 'in_progress', 'completed', 'deleted']).optional(),
      subject: z.string().trim().min(1).max(200).optional(),
      description: z.string().max(10_000).optional(),
      activeForm: z.string().max(200).optional(),
      owner: z.string().max(100).optional(),
      addBlockedBy: z.array(taskId).max(50).optional(),
      addBlocks: z.array(taskId).max(50).optional(),
    }),
    readOnly: true,
    needsApproval: false,
    summarize: (input) => `update task #${input.taskId}${input.status ? ` → ${input.status}` : ''}`,
    execute: (input, context) =>
      refusalsAsResults(TaskError, async () => {
        const { taskId: id, ...changes } = input;
        const { task, unblocked } = await boardFor(context).update(id, changes);
        if (!task) return `Deleted task #${id}.`;
        const lines = [
          `Task #${task.id} "${task.subject}" is ${task.status}${task.owner ? ` (owner: ${task.owner})` : ''}.`,
        ];
        if (unblocked.length) lines.push(`Unblocked: ${unblocked.map((t) => `#${t.id} ${t.subject}`).join('; ')}.`);
        return lines.join(' ');
      }),
  });

  const list = defineTool({
    name: 'task_list',
    description: 'List the task board: every task with its id, status, owner and what still blocks it.',
    inputSchema: z.object({}),
    readOnly: true,
    needsApproval: false,
    summarize: () => 'list the tasks',
    execute: (_input, context) =>
      refusalsAsResults(TaskError, async () => {
        const tasks = await boardFor(context).list();
        return tasks.length ? formatBoard(tasks) : 'The task board is empty.';
      }),
  });

  return [create, get, update, list];
}

/** The board as lines, one per task (also what a compacted conversation is reminded of). */
export function formatBoard(tasks: readonly StoredTask[]): string {
  return tasks
    .map((task) => {
      const open = TaskBoard.openBlockers(tasks, task);
      return `#${task.id} [${task.status}] ${task.subject}${task.owner ? ` (owner: ${task.owner})` : ''}${open.length ? ` — blocked by ${ids(open.map((t) => t.id))}` : ''}`;
    })
    .join('\n');
}

function ids(list: readonly string[]): string {
  return list.map((id) => `#${id}`).join(', ');
}
