/**
 * The edit review in a real conversation on the fake model server: the agent's edit arrives as
 * hunks when the run ends, the user keeps one and undoes another, the next request tells the
 * model; the conversation reopened from the store (a reload) has the same review and the same
 * history, and a hunk undone after the reload reaches the model at the next prompt.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ConversationStore } from '../../../../src/core/ports';
import { EditReview } from '../../../../src/core/review/edit-review';
import { reviewedFilesOf } from '../../../../src/core/review/workspace-reviewed-files';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { FakeModelServer, type RecordedRequest } from '../../../fixtures/fake-model-server/server';
import { openStore, tempDir } from '../../store/store-helpers';
import { sessionOn } from '../session/session-harness';

const ORIGINAL = [
  'const a = 1;',
  'const b = 2;',
  '',
  '',
  '',
  '',
  'const c = 3;',
  '',
  '',
  '',
  '',
  'const d = 4;',
  '',
].join('\n');

/** The text blocks of each message of an Anthropic request, cache markers left out. */
function texts(request: RecordedRequest | undefined): string[][] {
  const body = request?.body as { messages: Array<{ content: string | Array<{ type: string; text?: string }> }> };
  return body.messages.map((message) =>
    typeof message.content === 'string'
      ? [message.content]
      : message.content.filter((block) => block.type === 'text').map((block) => block.text ?? ''),
  );
}

function reviewedSession(server: FakeModelServer, store: ConversationStore, root: string) {
  const harness = sessionOn(server, {
    approvals: { request: async () => ({ approved: true, source: 'user' }) },
    workspace: () => new NodeWorkspace(root),
    tools: (workspace) => createFileTools(workspace!),
    store: async () => store,
    newId: () => 'conv-review',
  });
  const review = new EditReview({
    session: harness.session,
    files: reviewedFilesOf(new NodeWorkspace(root)),
    root: () => root,
  });
  return { ...harness, review };
}

describe('edit review in a conversation', () => {
  it('tells the model what was undone, keeps it through a reload, and goes on after it', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-review-session-'));
    fs.writeFileSync(path.join(root, 'values.js'), ORIGINAL);
    const server = await FakeModelServer.start({
      scenario: {
        name: 'review',
        turns: [
          {
            toolCalls: [
              {
                id: 'e1',
                name: 'edit_file',
                arguments: {
                  path: 'values.js',
                  edits: [
                    { oldText: 'const a = 1;', newText: 'const a = 10;' },
                    { oldText: 'const c = 3;', newText: 'const c = 30;' },
                    { oldText: 'const d = 4;', newText: 'const d = 40;' },
                  ],
                },
              },
            ],
          },
          { text: 'Done.' },
          { text: 'Noted.' },
          {
            toolCalls: [
              {
                id: 'e2',
                name: 'edit_file',
                arguments: { path: 'values.js', edits: [{ oldText: 'const b = 2;', newText: 'const b = 20;' }] },
              },
            ],
          },
          { text: 'Changed b.' },
        ],
      },
    });
    const directory = tempDir();
    try {
      const first = await openStore(directory);
      const live = reviewedSession(server, first.store, root);
      await live.run('make the values bigger');
      const hunks = live.events.find((event) => event.type === 'review_hunks');
      assert.ok(hunks?.type === 'review_hunks');
      assert.equal(hunks.turn, 1);
      assert.deepEqual(
        hunks.files[0]?.hunks?.map((hunk) => hunk.added),
        [['const a = 10;'], ['const c = 30;'], ['const d = 40;']],
      );
      await live.review.keep({ turn: 1, path: 'values.js', hunks: [0] });
      await live.review.undo({ turn: 1, path: 'values.js', hunks: [1] });
      assert.equal(
        fs.readFileSync(path.join(root, 'values.js'), 'utf8'),
        ORIGINAL.replace('a = 1', 'a = 10').replace('d = 4', 'd = 40'),
      );

      await live.run('what now?');
      const told = texts(server.modelCalls.at(-1)).at(-1)!;
      assert.equal(told[0], 'what now?');
      assert.match(told[1]!, /undid these hunks[^]*values\.js line 7\n- const c = 30;\n\+ const c = 3;/);
      assert.doesNotMatch(told[1]!, /const a = 10|const d = 40/, 'kept and pending hunks are not mentioned');
      await live.session.flush();
      await first.store.close();

      // A reload: a new store handle, a new session, the conversation reopened from the store.
      const second = await openStore(directory);
      const reloaded = reviewedSession(server, second.store, root);
      assert.equal(await reloaded.session.open('conv-review'), true);
      assert.deepEqual(
        reloaded.review.state.file(1, 'values.js')?.hunks.map((hunk) => [hunk.state, hunk.told]),
        [
          ['kept', false],
          ['undone', true],
          ['pending', false],
        ],
      );
      // Undone before the conversation goes on: recorded in the reopened conversation at once.
      assert.equal((await reloaded.review.undo({ turn: 1, path: 'values.js', hunks: [2] })).undone, 1);
      await reloaded.session.flush();
      await reloaded.run('change b too');
      const continued = texts(server.modelCalls.at(-2));
      const liveHistory = texts(server.modelCalls.at(-3));
      // The reopened history holds the first note where the live one had it…
      assert.deepEqual(continued.slice(0, liveHistory.length), liveHistory);
      // …and the new prompt carries the undo made after the reload.
      assert.equal(continued.at(-1)![0], 'change b too');
      assert.match(continued.at(-1)![1]!, /values\.js line 12\n- const d = 40;\n\+ const d = 4;/);
      assert.equal(
        fs.readFileSync(path.join(root, 'values.js'), 'utf8'),
        ORIGINAL.replace('a = 1', 'a = 10').replace('b = 2', 'b = 20'),
      );
      // The continued conversation numbers its turn after the stored ones.
      const next = reloaded.events.filter((event) => event.type === 'review_hunks').at(-1);
      assert.ok(next?.type === 'review_hunks');
      assert.equal(next.turn, 2);
      await reloaded.session.flush();
      await second.store.close();

      // Once more from the store: everything the user decided is there.
      const third = await openStore(directory);
      const again = reviewedSession(server, third.store, root);
      await again.session.open('conv-review');
      assert.deepEqual(
        again.review.state.file(1, 'values.js')?.hunks.map((hunk) => [hunk.state, hunk.told]),
        [
          ['kept', false],
          ['undone', true],
          ['undone', true],
        ],
      );
      assert.deepEqual(
        again.review.pendingFiles().map((file) => [file.turn, file.path]),
        [[2, 'values.js']],
      );
      await third.store.close();
    } finally {
      await server.close();
    }
  });
});
