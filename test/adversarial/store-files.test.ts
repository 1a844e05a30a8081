/**
 * Class 16 of issue 32: things that are not store files — a named pipe, a device (a link to
 * /dev/zero, /dev/urandom, /dev/tty, or a real device node), a folder, a socket, a link loop, a
 * dangling link, a 3 GB sparse file — in place of the snapshot, the journal, the lock or a
 * journal taken for a fold; the same swapped in while the store is in use; links and pipes at
 * temp names; and the files kept beside the store (task boards, the kept chat, the CLI history).
 * Each must be set aside (or refused) and told, never opened blocking, never read whole.
 *
 * The cases run in a child process with a kill deadline (store-files-cases.ts): a FIFO opened
 * for reading blocks a thread for good, and must fail a test, not freeze mocha. The CLI runs
 * end to end for a pipe and a sparse file: it must finish and say what it set aside.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { cliArgs, runCli, tempFolder } from '../unit/cli/cli-helpers';
import { PATIENCE_MS, TEST_TIMEOUT_MS } from '../harness/patience';
import { KINDS, PLACES } from './store-files-cases';

const CASES = path.join(__dirname, 'store-files-cases.ts');
type Result = Record<string, unknown> & {
  told?: Array<[string, string]>;
  again?: { found: boolean; told: Array<[string, string]> };
  kept?: Array<{ name: string; kind?: string; size?: number }>;
};

/** Runs the cases script; killed after `deadline`. Lines by case; `unfinished` names the case that hung. */
async function runCases(
  args: string[],
  deadline = PATIENCE_MS,
): Promise<{ results: Map<string, Result>; log: string }> {
  const child = spawn(process.execPath, ['--require', 'tsx/cjs', CASES, ...args], {
    cwd: path.resolve(__dirname, '..', '..'),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const timer = setTimeout(() => child.kill('SIGKILL'), deadline);
  await new Promise((resolve) => child.on('close', resolve));
  clearTimeout(timer);
  const results = new Map<string, Result>();
  for (const line of stdout.split('\n').filter(Boolean)) {
    const parsed = JSON.parse(line) as Result;
    if (typeof parsed.case === 'string' && !parsed.started) results.set(parsed.case, parsed);
    if (!parsed.case) results.set('', parsed);
  }
  return { results, log: `${stdout.slice(-2000)}\n${stderr.slice(-2000)}` };
}

/** The words the user is told for each kind, and what the thing set aside still is. */
const EXPECTED: Record<string, { words: RegExp; kept: string }> = {
  fifo: { words: /named pipe \(FIFO\), not a file/, kept: 'fifo' },
  zero: { words: /symbolic link, not a file/, kept: 'link' },
  urandom: { words: /symbolic link, not a file/, kept: 'link' },
  tty: { words: /symbolic link, not a file/, kept: 'link' },
  folder: { words: /folder, not a file/, kept: 'folder' },
  socket: { words: /socket, not a file/, kept: 'socket' },
  loop: { words: /symbolic link, not a file/, kept: 'link' },
  dangling: { words: /symbolic link, not a file/, kept: 'link' },
  sparse: { words: /3\.0 GiB, more than the .* OpenAgent reads into memory/, kept: 'file' },
  device: { words: /device, not a file/, kept: 'device' },
};

describe('adversarial: things that are not store files in the store folder', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let run: { results: Map<string, Result>; log: string };

  before(async function () {
    run = await runCases([]);
    assert.equal(run.results.get('')?.crashed, undefined, `the cases crashed: ${run.log}`);
  });

  /** A case's result; a case with none hung (the child was killed at its deadline). */
  function result(name: string): Result {
    const found = run.results.get(name);
    assert.ok(found, `"${name}" did not finish before the deadline: the store hung.\n${run.log}`);
    return found;
  }

  for (const place of PLACES)
    for (const kind of KINDS)
      it(`${kind} at ${place}: set aside unopened, told once, and the store goes on`, function () {
        const outcome = result(`${place} ${kind}`);
        if (outcome.skipped) this.skip();
        const expected = EXPECTED[kind]!;
        assert.equal(outcome.written, true, 'a message is written and read back');
        assert.equal(outcome.told?.length, 1, `told once: ${JSON.stringify(outcome.told)}`);
        const [severity, message] = outcome.told[0]!;
        assert.equal(severity, 'warning');
        assert.match(message, expected.words);
        assert.match(message, /kept at .*\.unreadable-/);
        assert.equal(outcome.kept?.length, 1, `one thing set aside: ${JSON.stringify(outcome.kept)}`);
        assert.ok(message.includes(outcome.kept[0]!.name), 'the message says where it is kept');
        assert.equal(outcome.kept[0]!.kind, expected.kept, 'what is kept is the thing itself, untouched');
        if (kind === 'sparse') assert.equal(outcome.kept[0]!.size, 3 * 1024 ** 3, 'the sparse file is kept whole');
        assert.ok(
          (outcome.maxRssMb as number) < 900,
          `never read into memory (max RSS ${String(outcome.maxRssMb)} MB)`,
        );
        assert.deepEqual(
          outcome.again,
          { found: true, told: [] },
          'opened again, the message is there, nothing to tell',
        );
      });

  it('links and pipes at temp names are never written through', function () {
    const outcome = result('temp names');
    assert.equal(outcome.written, true);
    assert.equal(outcome.outside, 'precious', 'the file a planted link points to is unchanged');
    assert.match(outcome.told?.[0]?.[1] ?? '', /damaged first line/, 'the recovery that wrote a snapshot ran');
    assert.deepEqual(outcome.again, { found: true, told: [] });
  });

  for (const [what, words] of [
    ['journal fifo', /the journal is a named pipe/],
    ['lock fifo', /store\.lock is a named pipe/],
    ['journal grown', /the journal is 3\.0 GiB/],
    ['lock folder', /store\.lock is a folder/],
  ] as const)
    it(`in use, ${what}: the next write goes through and the user is told`, function () {
      const outcome = result(`in use: ${what}`);
      assert.equal(outcome.first, true);
      assert.equal(outcome.written, true, 'the write after the swap is stored');
      assert.equal(outcome.told?.length, 1, `told once: ${JSON.stringify(outcome.told)}`);
      assert.equal(outcome.told[0]![0], 'warning');
      assert.match(outcome.told[0]![1], words);
      assert.deepEqual(outcome.again, { found: true, told: [] }, 'the write is there when opened again');
      assert.ok((outcome.maxRssMb as number) < 900, `never read into memory (max RSS ${String(outcome.maxRssMb)} MB)`);
    });

  for (const kind of ['fifo', 'zero', 'folder', 'sparse', 'socket', 'loop', 'device'])
    it(`${kind} as a task board, the kept chat and the CLI history: refused at once, left as it is`, function () {
      const outcome = result(`other files ${kind}`);
      if (outcome.skipped) this.skip();
      const expected = EXPECTED[kind]!;
      assert.match(String(outcome.boardRead), expected.words, 'the board read says what is there');
      assert.match(String(outcome.boardRead), /left as it is/);
      assert.match(String(outcome.chatRead), expected.words, 'the kept chat is refused, not waited on');
      assert.equal(outcome.historyBefore, 0, 'the history starts empty');
      if (kind !== 'sparse')
        assert.equal(
          (outcome.historyLeft as { kind: string }).kind,
          expected.kept,
          'the history is not written into it',
        );
      assert.equal(outcome.updated, 'updated', 'a board whose lock is a pipe is still updated');
      assert.ok((outcome.maxRssMb as number) < 900, `never read into memory (max RSS ${String(outcome.maxRssMb)} MB)`);
    });
});

/** A 3 GB file that takes no room on disk. */
function sparse(file: string): void {
  fs.writeFileSync(file, '');
  fs.truncateSync(file, 3 * 1024 ** 3);
}

describe('adversarial: the CLI with a pipe or a sparse file in its store', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer;

  // One server a run: each plays its scenario from the start.
  beforeEach(async () => {
    server = await FakeModelServer.start({ scenario: { name: 'answer', turns: [{ text: 'Answered-4d1c.' }] } });
  });
  afterEach(async () => server.close());

  for (const [name, place, make, words] of [
    [
      'a named pipe as the database file',
      'store.sqlite',
      (file: string) => execFileSync('mkfifo', [file]),
      /named pipe/,
    ],
    ['a 3 GB sparse journal', 'store.journal', (file: string) => sparse(file), /3\.0 GiB/],
    ['a named pipe as the lock', 'store.lock', (file: string) => execFileSync('mkfifo', [file]), /named pipe/],
  ] as const)
    it(`${name}: the CLI finishes, says what it set aside, and keeps the turn`, async () => {
      const store = tempFolder('nonfile-store');
      const workspace = tempFolder('nonfile-ws');
      make(path.join(store, place));
      // A hang is killed at the deadline (code -1) and fails here.
      const ran = await runCli([...cliArgs(server, store), 'say something'], { cwd: workspace, env: {} });
      assert.equal(ran.code, 0, `the CLI finished: ${ran.stderr}`);
      assert.match(ran.stdout + ran.stderr, /Answered-4d1c\./);
      assert.match(ran.stderr, words, 'it says what was in the way');
      assert.match(ran.stderr, /kept at .*\.unreadable-/, 'and where it is kept');
      assert.doesNotMatch(ran.stderr, /Could not save/, 'the turn was saved');
      // Read back in a child too: a store still not fit to open must not freeze the test.
      const verified = (await runCases(['verify', store])).results.get('');
      assert.ok(verified, 'the store opens again');
      assert.deepEqual(verified.told, [], 'with nothing more to tell');
      assert.ok(
        (verified.texts as string[]).some((text) => text.includes('Answered-4d1c.')),
        'the answer of the turn is stored',
      );
      fs.rmSync(store, { recursive: true, force: true });
    });
});
