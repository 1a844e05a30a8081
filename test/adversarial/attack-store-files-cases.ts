/**
 * Run in a child process by attack-store-files.test.ts (a pipe opened for reading or writing
 * blocks a thread for good: it must fail a test, not freeze mocha). Each case goes through the
 * objects the product builds and prints one JSON line: `{"case", "started"}` before and
 * `{"case", ...result}` after; a case without its result line hung.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { StoreOpener } from '../../src/kit/store-opener';
import { FileTaskStorage } from '../../src/node/file-task-storage';
import { NodeKnowledgeFiles } from '../../src/node/node-knowledge-files';
import { ProjectKnowledge } from '../../src/core/knowledge/project-knowledge';
import { message, WASM } from '../unit/store/store-helpers';

const MARKER = 'marker-a11c';
/** Over the longest string JavaScript holds (512 MiB), under the 1 GiB the store reads. */
const OVER_STRING_BYTES = 600 * 1024 ** 2;

function print(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

function folder(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-attack-store-'));
}

function opener(directory: string, told: Array<[string, string]>): StoreOpener {
  return new StoreOpener({ directory, wasmPath: WASM, tell: (severity, text) => told.push([severity, text]) });
}

/** Saves a message through a fresh opening; whether it reads back, and what was told. */
async function write(directory: string, id: string, text: string) {
  const told: Array<[string, string]> = [];
  const store = opener(directory, told);
  const opened = await store.openOrReport();
  let written = false;
  if (opened) {
    await opened.saveConversation({ id, title: id, createdAt: 1, updatedAt: 1, settings: {} });
    await opened.putMessage(message(id, 1, text));
    written = (await opened.listMessages(id)).some((stored) => JSON.stringify(stored.content).includes(text));
  }
  await store.close();
  return { written, told };
}

/** What a fresh opening finds of each message, and what it tells. */
async function reopen(directory: string, wanted: Array<[string, string]>) {
  const told: Array<[string, string]> = [];
  const store = opener(directory, told);
  const opened = await store.openOrReport();
  const found: boolean[] = [];
  for (const [id, text] of wanted)
    found.push(
      opened ? (await opened.listMessages(id)).some((stored) => JSON.stringify(stored.content).includes(text)) : false,
    );
  await store.close();
  return { found, told };
}

function maxRssMb(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

/** What the store keeps aside, and how much room it takes on disk. */
function keptAside(directory: string) {
  return fs
    .readdirSync(directory)
    .filter((name) => name.includes('.unreadable-'))
    .map((name) => {
      const stat = fs.lstatSync(path.join(directory, name));
      return { name, size: stat.size, diskBytes: stat.blocks * 512 };
    });
}

async function run(name: string, body: () => Promise<Record<string, unknown>>): Promise<void> {
  print({ case: name, started: true });
  print({ case: name, ...(await body()), maxRssMb: maxRssMb() });
}

/**
 * A journal grown past the longest string (gigabytes appended, a sparse file): it was decoded
 * whole, which throws, and the store never opened again.
 */
async function journalOverStringLimit(how: 'grown after a line' | 'sparse, no header'): Promise<void> {
  await run(`journal over the string limit: ${how}`, async () => {
    const directory = folder();
    const journal = path.join(directory, 'store.journal');
    let before;
    if (how === 'grown after a line') {
      before = await write(directory, 'c1', MARKER);
      // As if a write had begun a line and gigabytes of zeros followed it.
      fs.appendFileSync(journal, '\n');
      fs.truncateSync(journal, OVER_STRING_BYTES);
    } else {
      const descriptor = fs.openSync(journal, 'w');
      fs.ftruncateSync(descriptor, OVER_STRING_BYTES);
      fs.closeSync(descriptor);
    }
    const after = await write(directory, 'c2', 'after-b7e2');
    const again = await reopen(directory, [
      ['c1', MARKER],
      ['c2', 'after-b7e2'],
    ]);
    const result = { before, after, again, kept: keptAside(directory) };
    fs.rmSync(directory, { recursive: true, force: true });
    return result;
  });
}

/** A journal entry nested a million levels deep (JSON.parse takes it; stringifying it overflows the stack). */
async function deeplyNestedEntry(): Promise<void> {
  await run('journal entry nested a million deep', async () => {
    const directory = folder();
    const before = await write(directory, 'c1', MARKER);
    const depth = 1_000_000;
    fs.appendFileSync(
      path.join(directory, 'store.journal'),
      `\n{"op":"message","value":{"id":"c1-deep","conversationId":"c1","seq":2,"role":"user","createdAt":5,"content":${'['.repeat(depth)}${']'.repeat(depth)}}}`,
    );
    const after = await write(directory, 'c2', 'after-b7e2');
    const again = await reopen(directory, [
      ['c1', MARKER],
      ['c2', 'after-b7e2'],
    ]);
    fs.rmSync(directory, { recursive: true, force: true });
    return { before, after, again };
  });
}

/** A store lock no live writer of this machine holds, that never looks old. */
async function foreignLock(which: 'from the future' | 'naming this pid'): Promise<void> {
  await run(`lock ${which}`, async () => {
    const directory = folder();
    const lock = path.join(directory, 'store.lock');
    fs.writeFileSync(
      lock,
      which === 'from the future'
        ? JSON.stringify({ pid: 1, time: Date.now() + 10 * 365 * 24 * 3_600_000, id: 'elsewhere' })
        : JSON.stringify({ pid: process.pid, time: Date.now(), id: 'an-earlier-process' }),
    );
    const after = await write(directory, 'c1', MARKER);
    const again = await reopen(directory, [['c1', MARKER]]);
    const lockLeft = fs.existsSync(lock);
    fs.rmSync(directory, { recursive: true, force: true });
    return { after, again, lockLeft };
  });
}

/** Two stores of one process on one folder, writing at once: the lock still keeps them apart. */
async function twoStoresOneProcess(): Promise<void> {
  await run('two stores in one process', async () => {
    const directory = folder();
    const stores = [opener(directory, []), opener(directory, [])];
    const opened = await Promise.all(stores.map((store) => store.open()));
    await Promise.all(
      opened.map(async (store, index) => {
        await store.saveConversation({ id: `c${index}`, title: 't', createdAt: 1, updatedAt: 1, settings: {} });
        for (let seq = 1; seq <= 40; seq++) await store.putMessage(message(`c${index}`, seq, `m${seq}`));
      }),
    );
    for (const store of stores) await store.close();
    const reader = opener(directory, []);
    const store = await reader.open();
    const counts = [(await store.listMessages('c0')).length, (await store.listMessages('c1')).length];
    await reader.close();
    fs.rmSync(directory, { recursive: true, force: true });
    return { counts };
  });
}

/** A task board's lock dated in the future (`touch -d`, another machine's clock). */
async function boardLockFromTheFuture(): Promise<void> {
  await run('task board lock from the future', async () => {
    const directory = folder();
    const lock = path.join(directory, 'b1.json.lock');
    fs.writeFileSync(lock, '999999\n');
    const future = new Date(Date.now() + 10 * 365 * 24 * 3_600_000);
    fs.utimesSync(lock, future, future);
    const tasks = new FileTaskStorage(directory);
    const updated = await tasks
      .update('b1', (current) => ({ board: { ...current, nextId: current.nextId + 1 }, result: 'updated' }))
      .catch((error: Error) => error.message);
    fs.rmSync(directory, { recursive: true, force: true });
    return { updated };
  });
}

/** The user's global memory as something that is not a file: read for the prompt, appended to. */
async function globalMemory(kind: 'fifo' | 'zero' | 'sparse'): Promise<void> {
  await run(`global memory ${kind}`, async () => {
    const home = folder();
    const memory = path.join(home, 'memory.md');
    if (kind === 'fifo') execFileSync('mkfifo', [memory]);
    else if (kind === 'zero') fs.symlinkSync('/dev/zero', memory);
    else {
      fs.writeFileSync(memory, '');
      fs.truncateSync(memory, 3 * 1024 ** 3);
    }
    const knowledge = new ProjectKnowledge({
      files: new NodeKnowledgeFiles(() => undefined),
      workspaceRoot: () => undefined,
      isTrusted: () => true,
      bundledSkills: path.join(home, 'no-skills'),
      globalMemory: memory,
    });
    const prompt = await knowledge.memory.promptSection().catch((error: Error) => `threw: ${error.message}`);
    const appended = await knowledge.memory.append('global', 'a note').then(
      () => 'appended',
      (error: Error) => error.message,
    );
    const stillThere = fs.lstatSync(memory);
    fs.rmSync(home, { recursive: true, force: true });
    return {
      prompt,
      appended,
      left: stillThere.isFIFO() ? 'fifo' : stillThere.isSymbolicLink() ? 'link' : String(stillThere.size),
    };
  });
}

async function main(): Promise<void> {
  const only = process.argv[2];
  const cases: Array<[string, () => Promise<void>]> = [
    ['journal', () => journalOverStringLimit('grown after a line')],
    ['journal', () => journalOverStringLimit('sparse, no header')],
    ['journal', deeplyNestedEntry],
    ['lock', () => foreignLock('from the future')],
    ['lock', () => foreignLock('naming this pid')],
    ['lock', twoStoresOneProcess],
    ['lock', boardLockFromTheFuture],
    ['memory', () => globalMemory('fifo')],
    ['memory', () => globalMemory('zero')],
    ['memory', () => globalMemory('sparse')],
  ];
  for (const [group, body] of cases) if (!only || only === group) await body();
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    print({ crashed: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    process.exit(1);
  },
);
