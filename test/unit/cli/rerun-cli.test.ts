/**
 * `openagent replay ID --from N …` end to end: a run recorded by the CLI in a git repository,
 * re-run from a step with another model (the fake server answers it differently): the live part
 * streams, writes in a new worktree at the recorded commit, and the comparison names the step.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import type { ScenarioInput } from '../../fixtures/fake-model-server/scenario';
import { openStore } from '../store/store-helpers';
import { cliArgs, runCli, tempFolder } from './cli-helpers';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

const SCENARIO: ScenarioInput = {
  name: 'rerun-cli',
  turns: [
    { model: 'fake-model', toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'notes.md' } }] },
    {
      model: 'fake-model',
      toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'notes.md', content: 'calm notes\n' } }],
    },
    { model: 'fake-model', text: 'Wrote calm notes.' },
    {
      model: 'fake-model-large',
      toolCalls: [{ id: 'w2', name: 'write_file', arguments: { path: 'notes.md', content: 'LOUD NOTES\n' } }],
    },
    { model: 'fake-model-large', text: 'Wrote LOUD notes.' },
  ],
};

describe('openagent replay --from: re-run from a step with one thing changed', function () {
  this.timeout(TEST_TIMEOUT_MS * 2);
  let server: FakeModelServer;
  let workspace: string;
  let storeFolder: string;
  let home: string;
  let id: string;
  let commit: string;

  before(async () => {
    server = await FakeModelServer.start({ scenario: SCENARIO });
    workspace = tempFolder('rerun-ws');
    const git = (...args: string[]) =>
      execFileSync('git', args, {
        cwd: workspace,
        encoding: 'utf8',
        env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' },
      }).trim();
    git('init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(workspace, 'notes.md'), 'first notes\n');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'start');
    commit = git('rev-parse', 'HEAD');
    storeFolder = tempFolder('rerun-store');
    home = tempFolder('rerun-home');
    const ran = await runCli([...cliArgs(server, storeFolder), '--yes', 'tidy the notes'], { cwd: workspace, home });
    assert.equal(ran.code, 0, ran.stderr);
    const { store } = await openStore(storeFolder);
    id = (await store.listConversations())[0]!.id;
    const recording = await store.recordings.getRecording(id);
    assert.deepEqual(
      recording?.steps.map((step) => step.kind),
      ['prompt', 'model', 'tool', 'model', 'tool', 'model'],
    );
    await store.close();
  });
  after(() => server?.close());

  const rerun = (...flags: string[]) =>
    runCli(['replay', id, '--store', storeFolder, '--base-url', server.openAiBaseUrl, ...flags], {
      cwd: workspace,
      home,
    });

  it('re-runs from step 4 with another model: live output, a worktree at the recorded commit, the comparison', async () => {
    server.setScenario(SCENARIO);
    const before = server.modelCalls.length;
    const ran = await rerun('--from', '4', '--model', 'fake-model-large', '--yes');
    assert.equal(ran.code, 0, ran.stderr + ran.stdout);
    const streamed = ran.stdout.slice(0, ran.stdout.indexOf('\nA: '));
    assert.match(streamed, /Wrote LOUD notes\./, 'the live answer streamed');
    assert.doesNotMatch(streamed, /calm/, 'the replayed part is not printed again');
    assert.match(ran.stdout, /First divergence at step 4: the model answered differently/);
    const newId = /New conversation: (\S+)/.exec(ran.stdout)?.[1];
    const worktree = /Worktree: (.+)/.exec(ran.stdout)?.[1];
    assert.ok(newId && worktree, ran.stdout);
    assert.notEqual(newId, id);
    assert.equal(fs.readFileSync(path.join(worktree, 'notes.md'), 'utf8'), 'LOUD NOTES\n');
    assert.equal(fs.readFileSync(path.join(workspace, 'notes.md'), 'utf8'), 'calm notes\n', 'the workspace untouched');
    const gitIn = (...args: string[]) => execFileSync('git', args, { cwd: worktree, encoding: 'utf8' }).trim();
    assert.match(gitIn('branch', '--show-current'), /^openagent\/rerun-[0-9a-f]{8}$/);
    assert.equal(gitIn('rev-parse', 'HEAD'), commit);
    assert.deepEqual(
      server.modelCalls.slice(before).map((call) => (call.body as { model: string }).model),
      ['fake-model-large', 'fake-model-large'],
      'no call for the replayed steps',
    );
    // The new run is in the store, and compare reads it.
    const compared = await runCli(['compare', id, newId, '--store', storeFolder], { cwd: workspace, home });
    assert.equal(compared.code, 0, compared.stderr);
    assert.match(compared.stdout, /First divergence at step 4/);
    // And in the history, as a conversation of its own: its messages, the live answer among them.
    const { store } = await openStore(storeFolder);
    try {
      const kept = await store.getConversation(newId);
      assert.ok(kept, 'the re-run is a conversation in the history');
      assert.match(kept.title, /^Re-run of .* from step 4 \(model fake-model-large\)$/);
      assert.deepEqual(kept.settings.rerunOf, { conversationId: id, step: 4 });
      const texts = JSON.stringify(await store.listMessages(newId));
      assert.match(texts, /Wrote LOUD notes\./);
      assert.match(texts, /tidy the notes/, 'the replayed steps are in it too');
    } finally {
      await store.close();
    }
  });

  it('puts back the writes before N: a re-run from the last step starts from the recorded notes', async () => {
    server.setScenario({ name: 'last', turns: [{ model: 'fake-model-large', text: 'All calm.' }] });
    const ran = await rerun('--from', '6', '--model', 'fake-model-large', '--yes');
    assert.equal(ran.code, 0, ran.stderr + ran.stdout);
    assert.match(ran.stderr, /Put back the recorded changes of 1 file write before step 6/);
    const worktree = /Worktree: (.+)/.exec(ran.stdout)![1]!;
    assert.equal(fs.readFileSync(path.join(worktree, 'notes.md'), 'utf8'), 'calm notes\n');
  });

  it('refuses what does not apply, before anything is made', async () => {
    const worktrees = path.join(home, '.openagent', 'worktrees');
    const count = () => (fs.existsSync(worktrees) ? fs.readdirSync(worktrees).length : 0);
    const made = count();
    const message = await rerun('--from', '4', '--message', 'something else');
    assert.equal(message.code, 1);
    assert.match(message.stderr, /A new message replaces a prompt, and step 4 is a model call/);
    const range = await rerun('--from', '99', '--model', 'x');
    assert.equal(range.code, 1);
    assert.match(range.stderr, /Step 99 is out of range: this recording has steps 1 to 6/);
    const words = await rerun('--from', 'three');
    assert.equal(words.code, 2);
    assert.match(words.stderr, /--from needs a step number/);
    const alone = await runCli(['replay', id, '--store', storeFolder, '--model', 'x'], { cwd: workspace, home });
    assert.equal(alone.code, 2);
    assert.match(alone.stderr, /--model is for a re-run: give --from STEP too/);
    const toolResult = await rerun('--from', '3', '--tool-result', '3');
    assert.equal(toolResult.code, 2);
    assert.match(toolResult.stderr, /--tool-result needs STEP=TEXT/);
    assert.equal(count(), made, 'no worktree was made');
  });

  it('changes a tool result with --tool-result STEP=TEXT', async () => {
    server.setScenario({
      name: 'after-changed-read',
      turns: [{ text: 'The notes were empty, so I left them.' }],
    });
    const before = server.modelCalls.length;
    const ran = await rerun('--from', '3', '--tool-result', '3=(empty file)', '--yes');
    assert.equal(ran.code, 0, ran.stderr + ran.stdout);
    assert.match(JSON.stringify(server.modelCalls[before]?.body), /\(empty file\)/);
    assert.match(ran.stdout, /First divergence at step 3: read_file call differs/);
  });
});
