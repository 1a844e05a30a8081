/**
 * `openagent replay ID --live-tools` end to end: a run recorded by the CLI in a git repository
 * (it reads a file, writes it, runs a command), replayed with the recorded model answers and the
 * tools run for real in a fresh worktree at the recorded commit. Unchanged, the world answers
 * the same; when the file the run read differed from the repository's HEAD (a change not in the
 * recorded commit), the read's result differs at its step, the next model request is the first
 * divergence, and the report names both.
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
  name: 'replay-live-cli',
  turns: [
    { model: 'fake-model', toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: 'notes.md' } }] },
    {
      model: 'fake-model',
      toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'notes.md', content: 'calm notes\n' } }],
    },
    { model: 'fake-model', toolCalls: [{ id: 'b1', name: 'bash', arguments: { command: 'cat notes.md' } }] },
    { model: 'fake-model', text: 'Wrote calm notes.' },
  ],
};

describe('openagent replay --live-tools: the recorded answers, the tools for real', function () {
  this.timeout(TEST_TIMEOUT_MS * 3);
  let server: FakeModelServer;
  let workspace: string;
  let storeFolder: string;
  let home: string;
  let commit: string;
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: workspace,
      encoding: 'utf8',
      env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null' },
    }).trim();

  const record = async (): Promise<string> => {
    server.setScenario(SCENARIO);
    const { store } = await openStore(storeFolder);
    const known = new Set((await store.listConversations()).map((conversation) => conversation.id));
    await store.close();
    const ran = await runCli([...cliArgs(server, storeFolder), '--yes', 'tidy the notes'], { cwd: workspace, home });
    assert.equal(ran.code, 0, ran.stderr);
    const reopened = await openStore(storeFolder);
    const id = (await reopened.store.listConversations()).find((conversation) => !known.has(conversation.id))!.id;
    const recording = await reopened.store.recordings.getRecording(id);
    await reopened.store.close();
    assert.deepEqual(
      recording?.steps.map((step) => step.kind),
      ['prompt', 'model', 'tool', 'model', 'tool', 'model', 'tool', 'model'],
    );
    return id;
  };
  const replayLive = (id: string, ...flags: string[]) =>
    runCli(['replay', id, '--store', storeFolder, '--live-tools', ...flags], { cwd: workspace, home });

  before(async () => {
    server = await FakeModelServer.start({ scenario: SCENARIO });
    workspace = tempFolder('live-ws');
    git('init', '-q', '-b', 'main');
    fs.writeFileSync(path.join(workspace, 'notes.md'), 'first notes\n');
    git('add', '.');
    git('-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'start');
    commit = git('rev-parse', 'HEAD');
    storeFolder = tempFolder('live-store');
    home = tempFolder('live-home');
  });
  after(() => server?.close());

  it('replays an unchanged world: every result the same, the worktree left with its removal command', async () => {
    const id = await record();
    const calls = server.modelCalls.length;
    const ran = await replayLive(id, '--yes');
    assert.equal(ran.code, 0, ran.stderr + ran.stdout);
    assert.equal(server.modelCalls.length, calls, 'no model call: the answers are the recording');
    assert.match(ran.stdout, /same {4}step 3: read_file/);
    assert.match(ran.stdout, /same {4}step 5: write_file/);
    assert.match(ran.stdout, /same {4}step 7: bash/);
    assert.match(ran.stdout, /same {4}notes\.md \[turn-1\]/);
    assert.match(ran.stdout, /The world answered the same\./);
    const worktree = /Worktree: (.+) \(branch (\S+)\)/.exec(ran.stdout);
    assert.ok(worktree, ran.stdout);
    const [, root, branch] = worktree;
    assert.match(branch!, /^openagent\/replay-[0-9a-f]{8}$/);
    assert.equal(fs.readFileSync(path.join(root!, 'notes.md'), 'utf8'), 'calm notes\n', 'the tools ran for real');
    assert.equal(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: root, encoding: 'utf8' }).trim(), commit);
    assert.match(ran.stdout, /Remove it with: git -C '.+' worktree remove --force '.+'/);

    // --json: the same report as data, stdout holding it alone.
    const json = await replayLive(id, '--yes', '--json', '--until', '3');
    assert.equal(json.code, 0, json.stderr);
    const report = JSON.parse(json.stdout) as { sameWorld: boolean; ended: string; tools: Array<{ step: number }> };
    assert.equal(report.sameWorld, true);
    assert.equal(report.ended, 'until');
    assert.deepEqual(
      report.tools.map((tool) => tool.step),
      [3],
    );
  });

  it('names the step where the world answered differently, and stops at the request that then differs', async () => {
    // The run read a notes.md that differed from HEAD (a change the recorded commit does not hold).
    fs.writeFileSync(path.join(workspace, 'notes.md'), 'notes changed after the commit\n');
    const id = await record();
    const ran = await replayLive(id, '--yes');
    assert.equal(ran.code, 1, ran.stderr + ran.stdout);
    assert.match(ran.stdout, /DIFFERS step 3: read_file/);
    assert.match(ran.stdout, /line 1: recorded .*notes changed after the commit.*, now .*first notes/);
    assert.match(ran.stdout, /First divergence at step 4: the model request differs: .*read_file call r1/);
    assert.match(ran.stdout, /The replay stopped there/);
    assert.match(ran.stdout, /The world answered differently: 1 tool result/);
    assert.doesNotMatch(ran.stdout, /step 5: write_file/, 'nothing ran past the divergence');
    const root = /Worktree: (.+) \(branch/.exec(ran.stdout)![1]!;
    assert.equal(fs.readFileSync(path.join(root, 'notes.md'), 'utf8'), 'first notes\n', 'the write never ran');
  });

  it('replays a run recorded without git in a scratch copy of the folder as it is now', async () => {
    const plain = tempFolder('live-plain');
    fs.writeFileSync(path.join(plain, 'notes.md'), 'plain notes\n');
    server.setScenario(SCENARIO);
    const recorded = await runCli([...cliArgs(server, storeFolder), '--yes', 'tidy the notes'], { cwd: plain, home });
    assert.equal(recorded.code, 0, recorded.stderr);
    const { store } = await openStore(storeFolder);
    const conversations = await store.listConversations();
    let id = '';
    for (const conversation of conversations) {
      const recording = await store.recordings.getRecording(conversation.id);
      if (recording?.manifest.place.root && fs.realpathSync(recording.manifest.place.root) === fs.realpathSync(plain))
        id = conversation.id;
    }
    await store.close();
    assert.ok(id, 'the run recorded in the plain folder');
    // The folder changed since: the scratch copy is of the folder now, and the read says so.
    fs.writeFileSync(path.join(plain, 'notes.md'), 'notes edited since\n');
    const ran = await replayLive(id, '--yes');
    assert.equal(ran.code, 1, ran.stderr + ran.stdout);
    assert.match(ran.stderr, /The recorded place had no git: the tools run in a scratch copy/);
    assert.match(ran.stdout, /DIFFERS step 3: read_file/);
    assert.match(ran.stdout, /line 1: recorded .*plain notes.*, now .*notes edited since/);
    const copy = /Scratch copy: (.+), left for you to inspect\./.exec(ran.stdout)?.[1];
    assert.ok(copy, ran.stdout);
    assert.match(ran.stdout, /Remove it with: rm -rf '/);
    assert.equal(fs.readFileSync(path.join(copy, 'notes.md'), 'utf8'), 'notes edited since\n');
  });
});
