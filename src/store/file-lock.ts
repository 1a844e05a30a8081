/**
 * A lock file shared by every process using the store (several VS Code windows, the CLI), held
 * for the duration of one write. A lock left by a process that died is taken over.
 */
import type { StoreFiles } from './store-files';
import { StoreError } from './store-error';

const STALE_AFTER_MS = 30_000;
const GIVE_UP_AFTER_MS = 15_000;
const UNREADABLE_STALE_MS = 2_000;

export async function withFileLock<T>(files: StoreFiles, lockFile: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const token = JSON.stringify({ pid: process.pid, time: Date.now() });
  let unreadableSince: number | undefined;
  for (let attempt = 0; ; attempt++) {
    if (await files.createExclusive(lockFile, token)) break;
    const holder = await readHolder(files, lockFile);
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
  try {
    return await work();
  } finally {
    await files.remove(lockFile);
  }
}

async function readHolder(
  files: StoreFiles,
  lockFile: string,
): Promise<{ pid: number; time: number } | 'unreadable' | 'gone'> {
  const raw = await files.read(lockFile);
  if (!raw) return 'gone';
  try {
    const holder = JSON.parse(raw.toString('utf8')) as { pid: number; time: number };
    return typeof holder.pid === 'number' && typeof holder.time === 'number' ? holder : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/** A lock whose process is gone, or that has been held far longer than any write takes. */
function isStale(holder: { pid: number; time: number }): boolean {
  if (Date.now() - holder.time > STALE_AFTER_MS) return true;
  try {
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ESRCH';
  }
}
