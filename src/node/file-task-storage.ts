/**
 * Task boards as JSON files, one per board (`<folder>/<boardId>.json`). An update holds a lock
 * file for the board (created exclusively; taken over when older than 10 s, so a crashed writer
 * cannot block the board for good) and replaces the file atomically (temp file + rename): a
 * reader sees the board before or after a change, never half of one. Within this process,
 * updates of a board also queue behind each other.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { emptyBoard } from '../core/tasks/task-board';
import type { TaskBoardData, TaskBoardStorage } from '../core/ports';

const STALE_LOCK_MS = 10_000;
const LOCK_WAIT_MS = 15_000;

export class FileTaskStorage implements TaskBoardStorage {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(private readonly folder: string) {}

  async read(boardId: string): Promise<TaskBoardData> {
    try {
      return parseBoard(await fs.readFile(this.file(boardId), 'utf8'), this.file(boardId));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return emptyBoard();
      throw error;
    }
  }

  update<Result>(
    boardId: string,
    change: (board: TaskBoardData) => { board: TaskBoardData; result: Result },
  ): Promise<Result> {
    const previous = this.queues.get(boardId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.locked(boardId, change));
    this.queues.set(boardId, next);
    void next
      .finally(() => {
        if (this.queues.get(boardId) === next) this.queues.delete(boardId);
      })
      .catch(() => undefined);
    return next;
  }

  private async locked<Result>(
    boardId: string,
    change: (board: TaskBoardData) => { board: TaskBoardData; result: Result },
  ): Promise<Result> {
    const file = this.file(boardId);
    await fs.mkdir(this.folder, { recursive: true });
    const release = await acquireLock(`${file}.lock`);
    try {
      const { board, result } = change(await this.read(boardId));
      const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
      await fs.writeFile(temp, `${JSON.stringify(board, null, 2)}\n`, 'utf8');
      await fs.rename(temp, file);
      return result;
    } finally {
      await release();
    }
  }

  private file(boardId: string): string {
    if (!/^[\w.-]+$/.test(boardId) || boardId.startsWith('.')) throw new Error(`Not a task board id: ${boardId}`);
    return path.join(this.folder, `${boardId}.json`);
  }
}

async function acquireLock(lock: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const handle = await fs.open(lock, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return () => fs.rm(lock, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const stat = await fs.stat(lock).catch(() => undefined);
    if (stat && Date.now() - stat.mtimeMs > STALE_LOCK_MS) {
      // Abandoned by a writer that died: take it over (whoever renames first wins).
      const stale = `${lock}.stale-${process.pid}-${Date.now()}`;
      if (
        await fs.rename(lock, stale).then(
          () => true,
          () => false,
        )
      )
        await fs.rm(stale, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`The task board is locked by another writer (${lock}).`);
    await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
  }
}

function parseBoard(text: string, file: string): TaskBoardData {
  let data: Partial<TaskBoardData> | null;
  try {
    data = JSON.parse(text) as Partial<TaskBoardData> | null;
  } catch (error) {
    throw new Error(`The task board ${file} is damaged and was left as it is (${(error as Error).message}).`, {
      cause: error,
    });
  }
  if (typeof data?.nextId !== 'number' || !Array.isArray(data.tasks))
    throw new Error(`The task board ${file} is damaged and was left as it is (not a task board).`);
  return { nextId: data.nextId, tasks: data.tasks };
}
