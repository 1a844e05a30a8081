/**
 * The persistent task board (SPEC 2.9): tasks with a status, an owner and dependencies kept on
 * both sides (a task's blockedBy is the other end of its blockers' blocks). A task can start
 * only when every task it is blocked by is completed; completing one says which tasks it
 * unblocked. Every change is one atomic update of the stored board, so concurrent agents
 * (teammates) never lose each other's changes, and each change is reported as a task_update
 * event.
 */
import type { AgentEventBody } from '../events/events';
import type { StoredTask, TaskBoardData, TaskBoardStorage } from '../ports';

export type TaskStatus = StoredTask['status'];

export class TaskError extends Error {
  override readonly name = 'TaskError';
}

export interface TaskChanges {
  subject?: string;
  description?: string;
  activeForm?: string;
  status?: TaskStatus | 'deleted';
  /** An agent's name; "" releases the task. */
  owner?: string;
  addBlockedBy?: string[];
  addBlocks?: string[];
}

export interface NewTask {
  subject: string;
  description?: string;
  activeForm?: string;
  blockedBy?: string[];
}

export interface TaskBoardOptions {
  storage: TaskBoardStorage;
  boardId: string;
  now: () => number;
  /** Reports each change (task_update events). */
  report?: (body: Extract<AgentEventBody, { type: 'task_update' }>) => void;
}

export class TaskBoard {
  constructor(private readonly options: TaskBoardOptions) {}

  async list(): Promise<StoredTask[]> {
    return (await this.options.storage.read(this.options.boardId)).tasks;
  }

  async get(id: string): Promise<StoredTask> {
    const task = (await this.list()).find((candidate) => candidate.id === id);
    if (!task) throw new TaskError(`There is no task #${id}.`);
    return task;
  }

  async create(input: NewTask): Promise<StoredTask> {
    const task = await this.options.storage.update(this.options.boardId, (board) => {
      const now = this.options.now();
      const created: StoredTask = {
        id: String(board.nextId),
        subject: input.subject,
        description: input.description ?? '',
        ...(input.activeForm ? { activeForm: input.activeForm } : {}),
        status: 'pending',
        blockedBy: [],
        blocks: [],
        createdAt: now,
        updatedAt: now,
      };
      const tasks = [...board.tasks.map(copy), created];
      for (const blocker of unique(input.blockedBy ?? [])) link(tasks, blocker, created.id);
      return { board: { nextId: board.nextId + 1, tasks }, result: created };
    });
    this.reportTask(task);
    return task;
  }

  /**
   * Applies changes to one task. Returns the task as it is now (undefined once deleted) and the
   * tasks that completing it unblocked.
   */
  async update(id: string, changes: TaskChanges): Promise<{ task?: StoredTask; unblocked: StoredTask[] }> {
    const outcome = await this.options.storage.update<{
      task: StoredTask | undefined;
      deleted: StoredTask | undefined;
      unblocked: StoredTask[];
    }>(this.options.boardId, (board) => {
      const tasks = board.tasks.map(copy);
      const task = tasks.find((candidate) => candidate.id === id);
      if (!task) throw new TaskError(`There is no task #${id}.`);
      const now = this.options.now();
      if (changes.status === 'deleted') {
        const remaining = tasks.filter((candidate) => candidate.id !== id);
        for (const other of remaining) {
          other.blockedBy = other.blockedBy.filter((blocker) => blocker !== id);
          other.blocks = other.blocks.filter((blocked) => blocked !== id);
        }
        return { board: { ...board, tasks: remaining }, result: { task: undefined, deleted: task, unblocked: [] } };
      }
      for (const blocker of unique(changes.addBlockedBy ?? [])) link(tasks, blocker, id);
      for (const blocked of unique(changes.addBlocks ?? [])) link(tasks, id, blocked);
      if (changes.subject !== undefined) task.subject = changes.subject;
      if (changes.description !== undefined) task.description = changes.description;
      if (changes.activeForm !== undefined) task.activeForm = changes.activeForm;
      if (changes.owner !== undefined) {
        if (changes.owner === '') delete task.owner;
        else task.owner = changes.owner;
      }
      const wasCompleted = task.status === 'completed';
      if (changes.status !== undefined && changes.status !== task.status) {
        if (changes.status !== 'pending') {
          const open = openBlockers(tasks, task);
          if (open.length)
            throw new TaskError(
              `Task #${id} is blocked by ${open.map((blocker) => `#${blocker.id} (${blocker.status})`).join(', ')}: finish ${open.length > 1 ? 'those' : 'that'} first.`,
            );
        }
        task.status = changes.status;
      }
      task.updatedAt = now;
      const unblocked =
        !wasCompleted && task.status === 'completed'
          ? tasks.filter(
              (other) =>
                other.blockedBy.includes(id) && other.status === 'pending' && openBlockers(tasks, other).length === 0,
            )
          : [];
      return { board: { ...board, tasks }, result: { task, deleted: undefined, unblocked } };
    });
    if (outcome.deleted) this.reportTask(outcome.deleted, 'deleted');
    if (outcome.task) this.reportTask(outcome.task);
    return { task: outcome.task, unblocked: outcome.unblocked };
  }

