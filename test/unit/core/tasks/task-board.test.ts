import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentEventBody } from '../../../../src/core/events/events';
import { TaskBoard } from '../../../../src/core/tasks/task-board';
import { createTaskTools } from '../../../../src/core/tools/builtin/tasks';
import { FileTaskStorage } from '../../../../src/node/file-task-storage';
import { runTool } from '../tools/run-tool';

type TaskEvent = Extract<AgentEventBody, { type: 'task_update' }>;

describe('the persistent task board', () => {
  let dir: string;
  let events: TaskEvent[];
  let now: number;
  const boardOn = (storage: FileTaskStorage, boardId = 'conv-1') =>
    new TaskBoard({ storage, boardId, now: () => now++, report: (event) => events.push(event) });

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-tasks-'));
    events = [];
    now = 1_000;
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('keeps dependencies on both sides; a blocked task cannot start; completing one unblocks its dependents', async () => {
    const board = boardOn(new FileTaskStorage(dir));
    const tools = createTaskTools(() => board);
    const [create, get, update, list] = tools;
    assert.equal((await runTool(create, { subject: 'Write the parser' })).output, 'Created task #1: Write the parser.');
    assert.equal(
      (await runTool(create, { subject: 'Write the printer', blockedBy: ['1'] })).output,
      'Created task #2: Write the printer (blocked by #1).',
    );
    await runTool(create, { subject: 'Release', blockedBy: ['#1', '2'] });
    assert.deepEqual((await board.get('1')).blocks, ['2', '3'], 'the other side of blockedBy');

    const refused = await runTool(update, { taskId: '3', status: 'in_progress' });
    assert.equal(refused.isError, true);
    assert.equal(refused.output, 'Task #3 is blocked by #1 (pending), #2 (pending): finish those first.');

    assert.equal(
      (await runTool(update, { taskId: '1', status: 'in_progress', owner: 'lead' })).output,
      'Task #1 "Write the parser" is in_progress (owner: lead).',
    );
    assert.equal(
      (await runTool(update, { taskId: '1', status: 'completed' })).output,
      'Task #1 "Write the parser" is completed (owner: lead). Unblocked: #2 Write the printer.',
    );
    assert.equal(
      (await runTool(list, {})).output,
      '#1 [completed] Write the parser (owner: lead)\n#2 [pending] Write the printer\n#3 [pending] Release — blocked by #2',
    );
    assert.match((await runTool(get, { taskId: '3' })).output, /Blocked by: #1, #2 — still open: #2\nBlocks: nothing/);
    assert.deepEqual(
      events.map((event) => `${event.taskId}:${event.status}${event.owner ? `:${event.owner}` : ''}`),
      ['1:pending', '2:pending', '3:pending', '1:in_progress:lead', '1:completed:lead'],
    );
  });

  it('refuses cycles, self-dependencies and unknown tasks, changing nothing', async () => {
    const board = boardOn(new FileTaskStorage(dir));
    const update = createTaskTools(() => board)[2]!;
    await board.create({ subject: 'a' });
    await board.create({ subject: 'b', blockedBy: ['1'] });
    await board.create({ subject: 'c', blockedBy: ['2'] });
    const before = fs.readFileSync(path.join(dir, 'conv-1.json'), 'utf8');
    for (const [input, message] of [
      [{ taskId: '1', addBlockedBy: ['3'] }, /#3 already waits for #1: making #1 wait for #3 would be a cycle/],
      [{ taskId: '1', addBlocks: ['1'] }, /cannot block itself/],
      [{ taskId: '9', status: 'completed' }, /There is no task #9\./],
      [{ taskId: '1', addBlockedBy: ['42'] }, /There is no task #42 to depend on/],
    ] as const) {
      const result = await runTool(update, input);
      assert.equal(result.isError, true);
      assert.match(result.output, message);
    }
    assert.equal(fs.readFileSync(path.join(dir, 'conv-1.json'), 'utf8'), before, 'the board is unchanged');
    assert.throws(() => update.inputSchema.parse({ taskId: 'abc' }));
  });

  it('deleting a task removes it from every dependency list', async () => {
    const board = boardOn(new FileTaskStorage(dir));
    await board.create({ subject: 'a' });
    await board.create({ subject: 'b', blockedBy: ['1'] });
    assert.deepEqual(await board.update('1', { status: 'deleted' }), { task: undefined, unblocked: [] });
    const [b] = await board.list();
    assert.deepEqual([b?.id, b?.blockedBy], ['2', []]);
    assert.equal(events.at(-1)?.status, 'deleted');
  });

  it('survives a restart: a new storage on the same folder sees the board, and ids keep counting', async () => {
    await boardOn(new FileTaskStorage(dir)).create({ subject: 'before the restart' });
    const reopened = boardOn(new FileTaskStorage(dir));
    assert.deepEqual(
      (await reopened.list()).map((task) => task.subject),
      ['before the restart'],
    );
    assert.equal((await reopened.create({ subject: 'after' })).id, '2');
    assert.deepEqual(await boardOn(new FileTaskStorage(dir), 'other-conversation').list(), []);
  });

  it('loses nothing under concurrent writers (separate storages, as separate processes have)', async () => {
    const writers = [new FileTaskStorage(dir), new FileTaskStorage(dir), new FileTaskStorage(dir)];
    await Promise.all(
      writers.flatMap((storage, writer) =>
        Array.from({ length: 15 }, (_, index) => boardOn(storage).create({ subject: `w${writer}-${index}` })),
      ),
    );
    const tasks = await boardOn(writers[0]!).list();
    assert.equal(tasks.length, 45);
    assert.equal(new Set(tasks.map((task) => task.id)).size, 45, 'every task got its own id');
    // Claims race too: each task ends with exactly the owner of the last writer, none lost.
    await Promise.all(
      tasks.map((task, index) =>
        boardOn(writers[index % 3]!).update(task.id, { owner: `w${index % 3}`, status: 'in_progress' }),
      ),
    );
    const claimed = await boardOn(writers[1]!).list();
    assert.ok(claimed.every((task, index) => task.status === 'in_progress' && task.owner === `w${index % 3}`));
    assert.deepEqual(
      fs.readdirSync(dir).filter((name) => !name.endsWith('.json')),
      [],
      'no lock or temp file left behind',
    );
  });

  it('takes over a lock abandoned by a crashed writer', async () => {
    fs.writeFileSync(path.join(dir, 'conv-1.json.lock'), '99999\n');
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(path.join(dir, 'conv-1.json.lock'), old, old);
    assert.equal((await boardOn(new FileTaskStorage(dir)).create({ subject: 'after a crash' })).id, '1');
  });

  it('says so when the stored board is damaged, and leaves the file alone', async () => {
    fs.writeFileSync(path.join(dir, 'conv-1.json'), '{"broken":');
    const result = await runTool(createTaskTools(() => boardOn(new FileTaskStorage(dir)))[3], {});
    assert.equal(result.isError, true);
    assert.match(result.output, /conv-1\.json is damaged and was left as it is/);
    assert.equal(fs.readFileSync(path.join(dir, 'conv-1.json'), 'utf8'), '{"broken":');
  });
});
