/** Task boards as JSON files, one per board (`<folder>/<boardId>.json`), safe under concurrent writers. */
import type { TaskBoardData, TaskBoardStorage } from '../core/ports';
import { emptyBoard } from '../core/tasks/task-board';
import { documentFile, LockedJsonFiles } from './locked-json-file';

export class FileTaskStorage implements TaskBoardStorage {
  private readonly files = new LockedJsonFiles<TaskBoardData>(emptyBoard, (data) => {
    const board = data as Partial<TaskBoardData> | null;
    if (typeof board?.nextId !== 'number' || !Array.isArray(board.tasks)) throw new Error('not a task board');
    return { nextId: board.nextId, tasks: board.tasks };
  });

  constructor(private readonly folder: string) {}

  read(boardId: string): Promise<TaskBoardData> {
    return this.files.read(documentFile(this.folder, boardId));
  }

  update<Result>(
    boardId: string,
    change: (board: TaskBoardData) => { board: TaskBoardData; result: Result },
  ): Promise<Result> {
    return this.files.update(documentFile(this.folder, boardId), (document) => {
      const { board, result } = change(document);
      return { document: board, result };
    });
  }
}
