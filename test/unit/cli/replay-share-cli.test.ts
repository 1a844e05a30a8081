/**
 * Sharing runs and checking them, through the CLI as a user runs it: two runs recorded by the
 * CLI itself against the fake model server, exported with `export-run`, imported into another
 * store with `import-run` and replayed there; `replay --check DIR` green on the two exports,
 * red (exit 1, the step named) after a change to the folder's `.openagent/` preset or policy,
 * or to what the model answered.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { contentOf } from '../../../src/core/replay/content-hash';
import type { RunExport } from '../../../src/core/replay/run-export';
import type { ModelStep } from '../../../src/core/replay/recording';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { loadScenario } from '../../fixtures/fake-model-server/scenario';
import { TEST_TIMEOUT_MS } from '../../harness/patience';
import { openStore } from '../store/store-helpers';
import { cliArgs, runCli, tempFolder } from './cli-helpers';

describe('openagent export-run, import-run and replay --check', function () {
  this.timeout(TEST_TIMEOUT_MS * 3);
  let workspace: string;
  let storeFolder: string;
  let checkFolder: string;
  let ids: string[];

  before(async () => {
    workspace = tempFolder('share-ws');
    fs.writeFileSync(path.join(workspace, 'README.md'), 'The answer is 42.\n');
    storeFolder = tempFolder('share-store');
    checkFolder = tempFolder('share-check');
    const writes = await FakeModelServer.start({ scenario: loadScenario('cli-write-file') });
    const reads = await FakeModelServer.start({
      scenario: {
        name: 'cli-read',
        turns: [
          { text: 'Reading.', toolCalls: [{ id: 'call_read', name: 'read_file', arguments: { path: 'README.md' } }] },
          { text: 'It says the answer is 42.' },
        ],
      },
    });
    try {
      const first = await runCli([...cliArgs(writes, storeFolder), '--yes', 'create the notes'], { cwd: workspace });
      assert.equal(first.code, 0, first.stderr);
      const second = await runCli([...cliArgs(reads, storeFolder), 'what does the readme say?'], { cwd: workspace });
      assert.equal(second.code, 0, second.stderr);
    } finally {
      await writes.close();
      await reads.close();
    }
    const { store } = await openStore(storeFolder);
    ids = (await store.listConversations()).sort((a, b) => a.createdAt - b.createdAt).map((entry) => entry.id);
    await store.close();
    assert.equal(ids.length, 2);
    // The notes the first run wrote go, so nothing of the world is what the replay reads.
    fs.rmSync(path.join(workspace, 'notes.txt'), { force: true });
  });

  const exportFile = (index: number) => path.join(checkFolder, `run-${index + 1}.json`);

  it('exports each run to a file (by the start of its id)', async () => {
    for (const [index, id] of ids.entries()) {
      const ran = await runCli(['export-run', id.slice(0, 8), '-o', exportFile(index), '--store', storeFolder], {
        cwd: workspace,
      });
      assert.equal(ran.code, 0, ran.stderr);
      assert.match(ran.stderr, /Exported .* \(\d+ steps, \d+ pieces of content, \d+ messages\)/);
      const exported = JSON.parse(fs.readFileSync(exportFile(index), 'utf8')) as RunExport;
      assert.equal(exported.conversation.id, id);
      assert.ok(exported.messages!.length > 0);
    }
    // An export is a recording file replay and compare take as it is, without importing it.
    const replayed = await runCli(['replay', exportFile(1)], { cwd: workspace });
    assert.equal(replayed.code, 0, replayed.stderr + replayed.stdout);
    assert.match(replayed.stdout, /reproduced the run \(4 of 4 steps\)/);
  });

  it('imports a run into another store, where replay reproduces it', async () => {
    const otherStore = tempFolder('share-other');
    const imported = await runCli(['import-run', exportFile(0), '--store', otherStore], { cwd: workspace });
    assert.equal(imported.code, 0, imported.stderr);
    const id = /as conversation (\S+) /.exec(imported.stdout)?.[1];
    assert.ok(id, imported.stdout);
    assert.notEqual(id, ids[0], 'a new conversation');
    const replayed = await runCli(['replay', id, '--store', otherStore], { cwd: workspace });
    assert.equal(replayed.code, 0, replayed.stderr + replayed.stdout);
    assert.match(replayed.stdout, /reproduced the run \(4 of 4 steps\)/);
    assert.equal(fs.existsSync(path.join(workspace, 'notes.txt')), false, 'the replay wrote nothing');
    const { store } = await openStore(otherStore);
    const conversation = await store.getConversation(id);
    assert.deepEqual(Object.keys(conversation!.settings), ['importedRun']);
    await store.close();
  });

  it('--check is green on the folder as exported', async () => {
    const ran = await runCli(['replay', '--check', checkFolder], { cwd: workspace });
    assert.equal(ran.code, 0, ran.stderr + ran.stdout);
    assert.match(ran.stdout, /run-1\.json\s+4\s+reproduced/);
    assert.match(ran.stdout, /run-2\.json\s+4\s+reproduced/);
    assert.match(ran.stdout, /2 runs: 2 reproduced, 0 diverged, 0 refused/);
  });

  it('--check is red, at the first model call, after a change to the preset prompt in .openagent/', async () => {
    const presetFolder = path.join(workspace, '.openagent', 'prompts', 'coding');
    fs.mkdirSync(presetFolder, { recursive: true });
    fs.writeFileSync(path.join(presetFolder, 'PROMPT.md'), 'You are a terse agent. Never write files.\n');
    try {
      const ran = await runCli(['replay', '--check', checkFolder], { cwd: workspace });
      assert.equal(ran.code, 1, ran.stderr + ran.stdout);
      assert.match(ran.stdout, /run-1\.json\s+4\s+diverged at step 2: the model request differs: the system prompt/);
      assert.match(ran.stdout, /run-2\.json\s+4\s+diverged at step 2/);
      assert.match(ran.stdout, /actual: .*You are a terse agent/);
      assert.match(ran.stdout, /2 runs: 0 reproduced, 2 diverged/);
    } finally {
      fs.rmSync(path.join(workspace, '.openagent'), { recursive: true, force: true });
    }
  });

  it('--check is red where the policy in .openagent/ now denies a recorded call', async () => {
    fs.mkdirSync(path.join(workspace, '.openagent'), { recursive: true });
    fs.writeFileSync(path.join(workspace, '.openagent', 'agent.yaml'), 'tools:\n  deny: [write_file]\n');
    try {
      const ran = await runCli(['replay', '--check', checkFolder], {
        cwd: workspace,
        env: { HOME: tempFolder('home') },
      });
      assert.equal(ran.code, 1, ran.stderr + ran.stdout);
      assert.match(ran.stdout, /run-1\.json\s+4\s+diverged at step 3: policy now denies/);
      assert.match(ran.stdout, /run-2\.json\s+4\s+reproduced/);
    } finally {
      fs.rmSync(path.join(workspace, '.openagent'), { recursive: true, force: true });
    }
  });

  it('--check is red, naming the step, when the model had answered otherwise', async () => {
    const changedFolder = tempFolder('share-changed');
    fs.copyFileSync(exportFile(0), path.join(changedFolder, 'run-1.json'));
    const exported = JSON.parse(fs.readFileSync(exportFile(1), 'utf8')) as RunExport;
    // The other personality: the first answer reads another file (content and ref made anew).
    const first = exported.recording.steps.find((step): step is ModelStep => step.kind === 'model')!;
    const answer = exported.content.find((entry) => entry.ref === first.answer)!.value;
    const other = JSON.parse(JSON.stringify(answer).replaceAll('README.md', 'NOTES.md')) as unknown;
    const otherRef = contentOf(other).ref;
    exported.content.push({ ref: otherRef, value: other });
    first.answer = otherRef;
    fs.writeFileSync(path.join(changedFolder, 'run-2.json'), JSON.stringify(exported));
    const ran = await runCli(['replay', '--check', changedFolder], { cwd: workspace });
    assert.equal(ran.code, 1, ran.stderr + ran.stdout);
    assert.match(ran.stdout, /run-1\.json\s+4\s+reproduced/);
    assert.match(ran.stdout, /run-2\.json\s+4\s+diverged at step 4: the model request differs/);
    assert.match(ran.stdout, /expected: .*README\.md/);
    assert.match(ran.stdout, /actual: .*NOTES\.md/);
  });

  it('--check refuses a folder without exports, and a damaged file is a red row', async () => {
    const empty = tempFolder('share-empty');
    const none = await runCli(['replay', '--check', empty], { cwd: workspace });
    assert.equal(none.code, 1);
    assert.match(none.stderr, /There are no exported runs/);
    fs.copyFileSync(exportFile(0), path.join(empty, 'good.json'));
    fs.writeFileSync(path.join(empty, 'cut.json'), fs.readFileSync(exportFile(1), 'utf8').slice(0, 500));
    const ran = await runCli(['replay', '--check', empty], { cwd: workspace });
    assert.equal(ran.code, 1, ran.stderr + ran.stdout);
    assert.match(ran.stdout, /cut\.json\s+refused: The file is damaged or cut short/);
    assert.match(ran.stdout, /good\.json\s+4\s+reproduced/);
  });
});
