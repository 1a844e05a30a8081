/**
 * The store under real processes: killed with SIGKILL mid-write, again and again, and two
 * writing at the same time. Writers are bundled once so each process starts quickly.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildSync } from 'esbuild';
import { openStore, tempDir, WASM } from './store-helpers';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

const KILLS = Number(process.env.OPENAGENT_STORE_KILLS ?? 50);

function bundleWriter(): string {
  const outfile = path.join(tempDir(), 'store-writer.js');
  buildSync({
    entryPoints: [path.resolve(__dirname, '..', '..', 'fixtures', 'store-writer.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    outfile,
    logLevel: 'silent',
  });
  return outfile;
}

interface WriterRun {
  finished: number[];
  exited: Promise<number | null>;
  kill(): void;
}

function startWriter(
  script: string,
  directory: string,
  writer: string,
  turns: number,
  foldBytes: number,
  until?: number,
): WriterRun {
  const extra = until === undefined ? [] : [String(until)];
  const child = spawn(process.execPath, [script, directory, WASM, writer, String(turns), String(foldBytes), ...extra], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const finished: number[] = [];
  let buffered = '';
  child.stdout.on('data', (data: Buffer) => {
    buffered += data.toString();
    const lines = buffered.split('\n');
    buffered = lines.pop() ?? '';
    for (const line of lines) if (line.startsWith('done ')) finished.push(Number(line.slice(5)));
  });
  return {
    finished,
    exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))),
    kill: () => child.kill('SIGKILL'),
  };
}

describe('store under real processes', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let script: string;
  before(() => {
    script = bundleWriter();
  });

  it(`survives SIGKILL at random moments (${KILLS} times) without losing a finished turn`, async () => {
    const directory = tempDir();
    const survived = new Set<number>();
    for (let round = 0; round < KILLS; round++) {
      const run = startWriter(script, directory, 'w', 1_000_000, 4_000);
      // Odd rounds kill anywhere (while opening, replaying, appending, folding or between writes);
      // even rounds first wait for the writer to finish a turn, so the store must keep making
      // progress across kills however slow the machine is (no timing decides the outcome).
      if (round % 2 === 0) await waitUntil(() => run.finished.length > 0, 60_000, `round ${round}: no turn finished`);
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.floor(Math.random() * 400)));
      run.kill();
      await run.exited;
      for (const turn of run.finished) survived.add(turn);
      const { store, quarantined } = await openStore(directory, { minFoldBytes: 4_000 });
      assert.equal(quarantined, undefined, `round ${round}: the store had to be quarantined`);
      const messages = await store.listMessages('conversation-w');
      const byId = new Map(messages.map((message) => [message.id, message.content]));
      for (const turn of run.finished) {
        assert.equal(byId.get(`w-${turn}-user`), `question ${turn}`, `round ${round}: turn ${turn} lost its question`);
        assert.equal(
          byId.get(`w-${turn}-assistant`),
          `The answer is ${turn}.`,
          `round ${round}: turn ${turn} lost its answer`,
        );
      }
      await store.close();
    }
    assert.ok(survived.size >= KILLS / 2, `the writers got work done between kills (${survived.size} turns)`);
  });

  async function waitUntil(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(what);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('loses no update when two processes write the same store at once', async () => {
    const directory = tempDir();
    const turns = 150;
    const first = startWriter(script, directory, 'a', turns, 3_000);
    const second = startWriter(script, directory, 'b', turns, 3_000);
    assert.deepEqual(await Promise.all([first.exited, second.exited]), [0, 0]);
    const { store } = await openStore(directory);
    for (const writer of ['a', 'b']) {
      const messages = await store.listMessages(`conversation-${writer}`);
      assert.equal(messages.length, turns * 2, `writer ${writer} lost updates`);
      assert.equal(messages.at(-1)?.content, `The answer is ${turns - 1}.`);
    }
    await store.close();
  });

  it('loses no update when the lock is deleted again and again while three processes write', async () => {
    const directory = tempDir();
    const turns = 120;
    const writers = ['a', 'b', 'c'].map((writer) => startWriter(script, directory, writer, turns, 3_000));
    let running = true;
    let deleted = 0;
    // Anything can delete a lock file: a sync tool, a cleanup script, a user.
    const thief = (async () => {
      while (running) {
        try {
          fs.rmSync(path.join(directory, 'store.lock'));
          deleted++;
        } catch {
          // Not there this instant.
        }
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    const codes = await Promise.all(writers.map((writer) => writer.exited));
    running = false;
    await thief;
    assert.deepEqual(codes, [0, 0, 0]);
    assert.ok(deleted > 0, 'the lock was deleted under the writers');
    const { store } = await openStore(directory);
    for (const writer of ['a', 'b', 'c']) {
      const messages = await store.listMessages(`conversation-${writer}`);
      assert.equal(messages.length, turns * 2, `writer ${writer} lost updates (the lock was deleted ${deleted} times)`);
    }
    await store.close();
  });

  it('loses no finished turn when the lock is deleted, replaced or corrupted and writers are killed', async () => {
    const directory = tempDir();
    const lockFile = path.join(directory, 'store.lock');
    const until = 60;
    const names = ['a', 'b', 'c'];
    const finished = new Map(names.map((name) => [name, new Set<number>()]));
    const runs = new Map(names.map((name) => [name, startWriter(script, directory, name, 0, 3_000, until)]));
    const faults = { deleted: 0, replaced: 0, corrupted: 0, killed: 0 };
    let running = true;
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // Another "process" that writes its own identity into the lock (a live pid: it is not stale),
    // holds it a moment and removes it; garbage bytes left in the lock; plain deletes.
    const thief = (async () => {
      let lastCorruption = 0;
      while (running) {
        const roll = Math.random();
        try {
          if (roll < 0.6) {
            fs.rmSync(lockFile);
            faults.deleted++;
          } else if (roll < 0.9) {
            const rogue = JSON.stringify({ pid: process.pid, time: Date.now(), id: `rogue-${Math.random()}` });
            fs.writeFileSync(lockFile, rogue);
            faults.replaced++;
            await pause(3);
            if (fs.readFileSync(lockFile, 'utf8') === rogue) fs.rmSync(lockFile);
          } else if (Date.now() - lastCorruption > 3_000) {
            // Left in place: the writers must see it stays unreadable and take it over.
            fs.writeFileSync(lockFile, '\u0000garbage{');
            faults.corrupted++;
            lastCorruption = Date.now();
          }
        } catch {
          // The lock was not there this instant.
        }
        await pause(2);
      }
    })();
    const killer = (async () => {
      for (let kill = 0; kill < 6 && running; kill++) {
        await pause(300 + Math.floor(Math.random() * 700));
        const name = names[kill % names.length]!;
        const run = runs.get(name)!;
        run.kill();
        await run.exited;
        faults.killed++;
        for (const turn of run.finished) finished.get(name)!.add(turn);
        runs.set(name, startWriter(script, directory, name, 0, 3_000, until));
      }
    })();
    await killer;
    const codes = await Promise.all([...runs.values()].map((run) => run.exited));
    running = false;
    await thief;
    for (const [name, run] of runs) for (const turn of run.finished) finished.get(name)!.add(turn);
    assert.deepEqual(codes, [0, 0, 0], 'every last writer finished');
    assert.ok(faults.deleted + faults.replaced > 0, 'the lock was played with');
    console.log(`      lock faults: ${JSON.stringify(faults)}`);
    const { store, quarantined, recovered } = await openStore(directory);
    assert.equal(quarantined, undefined);
    assert.equal(recovered, undefined, 'nothing had to be recovered: no file was damaged');
    for (const name of names) {
      const byId = new Map(
        (await store.listMessages(`conversation-${name}`)).map((stored) => [stored.id, stored.content]),
      );
      for (const turn of finished.get(name)!) {
        assert.equal(byId.get(`${name}-${turn}-user`), `question ${turn}`, `${name}: turn ${turn} lost its question`);
        assert.equal(
          byId.get(`${name}-${turn}-assistant`),
          `The answer is ${turn}.`,
          `${name}: turn ${turn} lost its answer`,
        );
      }
      assert.ok(finished.get(name)!.has(until - 1), `${name} finished its last turn`);
    }
    await store.close();
  });
});
