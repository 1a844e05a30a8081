/**
 * The sessions of a window: several conversations, each composed for where it works, running
 * at once; the list's state, files and cost per session; the shown one; and the worktree
 * sessions coming back after a reload — a run the window closed on as stopped, a worktree
 * folder deleted by hand marked so — while a kept list that is not this window's is ignored.
 */
import assert from 'node:assert/strict';
import { z } from 'zod';
import type { ApprovalDecision, ApprovalRequest } from '../../../../src/core/policy/approval';
import type { ConversationStore } from '../../../../src/core/ports';
import { cleanName, MAX_SESSION_NAME, SessionRegistry } from '../../../../src/core/session/session-registry';
import type { WorkPlace } from '../../../../src/core/session/work-place';
import { defineTool } from '../../../../src/core/tools/tool';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { waitUntil } from '../../../harness/patience';
import { openStore, tempDir } from '../../store/store-helpers';
import { MemoryKeeping } from './memory-keeping';
import { sessionOn } from './session-harness';

const worktree = (name: string): WorkPlace => ({
  kind: 'worktree',
  root: `/work/trees/${name}`,
  worktree: {
    name,
    root: `/work/trees/${name}`,
    branch: `openagent/${name}`,
    base: { commit: 'abc123', branch: 'main' },
    gitDir: '/work/project/.git',
    worktreeGitDir: `/work/project/.git/worktrees/${name}`,
    workspaceRoot: '/work/project',
  },
});

/** A tool that changes something (so it asks), reporting nothing else. */
const touchTool = defineTool({
  name: 'touch',
  description: 'Touches a thing.',
  inputSchema: z.object({ what: z.string() }),
  readOnly: false,
  needsApproval: true,
  summarize: (input) => `touch ${input.what}`,
  execute: async (input) => `touched ${input.what}`,
});

