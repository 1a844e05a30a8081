/**
 * Run in a child process by store-files.test.ts (a hang must fail a test, not freeze mocha: a
 * FIFO opened for reading blocks a libuv thread for good). Each case puts something that is not
 * a store file where the store, the task boards, the kept chat or the CLI history expect one,
 * goes through the objects the product builds, and prints one JSON line: `{"case", "started"}`
 * before, `{"case", ...result}` after. `verify <dir>` prints what a store folder holds.
 */
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as net from 'node:net';
import * as os from 'node:os';
import * as path from 'node:path';
import { StoreOpener } from '../../src/kit/store-opener';
import { FileTaskStorage } from '../../src/node/file-task-storage';
import { AtomicTextFile } from '../../src/node/atomic-text-file';
import { LineHistory } from '../../src/cli/line-history';
import { message, WASM } from '../unit/store/store-helpers';

export const KINDS = ['fifo', 'zero', 'urandom', 'tty', 'folder', 'socket', 'loop', 'dangling', 'sparse', 'device'];
export const PLACES = ['store.sqlite', 'store.journal', 'store.lock', 'store.journal.folding-999999-0-abcdef12'];
const SPARSE_BYTES = 3 * 1024 ** 3;
const MARKER = 'marker-7f3a';

function print(line: Record<string, unknown>): void {
  process.stdout.write(`${JSON.stringify(line)}\n`);
}

/** Puts a thing of `kind` at `file`; returns a cleanup (the socket's server), or 'skip'. */
async function make(kind: string, file: string): Promise<(() => void) | 'skip' | undefined> {
  switch (kind) {
    case 'fifo':
      execFileSync('mkfifo', [file]);
      return;
    case 'zero':
    case 'urandom':
    case 'tty':
      fs.symlinkSync(`/dev/${kind}`, file);
      return;
    case 'folder':
      fs.mkdirSync(file);
      fs.writeFileSync(path.join(file, 'keep.txt'), 'someone else’s');
      return;
    case 'socket': {
      // Listened on under another name and moved in place: closing the server unlinks the name
      // it listened on, which must not be the store's.
      const server = net.createServer();
      await new Promise<void>((resolve) => server.listen(`${file}.listening`, resolve));
      fs.renameSync(`${file}.listening`, file);
      return () => server.close();
    }
    case 'loop':
      fs.symlinkSync(file, file);
      return;
    case 'dangling':
      fs.symlinkSync(path.join(path.dirname(file), 'nowhere', 'nothing'), file);
      return;
    case 'sparse': {
      const descriptor = fs.openSync(file, 'w');
      fs.ftruncateSync(descriptor, SPARSE_BYTES);
      fs.closeSync(descriptor);
      return;
    }
    case 'device':
      // A real character device node (the one /dev/null is): only root may make one.
      try {
        execFileSync('mknod', [file, 'c', '1', '3'], { stdio: 'ignore' });
        return;
      } catch {
        return 'skip';
      }
  }
  throw new Error(`unknown kind ${kind}`);
}

/** What an entry is, as the test names kinds. */
function kindOf(file: string): { kind: string; size: number } | undefined {
  try {
    const stat = fs.lstatSync(file);
    const kind = stat.isFIFO()
      ? 'fifo'
      : stat.isSymbolicLink()
        ? 'link'
        : stat.isDirectory()
          ? 'folder'
          : stat.isSocket()
            ? 'socket'
            : stat.isCharacterDevice()
              ? 'device'
              : 'file';
    return { kind, size: stat.size };
  } catch {
    return undefined;
  }
}

function opener(directory: string, told: Array<[string, string]>): StoreOpener {
  return new StoreOpener({ directory, wasmPath: WASM, tell: (severity, text) => told.push([severity, text]) });
}

async function writeAndRead(store: StoreOpener, id: string, text: string): Promise<boolean> {
  const opened = await store.openOrReport();
  if (!opened) return false;
  await opened.saveConversation({ id, title: id, createdAt: 1, updatedAt: 1, settings: {} });
  await opened.putMessage(message(id, 1, text));
  return (await opened.listMessages(id)).some((stored) => JSON.stringify(stored.content).includes(text));
}

/** What a fresh opening finds: the message, and what it tells. */
async function reopen(directory: string, id: string, text: string) {
  const told: Array<[string, string]> = [];
  const again = opener(directory, told);
  const store = await again.openOrReport();
  const found = store
    ? (await store.listMessages(id)).some((stored) => JSON.stringify(stored.content).includes(text))
    : false;
  await again.close();
  return { found, told };
}

/** Where the store kept what it set aside (`<name>.unreadable-…`). */
function keptAside(directory: string) {
  return fs
    .readdirSync(directory)
    .filter((name) => name.includes('.unreadable-'))
    .map((name) => ({ name, ...kindOf(path.join(directory, name)) }));
}

async function placeCase(place: string, kind: string): Promise<void> {
  const name = `${place} ${kind}`;
  print({ case: name, started: true });
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-nonfile-'));
  const cleanup = await make(kind, path.join(directory, place));
  if (cleanup === 'skip') return print({ case: name, skipped: 'cannot make a device node here (not root)' });
  const told: Array<[string, string]> = [];
  const store = opener(directory, told);
  const written = await writeAndRead(store, 'c1', MARKER);
  await store.close();
  cleanup?.();
  const again = await reopen(directory, 'c1', MARKER);
  print({ case: name, written, told, again, kept: keptAside(directory), maxRssMb: maxRssMb() });
  fs.rmSync(directory, { recursive: true, force: true });
}

