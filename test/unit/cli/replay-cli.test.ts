import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { RunRecording, ToolStep } from '../../../src/core/replay/recording';
import { recordScriptedRun, SCRIPTED_SCENARIO } from '../core/replay/scripted-run';
import type { MemoryRecordingStore } from '../core/replay/test-recorder';
import { readFileTool, writeFileTool } from '../core/agent/loop-harness';
import { runCli, tempFolder } from './cli-helpers';

/** The scripted run's first prompt only: tools the product has too (read_file, write_file, task). */
const PRODUCT_TOOLS_SCENARIO = { ...SCRIPTED_SCENARIO, turns: SCRIPTED_SCENARIO.turns.slice(0, 6) };

function writeRecordingFile(file: string, recording: RunRecording, store: MemoryRecordingStore): string {
  fs.writeFileSync(file, JSON.stringify({ recording, content: Object.fromEntries(store.content) }));
  return file;
}

describe('openagent replay and compare', function () {
  this.timeout(120_000);
  let folder: string;
  let original: string;
  let changed: string;
  let recording: RunRecording;
  let changedStep: number;

  before(async () => {
    folder = tempFolder('replay');
    const run = await recordScriptedRun('openai', PRODUCT_TOOLS_SCENARIO, {
      secondPrompt: false,
      tools: [readFileTool, writeFileTool],
    });
    recording = await run.finish();
    await run.server.close();
    original = writeRecordingFile(path.join(folder, 'original.json'), recording, run.store);
    const other = structuredClone(recording);
    const read = other.steps.find((step): step is ToolStep => step.kind === 'tool' && step.toolName === 'read_file')!;
    read.result = run.store.put({ output: 'export const answer = 41;\n', isError: false });
    changedStep = other.steps.find((step) => step.kind === 'model' && step.step > read.step)!.step;
    other.manifest.conversationId = 'conv-changed';
    changed = writeRecordingFile(path.join(folder, 'changed.json'), other, run.store);
  });

  it('exits 0 when the replay reproduces the run', async () => {
    const ran = await runCli(['replay', original], { cwd: folder });
    assert.equal(ran.code, 0, ran.stderr + ran.stdout);
    assert.match(ran.stdout, /reproduced the run \(\d+ of \d+ steps\)/);
  });

  it('exits 1 and prints the first divergence, with the step', async () => {
    const ran = await runCli(['replay', changed], { cwd: folder });
    assert.equal(ran.code, 1, ran.stderr + ran.stdout);
    assert.match(ran.stdout, new RegExp(`First divergence at step ${changedStep}: the model request differs`));
    assert.match(ran.stdout, /expected: .*42/);
    assert.match(ran.stdout, /actual: .*41/);
  });

  it('gives the divergence as JSON with --json', async () => {
    const ran = await runCli(['replay', changed, '--json'], { cwd: folder });
    assert.equal(ran.code, 1);
    const report = JSON.parse(ran.stdout) as { reproduced: boolean; divergence: { step: number } };
    assert.equal(report.reproduced, false);
    assert.equal(report.divergence.step, changedStep);
  });

  it('replays up to --until, and refuses a step out of range by naming the range', async () => {
    const until = await runCli(['replay', changed, '--until', String(changedStep - 1)], { cwd: folder });
    assert.equal(until.code, 0, until.stderr + until.stdout);
    assert.match(until.stdout, /up to the step asked/);
    const last = recording.steps.at(-1)!.step;
    const out = await runCli(['replay', original, '--until', '999'], { cwd: folder });
    assert.equal(out.code, 1);
    assert.match(out.stderr, new RegExp(`Step 999 is out of range: this recording has steps 1 to ${last}`));
    const words = await runCli(['replay', original, '--until', 'three'], { cwd: folder });
    assert.equal(words.code, 2);
    assert.match(words.stderr, /--until needs a step number/);
  });

  it('compares two runs as a table, and as JSON', async () => {
    const ran = await runCli(['compare', original, changed], { cwd: folder });
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /A: conv-openai\nB: conv-changed/);
    assert.match(ran.stdout, /read_file .*≠/);
    assert.match(ran.stdout, /model calls\s+\d+\s+\d+/);
    const read = recording.steps.find((step) => step.kind === 'tool' && step.toolName === 'read_file')!;
    assert.match(ran.stdout, new RegExp(`First divergence at step ${read.step}: read_file call differs`));
    const json = await runCli(['compare', original, original, '--json'], { cwd: folder });
    const comparison = JSON.parse(json.stdout) as { firstDivergence?: unknown; rows: Array<{ same: boolean }> };
    assert.equal(comparison.firstDivergence, undefined);
    assert.ok(comparison.rows.length > 5 && comparison.rows.every((row) => row.same));
  });

  it('says plainly when the store has no such recording', async () => {
    const store = tempFolder('replay-store');
    const ran = await runCli(['replay', 'conv-unknown', '--store', store], { cwd: folder });
    assert.equal(ran.code, 1);
    assert.match(ran.stderr, /openagent replay: .*(no recording|keeps no recordings)/);
    const missing = await runCli(['replay', path.join(folder, 'nothing.json')], { cwd: folder });
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /Cannot read .*nothing\.json: ENOENT/);
  });
});
