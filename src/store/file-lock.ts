/**
 * A lock file shared by every process using the store (several VS Code windows, the CLI), held
 * for the duration of one write. A lock left by a process that died is taken over. The lock
 * holds its holder's identity (pid, time, a random id), which is the fence: before anything that
 * would overwrite another's work (an append, a fold replacing files) the holder checks the lock
 * is still its own, and it removes only its own lock. A lock deleted or replaced under it (a
 * sync tool, a cleanup script) makes the work stop with LockLostError: the caller re-syncs and
 * retries instead of writing over someone else's.
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { UnusableFileError } from './regular-file';
import type { StoreFiles } from './store-files';
import { StoreError } from './store-error';

/** The lock is no longer this holder's: stop, re-sync, retry. */
export class LockLostError extends Error {
  constructor() {
    super('The conversation store lock was taken away during a write.');
    this.name = 'LockLostError';
  }
}

export interface LockFence {
  /** Throws LockLostError unless the lock file still holds this holder's identity. */
  check(): Promise<void>;
}

const STALE_AFTER_MS = 30_000;
/** The ids of the locks this process holds now: a lock naming this pid but none of them was left by another process. */
const heldHere = new Set<string>();
const GIVE_UP_AFTER_MS = 15_000;
const UNREADABLE_STALE_MS = 2_000;
/** A lock is a line of JSON: anything larger is not one of ours. */
const LOCK_CAP = 64 * 1024;

/**
 * Runs `work` holding the lock. Something at the lock's name that no process of ours can have
 * made (a pipe, a folder, a device, a link, a huge file) is moved aside at once, never opened
 * or followed, and `setAside` is told where it went.
 */
export async function withFileLock<T>(
  files: StoreFiles,
  lockFile: string,
  work: (fence: LockFence) => Promise<T>,
  setAside?: (file: string, kept: string, reason: string) => void,
): Promise<T> {
  const started = Date.now();
  const id = randomUUID();
  const token = JSON.stringify({ pid: process.pid, time: Date.now(), id });
  let unreadableSince: number | undefined;
  for (let attempt = 0; ; attempt++) {
    // Marked held before the file exists: another store of this process may read it at once.
    heldHere.add(id);
    const created = await files.createExclusive(lockFile, token).catch((error: unknown) => {
      heldHere.delete(id);
      throw error;
    });
    if (created) break;
    heldHere.delete(id);
    const holder = await readHolder(files, lockFile);
    if (typeof holder === 'object' && 'unusable' in holder) {
      const kept = await moveAside(files, lockFile, holder.unusable);
      if (kept) setAside?.(lockFile, kept, holder.unusable);
      continue;
    }
    // An empty or half-written lock is usually one being created this instant: only a lock that
    // stays unreadable for a while is abandoned (its writer died between create and write).
    if (holder === 'unreadable') unreadableSince ??= Date.now();
    else unreadableSince = undefined;
    const abandoned =
      holder === 'unreadable'
        ? Date.now() - unreadableSince! > UNREADABLE_STALE_MS
        : holder !== 'gone' && isStale(holder);
    if (abandoned) {
      await files.remove(lockFile);
      unreadableSince = undefined;
      continue;
    }
    if (Date.now() - started > GIVE_UP_AFTER_MS)
      throw new StoreError(
        'The conversation store is locked by another OpenAgent process that does not let go.',
        'locked',
      );
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, 2 + attempt)));
  }
  const ours = async () => (await files.read(lockFile, LOCK_CAP).catch(() => undefined))?.toString('utf8') === token;
  const fence: LockFence = {
    check: async () => {
      if (!(await ours())) throw new LockLostError();
    },
  };
  try {
    return await work(fence);
  } finally {
    heldHere.delete(id);
    // Only our own lock: one taken over meanwhile belongs to someone else now.
    if (await ours()) await files.remove(lockFile);
  }
}

/** What a lock file says: who holds it, since when, and the holder's random id. */
interface Holder {
  pid: number;
  time: number;
  id?: unknown;
}

async function readHolder(
  files: StoreFiles,
  lockFile: string,
): Promise<Holder | { unusable: string } | 'unreadable' | 'gone'> {
  let raw: Buffer | undefined;
  try {
    raw = await files.read(lockFile, LOCK_CAP);
  } catch (error) {
    if (error instanceof UnusableFileError) return { unusable: error.reason };
    throw error;
  }
  if (!raw) return 'gone';
  try {
    const holder = JSON.parse(raw.toString('utf8')) as Holder;
    return typeof holder.pid === 'number' && typeof holder.time === 'number' ? holder : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/**
 * Moves what is at the lock's name aside under a name of its own (never deleted: it may be
 * someone's folder), so the next attempt can create a real lock. Undefined when something else
 * was there by then: gone, or a real lock another process made after moving the same thing aside
 * (put back; if that fails, its holder's fence sees it lost and retries).
 */
async function moveAside(files: StoreFiles, lockFile: string, reason: string): Promise<string | undefined> {
  const kept = `${lockFile}.unreadable-${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID().slice(0, 8)}`;
  try {
    await files.rename(lockFile, kept);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StoreError(
      `The conversation store's lock (${path.basename(lockFile)}) ${reason}, and could not be moved aside: ${(error as Error).message}`,
      'io',
    );
  }
  const moved = await files.fingerprint(kept);
  if (moved && !moved.unusable && moved.size <= LOCK_CAP) {
    await files.link(kept, lockFile);
    await files.remove(kept);
    return undefined;
  }
  return kept;
}

/**
 * A lock whose process is gone, or that has been held far longer than any write takes. A lock
 * from the future (another machine's clock on a synced folder, a clock set back, a hand-made
 * file) would otherwise never be, and one naming this very process that it does not hold was
 * left by an earlier process with the same pid (a container's CLI gets the same one each run):
 * both would keep every write out until the clock caught up, so both are abandoned too.
 */
function isStale(holder: Holder): boolean {
  if (Math.abs(Date.now() - holder.time) > STALE_AFTER_MS) return true;
  if (holder.pid === process.pid) return !(typeof holder.id === 'string' && heldHere.has(holder.id));
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