  /**
   * Claims the first pending task nobody owns and nothing blocks, for `owner`, atomically (two
   * idle teammates never get the same one). Undefined when there is none.
   */
  async claimNext(owner: string): Promise<StoredTask | undefined> {
    const claimed = await this.options.storage.update<StoredTask | undefined>(this.options.boardId, (board) => {
      const tasks = board.tasks.map(copy);
      const task = tasks.find(
        (candidate) =>
          candidate.status === 'pending' && !candidate.owner && openBlockers(tasks, candidate).length === 0,
      );
      if (!task) return { board, result: undefined };
      task.owner = owner;
      task.status = 'in_progress';
      task.updatedAt = this.options.now();
      return { board: { ...board, tasks }, result: task };
    });
    if (claimed) this.reportTask(claimed);
    return claimed;
  }

  /** The tasks that still block `task` (not completed). */
  static openBlockers(tasks: readonly StoredTask[], task: StoredTask): StoredTask[] {
    return openBlockers(tasks, task);
  }

  private reportTask(task: StoredTask, status: TaskStatus | 'deleted' = task.status): void {
    this.options.report?.({
      type: 'task_update',
      taskId: task.id,
      subject: task.subject,
      status,
      ...(task.owner ? { owner: task.owner } : {}),
    });
  }
}

export function emptyBoard(): TaskBoardData {
  return { nextId: 1, tasks: [] };
}

function openBlockers(tasks: readonly StoredTask[], task: StoredTask): StoredTask[] {
  return task.blockedBy
    .map((blocker) => tasks.find((candidate) => candidate.id === blocker))
    .filter((blocker): blocker is StoredTask => blocker !== undefined && blocker.status !== 'completed');
}

/** Records that `blocker` blocks `blocked`, on both tasks; refuses unknown tasks and cycles. */
function link(tasks: StoredTask[], blocker: string, blocked: string): void {
  const from = tasks.find((task) => task.id === blocker);
  const to = tasks.find((task) => task.id === blocked);
  if (!from) throw new TaskError(`There is no task #${blocker} to depend on.`);
  if (!to) throw new TaskError(`There is no task #${blocked}.`);
  if (blocker === blocked) throw new TaskError(`Task #${blocker} cannot block itself.`);
  if (dependsOn(tasks, blocker, blocked))
    throw new TaskError(
      `#${blocker} already waits for #${blocked}: making #${blocked} wait for #${blocker} would be a cycle.`,
    );
  if (!from.blocks.includes(blocked)) from.blocks.push(blocked);
  if (!to.blockedBy.includes(blocker)) to.blockedBy.push(blocker);
}

/** Whether `id` waits (directly or through others) for `target`. */
function dependsOn(tasks: readonly StoredTask[], id: string, target: string): boolean {
  const seen = new Set<string>();
  const stack = [id];
  while (stack.length) {
    const current = stack.pop()!;
    if (current === target) return true;
    if (seen.has(current)) continue;
    seen.add(current);
    stack.push(...(tasks.find((task) => task.id === current)?.blockedBy ?? []));
  }
  return false;
}

function copy(task: StoredTask): StoredTask {
  return { ...task, blockedBy: [...task.blockedBy], blocks: [...task.blocks] };
}

function unique(ids: readonly string[]): string[] {
  return [...new Set(ids.map((id) => id.replace(/^#/, '')))];
}
