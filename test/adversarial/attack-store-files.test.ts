/**
 * Issue 32 item 16, second pass (attacker): files in the product's storage folders that hang
 * the store or the CLI, or leave it unusable, which the first pass did not try.
 *
 * - A journal larger than the longest string JavaScript holds (512 MiB) but under the 1 GiB the
 *   store reads — zeros appended to a real journal, or a sparse file: it was decoded whole, threw,
 *   and the store never opened again.
 * - A store lock dated in the future (another machine's clock on a synced folder, a clock set
 *   back) or naming this process's own pid (a container's CLI gets the same pid every run): every
 *   write waited 15 s and failed, until the clock caught up. Same for a task board's lock.
 * - The global memory (~/.openagent/memory.md; globalStorage/memory.md in the editor) as a
 *   named pipe, a link to /dev/zero or a 3 GB sparse file: read with readFile, it hung every
 *   turn of the CLI (a pipe; SIGTERM did not end it) or failed every turn.
 * Held, kept as guards: a journal entry nested a million levels deep, two stores of one process
 * sharing the lock, the store folder being a file or a named pipe (the CLI goes on, and says so).
 *
 * The store cases run in a child process with a kill deadline (attack-store-files-cases.ts).
 * Deadlines are generous: they only fail a run that truly hangs.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { cleanEnv, cliArgs, requestBody, tempFolder, textOf } from '../unit/cli/cli-helpers';
import { PATIENCE_MS, TEST_TIMEOUT_MS } from '../harness/patience';

const ROOT = path.resolve(__dirname, '..', '..');
const CASES = path.join(__dirname, 'attack-store-files-cases.ts');

type Told = Array<[string, string]>;
type Result = Record<string, unknown>;

/**
 * Runs `args` in its own process group, killed whole at the deadline: a CLI blocked on a pipe
 * ignores SIGTERM, and a wrapper killed alone would leave it holding the output open.
 */
async function runGroup(
  command: string,
  args: string[],
  options: { cwd: string; env?: NodeJS.ProcessEnv } = { cwd: ROOT },
): Promise<{ code: number | null; stdout: string; stderr: string; killed: boolean }> {
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  let killed = false;
  const timer = setTimeout(() => {
    killed = true;
    process.kill(-child.pid!, 'SIGKILL');
  }, PATIENCE_MS);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  return { code, stdout, stderr, killed };
}

