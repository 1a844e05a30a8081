import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { FileTaskStorage } from '../../../../src/node/file-task-storage';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { sessionOn } from '../session/session-harness';

describe('the task board in a conversation', () => {
  it('reports task_update events and reminds the model of the open tasks after a compaction', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-tasks-'));
    const server = await FakeModelServer.start({
      scenario: {
        name: 'plan with tasks',
        turns: [
          {
            toolCalls: [
              { id: 't1', name: 'task_create', arguments: { subject: 'Parse the input' } },
              { id: 't2', name: 'task_create', arguments: { subject: 'Print the report', blockedBy: ['1'] } },
            ],
          },
          { text: 'Planned two tasks.' },
          { text: 'SUMMARY: planning done.' },
          { text: 'Continuing with #1.' },
        ],
      },
    });
    try {
      const { session, events, run } = sessionOn(server, { taskStorage: new FileTaskStorage(dir) });
      await run('plan the work');
      assert.deepEqual(
        events.flatMap((event) =>
          event.type === 'task_update' ? [`${event.taskId} ${event.status} ${event.subject}`] : [],
        ),
        ['1 pending Parse the input', '2 pending Print the report'],
      );
      assert.ok(fs.existsSync(path.join(dir, 'c1.json')), 'the board is stored under the conversation id');

      assert.equal(await session.compact(), true);
      await run('go on');
      const last = JSON.stringify((server.modelCalls.at(-1)?.body as { messages: unknown[] }).messages);
      assert.match(last, /SUMMARY: planning done\./);
      assert.match(
        last,
        /\[The task board, kept through the compaction:\]\\n#1 \[pending\] Parse the input\\n#2 \[pending\] Print the report — blocked by #1/,
      );
      assert.ok(!last.includes('Planned two tasks.'), 'the old turns are gone: the board came from storage');
    } finally {
      await server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