describe('the sessions of a window (SessionRegistry)', function () {
  this.timeout(60_000);
  let server: FakeModelServer;
  let directory: string;
  const stores: ConversationStore[] = [];
  let ids = 0;

  beforeEach(async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'sessions',
        turns: [
          { match: 'ask first', toolCalls: [{ id: `t${++ids}`, name: 'touch', arguments: { what: 'x' } }] },
          { match: 'touched', text: 'Touched it.' },
          // Streams for minutes: the window closes on it.
          { match: 'unfinished', text: 'Still answering. '.repeat(300), chunkSize: 1, delayMs: 40 },
        ],
        whenExhausted: 'echo',
      },
    });
    directory = tempDir();
  });
  afterEach(async () => {
    for (const store of stores.splice(0)) await store.close();
    await server.close();
  });

  /** A window: a store handle, its own session, and a registry composing sessions on the fake server. */
  async function openWindow(
    keeping = new MemoryKeeping(),
    options: {
      workspace?: string;
      gone?: Set<string>;
      approvals?: (request: ApprovalRequest) => Promise<ApprovalDecision>;
      countChanges?: (place: Extract<WorkPlace, { kind: 'worktree' }>) => Promise<number | undefined>;
    } = {},
  ) {
    const { store } = await openStore(directory);
    stores.push(store);
    const composed: Array<{ place: WorkPlace; name: string }> = [];
    const compose = (place: WorkPlace, name: string) => {
      composed.push({ place, name });
      return sessionOn(server, {
        store: async () => store,
        newId: () => `conversation-${++ids}`,
        clock: { now: () => Date.now() },
        tools: () => [touchTool],
        approvals: { request: options.approvals ?? (async () => ({ approved: true, source: 'user' })) },
      }).session;
    };
    const here = compose({ kind: 'workspace', root: '/work/project' }, 'Workspace');
    const registry = new SessionRegistry(
      {
        compose,
        keeping,
        workspace: options.workspace ?? '/work/project',
        exists: async (root) => !(options.gone?.has(root) ?? false),
        newId: () => `session-${++ids}`,
        ...(options.countChanges ? { countChanges: options.countChanges } : {}),
      },
      { session: here, root: '/work/project' },
    );
    await registry.restore();
    return { registry, composed, keeping };
  }

  it('runs sessions at once, each on its own conversation, and lists their states and costs', async () => {
    const releases: Array<() => void> = [];
    const { registry, composed } = await openWindow(undefined, {
      approvals: () => new Promise((resolve) => releases.push(() => resolve({ approved: true, source: 'user' }))),
    });
    const first = registry.create('Fix the login', worktree('fix-login'));
    const second = registry.create('Try another way', worktree('other-way'));
    assert.deepEqual(
      composed.slice(1).map((entry) => [entry.name, entry.place.kind === 'worktree' && entry.place.worktree.branch]),
      [
        ['Fix the login', 'openagent/fix-login'],
        ['Try another way', 'openagent/other-way'],
      ],
    );
    await Promise.all([first.session.submit('please ask first'), second.session.submit('hello there')]);
    await waitUntil(() => registry.list().find((view) => view.id === first.id)?.state === 'waiting', 'first waits');
    await waitUntil(() => registry.list().find((view) => view.id === second.id)?.state === 'done', 'second done');
    assert.deepEqual(registry.counts(), { running: 0, waiting: 1 });
    assert.notEqual(first.session.currentId, second.session.currentId);
    releases.shift()!();
    await waitUntil(() => registry.list().find((view) => view.id === first.id)?.state === 'done', 'first done');
    const views = registry.list();
    assert.deepEqual(
      views.map((view) => [view.name, view.state, view.shown]),
      [
        ['Workspace', 'new', true],
        ['Fix the login', 'done', false],
        ['Try another way', 'done', false],
      ],
    );
    assert.ok(views[1]!.costUsd > 0 || views[1]!.tokens > 0, 'the session counts what its calls cost');
    assert.equal(registry.counts().waiting, 0);
  });

  it("counts a worktree session's files as git does once a run ends (commands' writes too)", async () => {
    const asked: string[] = [];
    // The branch holds three changed files: one the conversation wrote and two a command made.
    const { registry } = await openWindow(undefined, {
      countChanges: async (place) => (asked.push(place.worktree.name), 3),
    });
    const entry = registry.create('Counted', worktree('counted'));
    assert.equal(registry.list()[1]!.filesChanged, 0, 'nothing counted before a run');
    await entry.session.submit('hello there');
    await waitUntil(() => registry.list()[1]!.filesChanged === 3, 'the count from git');
    assert.deepEqual(asked, ['counted']);
    assert.equal(registry.list()[0]!.filesChanged, 0, 'the workspace session is not a worktree: not asked');
  });

  it('shows one session at a time, and tells the surfaces which', async () => {
    const { registry } = await openWindow();
    const entry = registry.create('Side quest', worktree('side'));
    const shown: string[] = [];
    registry.onDidShow((next) => shown.push(next.name));
    registry.show(entry.id);
    registry.show(entry.id);
    assert.deepEqual(shown, ['Side quest']);
    assert.equal(registry.shown.id, entry.id);
    await registry.remove(entry.id);
    assert.equal(registry.shown.name, 'Workspace', 'the window’s own is shown when the shown one ends');
    await registry.remove(registry.shown.id);
    assert.equal(registry.list().length, 1, 'the window’s own session is never removed');
    assert.throws(() => registry.show('nope'), /no session nope/);
  });

  it('brings the worktree sessions back after a reload: a closed-on run as stopped, a gone folder marked', async () => {
    const keeping = new MemoryKeeping();
    const before = await openWindow(keeping);
    const done = before.registry.create('Finished work', worktree('finished'));
    const cut = before.registry.create('Cut short', worktree('cut'));
    before.registry.show(cut.id);
    await done.session.submit('hello there');
    await waitUntil(() => before.registry.list()[1]!.state === 'done', 'the first is done');
    await cut.session.submit('an unfinished answer');
    await waitUntil(() => before.registry.list()[2]!.state === 'running', 'the second runs');
    await waitUntil(
      () => (keeping.text ?? '').includes(cut.session.currentId ?? '\u0000'),
      'kept with its conversation',
    );
    await cut.session.flush();

    // The window reloads mid-run (nothing more is written by the old one).
    const after = await openWindow(keeping, { gone: new Set(['/work/trees/finished']) });
    const views = after.registry.list();
    assert.deepEqual(
      views.map((view) => [view.name, view.state, view.missing, view.shown]),
      [
        ['Workspace', 'new', false, false],
        ['Finished work', 'done', true, false],
        ['Cut short', 'stopped', false, true],
      ],
    );
    const reopened = after.registry.get(cut.id)!;
    assert.equal(reopened.session.currentId, cut.session.currentId, 'the same conversation, to continue');
    assert.deepEqual(reopened.place, worktree('cut'));
    await cut.session.dispose();
  });

  it('ignores a kept list that is not this window’s, damaged, or too long', async () => {
    for (const text of [
      JSON.stringify({ version: 1, workspace: '/elsewhere', sessions: [{ id: 'a', name: 'x', place: worktree('a') }] }),
      '{"version":1,"workspace":"/work/project","sessions":[{"id":"a","name":"x","place":{"kind":"worktree"}}]}',
      'not json',
      JSON.stringify({
        version: 1,
        workspace: '/work/project',
        sessions: Array.from({ length: 51 }, (_, index) => ({ id: `s${index}`, name: 'x', place: worktree('a') })),
      }),
    ]) {
      const keeping = new MemoryKeeping();
      keeping.text = text;
      const { registry } = await openWindow(keeping);
      assert.equal(registry.list().length, 1, text.slice(0, 60));
    }
  });

  it('keeps working when the list cannot be kept', async () => {
    const keeping = new MemoryKeeping();
    keeping.failWrites = true;
    const { registry } = await openWindow(keeping);
    const entry = registry.create('Still works', worktree('works'));
    await entry.session.submit('hello there');
    await waitUntil(() => registry.list()[1]!.state === 'done', 'the session ran');
    await registry.flush();
    assert.ok(keeping.writes > 0);
  });

  it('shows names as one visible line of bounded length', () => {
    assert.equal(cleanName('a\nb\u202Ec\u200Bd\te'), 'a b c d e');
    assert.equal(cleanName('\u0000\r\n  '), 'Session');
    assert.equal([...cleanName('é'.repeat(10_000))].length, MAX_SESSION_NAME);
    assert.equal(cleanName('  fix   the  bug '), 'fix the bug');
  });
});
