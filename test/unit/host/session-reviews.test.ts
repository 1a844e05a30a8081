/**
 * Issue 33: each session reviews its own edits. Two real sessions on the fake model server —
 * the window's, in a git repository's folder, and one in a real `git worktree` of it — edit the
 * same file, each in its own folder. Each is composed with its own review over its own folder
 * (as session-composer.ts does); the window's reviews route a file to the session whose folder
 * holds it, and a target names its session: an undo of the worktree session's hunk writes in the
 * worktree and never in the workspace, and the other way round.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { EditReview } from '../../../src/core/review/edit-review';
import { reviewedFilesOf } from '../../../src/core/review/workspace-reviewed-files';
import { createFileTools } from '../../../src/core/tools/builtin/file-tools';
import { SessionReviews, type ReviewedSession } from '../../../src/host/review/session-reviews';
import { NodeWorkspace } from '../../../src/node/node-workspace';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { TEST_TIMEOUT_MS } from '../../harness/patience';
import { sessionOn } from '../core/session/session-harness';

const ORIGINAL = ['export const a = 1;', '', '', '', '', '', 'export const b = 2;', ''].join('\n');

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'core.hooksPath=/dev/null', ...args], {
    cwd,
    encoding: 'utf8',
    env: {
      ...process.env,
      GIT_AUTHOR_NAME: 't',
      GIT_AUTHOR_EMAIL: 't@e',
      GIT_COMMITTER_NAME: 't',
      GIT_COMMITTER_EMAIL: 't@e',
    },
  });
}

/** A repository with values.js committed, and a worktree of it in a sibling folder. */
function repositoryWithWorktree(): { workspace: string; worktree: string } {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-session-reviews-')));
  const workspace = path.join(base, 'workspace');
  const worktree = path.join(base, 'worktrees', 'try-b');
  fs.mkdirSync(workspace);
  git(workspace, 'init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(workspace, 'values.js'), ORIGINAL);
  git(workspace, 'add', '.');
  git(workspace, 'commit', '-q', '-m', 'start');
  git(workspace, 'worktree', 'add', '-q', '-b', 'openagent/try-b', worktree);
  return { workspace, worktree };
}

/** A session working in `root`, its edits reviewed there (the composer's parts, Node files for VS Code's). */
function sessionIn(server: FakeModelServer, id: string, name: string, root: string) {
  const workspace = new NodeWorkspace(root);
  const harness = sessionOn(server, {
    approvals: { request: async () => ({ approved: true, source: 'user' }) },
    workspaceRoot: () => root,
    workspace: () => workspace,
    tools: (files) => createFileTools(files!),
  });
  const review = new EditReview({ session: harness.session, files: reviewedFilesOf(workspace), root: () => root });
  const reviewed: ReviewedSession = { id, name, review, root: () => root };
  return { ...harness, review, reviewed };
}

describe('each session reviews its own edits (issue 33)', function () {
  this.timeout(TEST_TIMEOUT_MS);

  it('Keep / Undo of a worktree session act on its worktree files only, and the workspace’s on the workspace', async () => {
    const { workspace, worktree } = repositoryWithWorktree();
    // The model edits values.js: `a` to the number the prompt names, `b` to that number plus one.
    const server = await FakeModelServer.start({
      respond: (conversation) => {
        const prompt = [...conversation.entries].reverse().find((entry) => entry.kind === 'prompt');
        const answered = conversation.entries.some((entry) => entry.kind === 'tool_result');
        if (answered) return { text: 'Changed.' };
        const value = /\d+/.exec(prompt?.kind === 'prompt' ? prompt.text : '')?.[0] ?? '0';
        return {
          toolCalls: [
            {
              id: `edit-${value}`,
              name: 'edit_file',
              arguments: {
                path: 'values.js',
                edits: [
                  { oldText: 'export const a = 1;', newText: `export const a = ${value};` },
                  { oldText: 'export const b = 2;', newText: `export const b = ${Number(value) + 1};` },
                ],
              },
            },
          ],
        };
      },
    });
    const here = sessionIn(server, 'here', 'Workspace', workspace);
    const there = sessionIn(server, 'try-b', 'Try B', worktree);
    let shown = 'here';
    let sessions = [here.reviewed, there.reviewed];
    const changed = new Set<() => void>();
    const reviews = new SessionReviews({
      list: () => sessions,
      shownId: () => shown,
      onDidChange: (listener) => {
        changed.add(listener);
        return () => changed.delete(listener);
      },
    });
    const inWorkspace = path.join(workspace, 'values.js');
    const inWorktree = path.join(worktree, 'values.js');
    const read = (file: string) => fs.readFileSync(file, 'utf8');
    try {
      await Promise.all([here.run('set a to 10'), there.run('set a to 20')]);
      const workspaceEdited = ORIGINAL.replace('a = 1', 'a = 10').replace('b = 2', 'b = 11');
      const worktreeEdited = ORIGINAL.replace('a = 1', 'a = 20').replace('b = 2', 'b = 21');
      assert.equal(read(inWorkspace), workspaceEdited);
      assert.equal(read(inWorktree), worktreeEdited);
      // Each review has its own session's hunks of the same relative path.
      assert.deepEqual(
        here.review.pendingFiles().flatMap((file) => file.hunks.map((hunk) => hunk.added.join())),
        ['export const a = 10;', 'export const b = 11;'],
      );
      assert.deepEqual(
        there.review.pendingFiles().flatMap((file) => file.hunks.map((hunk) => hunk.added.join())),
        ['export const a = 20;', 'export const b = 21;'],
      );

      // A file belongs to the session whose folder holds it, whichever session is shown.
      for (const shownNow of ['here', 'try-b']) {
        shown = shownNow;
        assert.equal(reviews.ownerOf(inWorktree)?.session.id, 'try-b');
        assert.equal(reviews.ownerOf(inWorktree)?.relative, 'values.js');
        assert.equal(reviews.ownerOf(inWorkspace)?.session.id, 'here');
      }
      assert.equal(reviews.ownerOf(path.join(path.dirname(workspace), 'elsewhere.js')), undefined);
      assert.equal(reviews.ownerOf(workspace), undefined, 'the folder itself is no file of the review');

      // The lens of the worktree's first hunk, clicked while the chat shows the workspace session.
      shown = 'here';
      const worktreeHunks = reviews.ownerOf(inWorktree)!.session.review.place('values.js', read(inWorktree));
      assert.equal(worktreeHunks[0]!.line, 0);
      const lensTarget = { session: 'try-b', turn: 1, path: 'values.js', hunks: [worktreeHunks[0]!.hunk.index] };
      const undone = await reviews.decide('undo', lensTarget);
      assert.equal(undone?.undone, 1);
      assert.equal(read(inWorktree), ORIGINAL.replace('b = 2', 'b = 21'), 'the worktree file is undone there');
      assert.equal(read(inWorkspace), workspaceEdited, 'the workspace file is untouched');

      // The chat's "Undo" of turn 1 on the shown session (the workspace's): the workspace only.
      const turnUndone = await reviews.decide('undo', { turn: 1 });
      assert.equal(turnUndone?.undone, 2);
      assert.equal(read(inWorkspace), ORIGINAL);
      assert.equal(read(inWorktree), ORIGINAL.replace('b = 2', 'b = 21'), 'the worktree keeps its other hunk');

      // Shown now, the worktree session's Keep of its turn keeps its own hunk; nothing of the workspace's comes back.
      shown = 'try-b';
      const kept = await reviews.decide('keep', { turn: 1 });
      assert.equal(kept?.kept, 1);
      assert.equal(there.review.pendingFiles().length, 0);
      assert.equal(here.review.pendingFiles().length, 0);
      assert.equal(read(inWorktree), ORIGINAL.replace('b = 2', 'b = 21'));
      // git agrees: the workspace's checkout is clean, the worktree's branch has its one change.
      assert.equal(git(workspace, 'status', '--porcelain'), '');
      assert.match(git(worktree, 'diff'), /-export const b = 2;\n\+export const b = 21;/);

      // A session that ended: a lens of it left on screen acts on nothing.
      sessions = [here.reviewed];
      for (const listener of changed) listener();
      assert.equal(await reviews.decide('undo', { session: 'try-b', turn: 1 }), undefined);
      assert.equal(reviews.ownerOf(inWorktree), undefined);
    } finally {
      reviews.dispose();
      await here.session.dispose();
      await there.session.dispose();
      await server.close();
    }
  });

  it('two sessions in the same folder: a file goes to the shown one, else to the one with hunks of it', async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-session-reviews-same-')));
    fs.writeFileSync(path.join(root, 'values.js'), ORIGINAL);
    const server = await FakeModelServer.start({
      scenario: {
        name: 'one edit',
        turns: [
          {
            toolCalls: [
              {
                id: 'e1',
                name: 'edit_file',
                arguments: {
                  path: 'values.js',
                  edits: [{ oldText: 'export const a = 1;', newText: 'export const a = 5;' }],
                },
              },
            ],
          },
          { text: 'Done.' },
        ],
      },
    });
    const first = sessionIn(server, 'here', 'Workspace', root);
    const second = sessionIn(server, 'second', 'Second', root);
    const elsewhere = sessionIn(
      server,
      'elsewhere',
      'Elsewhere',
      fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-x-')),
    );
    let shown = 'here';
    const reviews = new SessionReviews({
      list: () => [first.reviewed, second.reviewed, elsewhere.reviewed],
      shownId: () => shown,
      onDidChange: () => () => undefined,
    });
    try {
      await second.run('change a');
      const file = path.join(root, 'values.js');
      shown = 'elsewhere';
      assert.equal(reviews.ownerOf(file)?.session.id, 'second', 'the one with hunks of it');
      shown = 'here';
      assert.equal(reviews.ownerOf(file)?.session.id, 'here', 'the shown one');
      assert.equal((await reviews.decide('undo', { session: 'here', path: 'values.js' }))?.status, 'nothing');
      assert.equal(fs.readFileSync(file, 'utf8'), ORIGINAL.replace('a = 1', 'a = 5'));
      assert.equal((await reviews.decide('undo', { session: 'second', path: 'values.js' }))?.undone, 1);
      assert.equal(fs.readFileSync(file, 'utf8'), ORIGINAL);
    } finally {
      reviews.dispose();
      await first.session.dispose();
      await second.session.dispose();
      await elsewhere.session.dispose();
      await server.close();
    }
  });
});