describe('adversarial (attack): store files the first pass did not try', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const results = new Map<string, Result>();
  let log = '';

  before(async function () {
    const ran = await runGroup(process.execPath, ['--require', 'tsx/cjs', CASES]);
    log = `${ran.stdout.slice(-3000)}\n${ran.stderr.slice(-2000)}`;
    for (const line of ran.stdout.split('\n').filter(Boolean)) {
      const parsed = JSON.parse(line) as Result;
      if (parsed.crashed) throw new Error(`the cases crashed: ${String(parsed.crashed)}`);
      if (typeof parsed.case === 'string' && !parsed.started) results.set(parsed.case, parsed);
    }
  });

  /** A case's result; none means it hung (the child was killed at its deadline). */
  function result(name: string): Result {
    const found = results.get(name);
    assert.ok(found, `"${name}" did not finish before the deadline: it hung.\n${log}`);
    return found;
  }

  it('zeros appended to a journal past 512 MiB: the store opens, keeps what was saved, and says so', function () {
    const outcome = result('journal over the string limit: grown after a line') as {
      after: { written: boolean; told: Told };
      again: { found: boolean[]; told: Told };
      kept: Array<{ size: number; diskBytes: number }>;
      maxRssMb: number;
    };
    assert.equal(outcome.after.written, true, `a later turn is saved: ${JSON.stringify(outcome.after.told)}`);
    assert.equal(outcome.after.told.length, 1, JSON.stringify(outcome.after.told));
    assert.equal(outcome.after.told[0]![0], 'warning');
    assert.match(outcome.after.told[0]![1], /the journal has 1 damaged line/);
    assert.match(outcome.after.told[0]![1], /kept at .*store\.journal\.unreadable-/);
    assert.deepEqual(
      outcome.again,
      { found: [true, true], told: [] },
      'the turn before and the one after are both there',
    );
    assert.equal(outcome.kept.length, 1);
    assert.equal(outcome.kept[0]!.size, 600 * 1024 ** 2, 'the damaged journal is kept whole');
    assert.ok(
      outcome.kept[0]!.diskBytes < 64 * 1024 ** 2,
      `kept without writing a 600 MB copy (${outcome.kept[0]!.diskBytes} bytes on disk)`,
    );
  });

  it('a 600 MiB sparse journal: set aside, told, and the store goes on', function () {
    const outcome = result('journal over the string limit: sparse, no header') as {
      after: { written: boolean; told: Told };
      again: { found: boolean[]; told: Told };
      kept: Array<{ size: number; diskBytes: number }>;
    };
    assert.equal(outcome.after.written, true, `the turn is saved: ${JSON.stringify(outcome.after.told)}`);
    assert.equal(outcome.after.told.length, 1);
    assert.match(outcome.after.told[0]![1], /the journal has a damaged first line/);
    assert.deepEqual(outcome.again, { found: [false, true], told: [] });
    assert.equal(outcome.kept[0]?.size, 600 * 1024 ** 2, 'the sparse file is kept');
    assert.ok(outcome.kept[0]!.diskBytes < 64 * 1024 ** 2, 'and still takes no room');
  });

  it('a journal entry nested a million levels deep is skipped; everything else is kept', function () {
    const outcome = result('journal entry nested a million deep') as {
      after: { written: boolean; told: Told };
      again: { found: boolean[]; told: Told };
    };
    assert.equal(outcome.after.written, true);
    assert.deepEqual(outcome.again.found, [true, true]);
  });

  for (const which of ['from the future', 'naming this pid'])
    it(`a store lock ${which} is taken over: the write is saved`, function () {
      const outcome = result(`lock ${which}`) as {
        after: { written: boolean; told: Told };
        again: { found: boolean[]; told: Told };
        lockLeft: boolean;
      };
      assert.deepEqual(outcome.after, { written: true, told: [] }, 'saved, nothing to tell');
      assert.deepEqual(outcome.again, { found: [true], told: [] });
      assert.equal(outcome.lockLeft, false, 'the lock is released');
    });

  it('two stores of one process still keep each other out (the own-pid rule does not break the lock)', function () {
    assert.deepEqual(result('two stores in one process').counts, [40, 40], 'every message of both is there');
  });

  it('a task board lock dated in the future is taken over: the board is updated', function () {
    assert.equal(result('task board lock from the future').updated, 'updated');
  });

  for (const [kind, words] of [
    ['fifo', /named pipe \(FIFO\), not a file/],
    ['zero', /is a device, not a file/],
    ['sparse', /3\.0 GiB, more than/],
  ] as const)
    it(`the global memory as a ${kind}: the prompt says it was not read, an append is refused, nothing waits`, function () {
      const outcome = result(`global memory ${kind}`);
      assert.match(String(outcome.prompt), /## Global memory/);
      assert.match(String(outcome.prompt), /\[Not read: .*memory\.md /);
      assert.match(String(outcome.prompt), words);
      assert.match(String(outcome.appended), words, 'memory_append says why it did not write');
      assert.equal(
        outcome.left,
        kind === 'fifo' ? 'fifo' : kind === 'zero' ? 'link' : String(3 * 1024 ** 3),
        'left as it is',
      );
      assert.ok((outcome.maxRssMb as number) < 1800, `never read into memory (max RSS ${String(outcome.maxRssMb)} MB)`);
    });
});

describe('adversarial (attack): the CLI with its global memory or its store folder not a file', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer;

  beforeEach(async () => {
    server = await FakeModelServer.start({ scenario: { name: 'answer', turns: [{ text: 'Answered-5e0a.' }] } });
  });
  afterEach(async () => server.close());

  /** The CLI from source, in a process group of its own (see runGroup). */
  function cli(home: string, store: string) {
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const [key, value] of Object.entries({ ...cleanEnv(), HOME: home })) {
      if (value === undefined) delete env[key];
      else env[key] = value;
    }
    return runGroup(
      path.join(ROOT, 'node_modules', '.bin', 'tsx'),
      [path.join(ROOT, 'src', 'cli', 'main.ts'), ...cliArgs(server, store), 'say something'],
      { cwd: tempFolder('attack-ws'), env },
    );
  }

  for (const [name, make, words] of [
    ['a named pipe', (file: string) => execFileSync('mkfifo', [file]), /named pipe \(FIFO\), not a file/],
    [
      'a 3 GB sparse file',
      (file: string) => {
        fs.writeFileSync(file, '');
        fs.truncateSync(file, 3 * 1024 ** 3);
      },
      /3\.0 GiB/,
    ],
  ] as const)
    it(`~/.openagent/memory.md as ${name}: the turn runs, and the model is told the memory was not read`, async () => {
      const home = tempFolder('attack-home');
      fs.mkdirSync(path.join(home, '.openagent'));
      make(path.join(home, '.openagent', 'memory.md'));
      const ran = await cli(home, path.join(home, '.openagent', 'store'));
      assert.equal(ran.killed, false, `the CLI hung: ${ran.stderr}`);
      assert.equal(ran.code, 0, `the CLI finished: ${ran.stderr}`);
      assert.match(ran.stdout, /Answered-5e0a\./);
      const system = requestBody(server.modelCalls[0])
        .messages.filter((message) => message.role === 'system')
        .map(textOf)
        .join('\n');
      assert.match(system, /\[Not read: .*memory\.md /);
      assert.match(system, words);
      fs.rmSync(home, { recursive: true, force: true });
    });

  for (const [name, make] of [
    ['a file', (place: string) => fs.writeFileSync(place, 'not a folder')],
    ['a named pipe', (place: string) => execFileSync('mkfifo', [place])],
  ] as const)
    it(`the store folder as ${name}: the turn runs and the CLI says it could not save`, async () => {
      const home = tempFolder('attack-home');
      const store = path.join(home, 'store');
      make(store);
      const ran = await cli(home, store);
      assert.equal(ran.killed, false, `the CLI hung: ${ran.stderr}`);
      assert.equal(ran.code, 0, ran.stderr);
      assert.match(ran.stdout, /Answered-5e0a\./);
      assert.match(ran.stderr, /Could not save the conversation in .*store: Could not create the store folder/);
      fs.rmSync(home, { recursive: true, force: true });
    });
});
