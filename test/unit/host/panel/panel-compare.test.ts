/**
 * The developer panel's Compare tab and the editor's replay and re-run, host side, in Node: a run
 * recorded for real (a ConversationSession on the fake model server, a real sql.js store, a git
 * repository), listed for the pickers, replayed with recorded tools ("Replay Conversation"),
 * re-run from step 4 with another model through the editor's flow (a real worktree at the
 * recorded commit), and the original compared with the re-run — the first divergence at step 4.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { compareRuns } from '../../../../src/core/replay/compare-runs';
import { loadRecording } from '../../../../src/core/replay/loaded-recording';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { compareViewMessage } from '../../../../src/host/panel/compare-view';
import { PanelCompare, type CompareSource } from '../../../../src/host/panel/panel-compare';
import {
  describeReplay,
  replayConversation,
  rerunInEditor,
  rerunOptions,
  storeRuns,
  type RerunFlowDeps,
} from '../../../../src/host/panel/recorded-runs';
import { makeRerunPlace } from '../../../../src/node/rerun-place';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import type { HostToPanel } from '../../../../src/protocol/messages';
import type { SqlJsStore } from '../../../../src/store/sqljs-store';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import type { ScenarioInput } from '../../../fixtures/fake-model-server/scenario';
import { openStore, tempDir } from '../../store/store-helpers';
import { committedRepository, recordIn, rerunDeps, tempFolder } from '../../core/replay/rerun-harness';

const TWO_PERSONALITIES: ScenarioInput = {
  name: 'compare-two-personalities',
  turns: [
    {
      model: 'fake-model',
      text: 'Reading it.',
      toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'a.txt' } }],
    },
    {
      model: 'fake-model',
      toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'a.txt', content: 'hello world\n' } }],
    },
    { model: 'fake-model', text: 'Done: a.txt says hello world.' },
    {
      model: 'fake-model-large',
      toolCalls: [{ id: 'w9', name: 'write_file', arguments: { path: 'a.txt', content: 'HELLO!\n' } }],
    },
    { model: 'fake-model-large', text: 'Shouted it.' },
  ],
};

type View = Extract<HostToPanel, { type: 'compare_view' }>;

function posted(): {
  messages: HostToPanel[];
  post: (message: HostToPanel) => void;
  last<T extends HostToPanel['type']>(type: T): Extract<HostToPanel, { type: T }> | undefined;
} {
  const messages: HostToPanel[] = [];
  return {
    messages,
    post: (message) => messages.push(message),
    last: (type) => messages.filter((message) => message.type === type).at(-1) as never,
  };
}

describe('the Compare tab and the editor replay, host side', function () {
  this.timeout(120_000);
  let server: FakeModelServer;
  let store: SqlJsStore;
  let repository: { root: string; commit: string };
  let places: string;
  let runs: ReturnType<typeof storeRuns>;

  before(async () => {
    server = await FakeModelServer.start({ scenario: TWO_PERSONALITIES });
    store = (await openStore(tempDir())).store;
    repository = committedRepository({ 'a.txt': 'hello\n' });
    await recordIn(server, store, repository.root, 'Fix the greeting in a.txt');
    places = tempFolder('compare');
    runs = storeRuns(async () => store);
  });
  after(async () => {
    await store?.close();
    await server?.close();
  });

  /** The sessions a re-run was added as (the window's Sessions list). */
  const keptSessions: Array<{ name: string; root: string; branch: string; conversationId: string }> = [];

  function editorDeps(pick: RerunFlowDeps['chooseChange'], told: string[] = []): RerunFlowDeps {
    const base = rerunDeps(server, store, repository.root, 'rerun-editor');
    return {
      chooseChange: pick,
      models: async () => ['fake-model', 'fake-model-large'],
      presets: async () => ['coding', 'review'],
      presetSystem: async (name) => ({ system: `You are the ${name} preset.` }),
      place: (manifest, short) => makeRerunPlace({ manifest, cwd: repository.root, baseFolder: places, short }),
      tools: (root) => {
        const workspace = new NodeWorkspace(root);
        return { tools: createFileTools(workspace), workspace };
      },
      modelClient: base.modelClient,
      approvals: base.approvals,
      recordings: async () => store.recordings,
      conversations: async () => store,
      newId: () => 'rerun-editor',
      clock: base.clock,
      product: '0.1.0-test',
      tell: (_level, text) => told.push(text),
      keepAsSession: async (name, worktree, conversationId) => {
        keptSessions.push({ name, root: worktree.root, branch: worktree.branch, conversationId });
      },
    };
  }

  it('lists the recorded conversation for the pickers and compares it with itself: the same at every step', async () => {
    const out = posted();
    const compare = new PanelCompare(runs, out.post);
    await compare.request();
    const choices = out.last('compare_choices')!.choices;
    assert.deepEqual(
      choices.map((choice) => [choice.id, choice.recorded]),
      [['c1', true]],
    );
    await compare.request('c1', 'c1');
    const view = out.last('compare_view')!;
    assert.equal(view.total, 6);
    assert.equal(view.firstDivergence, undefined);
    assert.equal(view.firstIndex, undefined);
    assert.ok(view.rows.every((row) => row.same));
    assert.deepEqual(
      view.rows.map((row) => `${row.a?.step}:${row.a?.kind}`),
      ['1:prompt', '2:model', '3:tool', '4:model', '5:tool', '6:model'],
    );
    assert.match(view.rows[2]!.a!.label, /^read_file \{"path":"a\.txt"\}/);
    assert.equal(view.a.toolCalls, 2);
    assert.equal(view.a.files, 1);
  });

  it('"Replay Conversation" replays with recorded tools, says it reproduced, and opens Compare on request', async () => {
    const callsBefore = server.modelCalls.length;
    const told: Array<{ level: string; text: string }> = [];
    const shown: unknown[] = [];
    const outcome = await replayConversation({
      runs,
      pick: async (choices) => choices.find((choice) => choice.recorded)?.id,
      // The product's tools for their traits (read_file is read-only: it was never asked about).
      currentTools: () => createFileTools(new NodeWorkspace(repository.root)),
      tell: async (message) => (told.push(message), true),
      showCompare: (a, b, replay) => shown.push({ a, b, replay }),
    });
    assert.equal(outcome?.reproduced, true, JSON.stringify(outcome?.divergence));
    assert.equal(server.modelCalls.length, callsBefore, 'no model was called');
    assert.equal(told.length, 1);
    assert.equal(told[0]!.level, 'info');
    assert.match(told[0]!.text, /reproduced the run \(6 of 6 steps, recorded tools\)/);
    assert.deepEqual(shown, [{ a: 'c1', b: 'c1', replay: { reproduced: true } }]);
  });

  it('words a divergence with its step, what was expected and what happened', () => {
    const text = describeReplay('Fix it', {
      reproduced: false,
      divergence: { step: 3, what: 'the result of read_file differs', expected: '"hello"', actual: '"bye"' },
      ended: 'divergence',
      stepsReplayed: 3,
      lastStep: 6,
      events: [],
      warnings: [],
    });
    assert.equal(text.level, 'warning');
    assert.match(
      text.text,
      /diverged at step 3: the result of read_file differs\. Expected: "hello"\. Happened: "bye"\./,
    );
  });

  it('offers models (the recorded one marked), presets, and a message only at a prompt', async () => {
    const loaded = await loadRecording(store.recordings, 'c1');
    const atModel = rerunOptions(loaded, 4, { models: ['fake-model-large'], presets: ['coding'] });
    assert.deepEqual(
      atModel.map((option) => [option.label, option.description ?? '']),
      [
        ['Model: fake-model-large', ''],
        ['Model: fake-model', 'as recorded'],
        ['Preset: coding', ''],
      ],
    );
    const atPrompt = rerunOptions(loaded, 1, { models: [], presets: [] });
    assert.equal(atPrompt.at(-1)?.kind, 'message');
  });

  it('"Re-run from here with…" another model on step 4: a worktree run, then Compare shows where they part', async () => {
    server.setScenario(TWO_PERSONALITIES);
    const out = posted();
    const told: string[] = [];
    const source: CompareSource = {
      ...runs,
      rerun: (loaded, step) =>
        rerunInEditor(
          loaded,
          step,
          editorDeps(
            async (options) => ({ option: options.find((option) => option.value === 'fake-model-large')! }),
            told,
          ),
        ),
    };
    const compare = new PanelCompare(source, out.post);
    await compare.request('c1', 'c1');
    await compare.rerun('c1', 4);
    const notice = out.last('compare_notice');
    assert.match(
      notice?.text ?? '',
      /Re-ran from step 4/,
      JSON.stringify(out.messages.filter((m) => m.type === 'compare_notice')),
    );
    const view = out.last('compare_view') as View;
    assert.equal(view.b.conversationId, 'rerun-editor');
    assert.equal(view.firstDivergence?.step, 4);
    assert.match(view.firstDivergence!.actual, /fake-model-large/);
    assert.equal(view.firstIndex, 3);
    assert.ok(
      view.rows.slice(0, 3).every((row) => row.same),
      'the replayed steps are the recorded ones',
    );
    assert.ok(out.last('compare_choices')!.choices.some((choice) => choice.id === 'rerun-editor' && choice.recorded));
    // A session of the window, in its worktree, showing the re-run's conversation.
    assert.equal(keptSessions.length, 1);
    assert.match(keptSessions[0]!.name, /^Re-run from step 4 \(model fake-model-large\)$/);
    assert.equal(keptSessions[0]!.conversationId, 'rerun-editor');
    assert.match(keptSessions[0]!.branch, /^openagent\/rerun-/);
    assert.ok(
      told.some((text) => text.includes(keptSessions[0]!.root)),
      'the session works where the re-run did',
    );
    // Kept in the history as a conversation of its own, named for what it is.
    const kept = await store.getConversation('rerun-editor');
    assert.match(kept?.title ?? '', /^Re-run of .* from step 4 \(model fake-model-large\)$/);
    // The live write went to the worktree, not the workspace.
    assert.equal(fs.readFileSync(path.join(repository.root, 'a.txt'), 'utf8'), 'hello world\n');
    assert.ok(
      told.some((text) => text.includes(places)),
      told.join('\n'),
    );
  });

  it("a re-run's live calls go through the window's guard (named approvers), in the re-run's own folder", async () => {
    server.setScenario(TWO_PERSONALITIES);
    const out = posted();
    const guardedRoots: string[] = [];
    const asked: string[] = [];
    const compare = new PanelCompare(
      {
        ...runs,
        rerun: (loaded, step) =>
          rerunInEditor(loaded, step, {
            ...editorDeps(async (options) => ({
              option: options.find((option) => option.value === 'fake-model-large')!,
            })),
            newId: () => 'rerun-guarded',
            guard: (root, local) => {
              guardedRoots.push(root);
              return {
                ...local,
                approvals: {
                  request: async (request) => {
                    asked.push(request.toolName);
                    return { approved: false, source: 'user', reason: 'Waiting for a named approver: refused.' };
                  },
                },
              };
            },
          }),
      },
      out.post,
    );
    await compare.request('c1', 'c1');
    await compare.rerun('c1', 4);
    assert.equal(guardedRoots.length, 1);
    assert.notEqual(guardedRoots[0], repository.root, 'guarded where the re-run works, not the workspace');
    assert.ok(fs.existsSync(guardedRoots[0]!));
    assert.deepEqual(asked, ['write_file'], 'the live write was put to the guard');
    assert.notEqual(
      fs.readFileSync(path.join(guardedRoots[0]!, 'a.txt'), 'utf8'),
      'HELLO!\n',
      'the refused write did not happen',
    );
  });

  it('a re-run the user lets be (no choice) makes nothing and posts no comparison', async () => {
    const out = posted();
    let made = 0;
    const compare = new PanelCompare(
      {
        ...runs,
        rerun: (loaded, step) =>
          rerunInEditor(loaded, step, {
            ...editorDeps(async () => undefined),
            place: async () => {
              made++;
              throw new Error('not to be made');
            },
          }),
      },
      out.post,
    );
    await compare.request('c1', 'c1');
    const views = out.messages.filter((message) => message.type === 'compare_view').length;
    await compare.rerun('c1', 2);
    assert.equal(made, 0);
    assert.equal(out.messages.filter((message) => message.type === 'compare_view').length, views);
  });

  it('bounds the view: a window of rows holding the first divergence, the rest counted', async () => {
    const a = await loadRecording(store.recordings, 'c1');
    const comparison = compareRuns(a, a);
    const many = {
      ...comparison,
      rows: Array.from({ length: 5_000 }, (_, index) => ({
        ...comparison.rows[index % comparison.rows.length]!,
        same: index !== 3_000,
      })),
    };
    const view = compareViewMessage(many);
    assert.equal(view.rows.length, 400);
    assert.equal(view.total, 5_000);
    assert.equal(view.firstIndex, 3_000);
    assert.ok(view.offset <= 3_000 && view.offset + view.rows.length > 3_000, `window ${view.offset}`);
    assert.equal(view.rows.find((row) => !row.same)?.index, 3_000);
  });
});