/** Links and a pipe at the temp names the store once used (`<file>.<pid>.tmp`), while a recovery folds. */
async function tempNamesCase(): Promise<void> {
  const name = 'temp names';
  print({ case: name, started: true });
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-nonfile-'));
  const outside = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-outside-')), 'precious.txt');
  fs.writeFileSync(outside, 'precious');
  fs.symlinkSync(outside, path.join(directory, `store.sqlite.${process.pid}.tmp`));
  execFileSync('mkfifo', [path.join(directory, `store.journal.${process.pid}.tmp`)]);
  // A journal with a damaged first line: the recovery folds, writing a snapshot through a temp file.
  fs.writeFileSync(path.join(directory, 'store.journal'), 'not a header\n');
  const told: Array<[string, string]> = [];
  const store = opener(directory, told);
  const written = await writeAndRead(store, 'c1', MARKER);
  await store.close();
  const again = await reopen(directory, 'c1', MARKER);
  print({ case: name, written, told, again, outside: fs.readFileSync(outside, 'utf8') });
  fs.rmSync(directory, { recursive: true, force: true });
}

/** A store in use whose journal or lock is replaced under it. */
async function midSessionCase(what: 'journal fifo' | 'lock fifo' | 'journal grown' | 'lock folder'): Promise<void> {
  const name = `in use: ${what}`;
  print({ case: name, started: true });
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-nonfile-'));
  const told: Array<[string, string]> = [];
  const store = opener(directory, told);
  const first = await writeAndRead(store, 'c1', 'before');
  const journal = path.join(directory, 'store.journal');
  const lock = path.join(directory, 'store.lock');
  if (what === 'journal fifo') {
    fs.renameSync(journal, `${journal}.moved`);
    execFileSync('mkfifo', [journal]);
  } else if (what === 'lock fifo') execFileSync('mkfifo', [lock]);
  else if (what === 'lock folder') fs.mkdirSync(lock);
  else fs.truncateSync(journal, SPARSE_BYTES);
  const written = await writeAndRead(store, 'c2', MARKER);
  await store.close();
  const again = await reopen(directory, 'c2', MARKER);
  print({ case: name, first, written, told, again, kept: keptAside(directory), maxRssMb: maxRssMb() });
  fs.rmSync(directory, { recursive: true, force: true });
}

/** The other files the product keeps beside the store: task boards, the kept chat, the CLI history. */
async function otherFilesCase(kind: string): Promise<void> {
  const name = `other files ${kind}`;
  print({ case: name, started: true });
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-nonfile-'));
  const board = path.join(folder, 'tasks', 'b1.json');
  fs.mkdirSync(path.dirname(board));
  const cleanups = [await make(kind, board), await make(kind, path.join(folder, 'chat.json'))];
  await make(kind, path.join(folder, 'cli-history'));
  if (cleanups.includes('skip')) return print({ case: name, skipped: 'cannot make a device node here (not root)' });
  const tasks = new FileTaskStorage(path.join(folder, 'tasks'));
  const boardRead = await tasks.read('b1').then(
    () => 'read',
    (error: Error) => error.message,
  );
  const chatRead = await new AtomicTextFile(path.join(folder, 'chat.json')).read().then(
    () => 'read',
    (error: Error) => error.message,
  );
  const history = new LineHistory(path.join(folder, 'cli-history'));
  const historyBefore = history.lines.length;
  history.replace(['a line']);
  // A board whose lock is a pipe: the lock is taken over at once, the board written.
  const lockedFolder = path.join(folder, 'locked');
  fs.mkdirSync(lockedFolder);
  execFileSync('mkfifo', [path.join(lockedFolder, 'b2.json.lock')]);
  const lockedTasks = new FileTaskStorage(lockedFolder);
  const updated = await lockedTasks
    .update('b2', (current) => ({ board: { ...current, nextId: current.nextId + 1 }, result: 'updated' }))
    .catch((error: Error) => error.message);
  for (const cleanup of cleanups) if (typeof cleanup === 'function') cleanup();
  print({
    case: name,
    boardRead,
    boardLeft: kindOf(board),
    chatRead,
    historyBefore,
    historyLeft: kindOf(path.join(folder, 'cli-history')),
    updated,
    maxRssMb: maxRssMb(),
  });
  fs.rmSync(folder, { recursive: true, force: true });
}

function maxRssMb(): number {
  return Math.round(process.resourceUsage().maxRSS / 1024);
}

async function verify(directory: string): Promise<void> {
  const told: Array<[string, string]> = [];
  const store = opener(directory, told);
  const opened = await store.openOrReport();
  const conversations = opened ? await opened.listConversations() : [];
  const texts: string[] = [];
  for (const conversation of conversations)
    for (const stored of await opened!.listMessages(conversation.id)) texts.push(JSON.stringify(stored.content));
  await store.close();
  print({ conversations: conversations.length, texts, told });
}

async function main(): Promise<void> {
  const [mode, argument] = process.argv.slice(2);
  if (mode === 'verify') return verify(argument!);
  for (const place of PLACES) for (const kind of KINDS) await placeCase(place, kind);
  await tempNamesCase();
  for (const what of ['journal fifo', 'lock fifo', 'journal grown', 'lock folder'] as const) await midSessionCase(what);
  for (const kind of ['fifo', 'zero', 'folder', 'sparse', 'socket', 'loop', 'device']) await otherFilesCase(kind);
}

// Run as a script only: the test imports the lists of kinds and places.
if (require.main === module)
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      print({ crashed: error instanceof Error ? (error.stack ?? error.message) : String(error) });
      process.exit(1);
    },
  );
