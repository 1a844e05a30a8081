/**
 * A lock file shared by every process using the store (several VS Code windows, the CLI), held
 * for the duration of one write. A lock left by a process that died is taken over.
 */
import type { StoreFiles } from './store-files';
import { StoreError } from './store-error';

const STALE_AFTER_MS = 30_000;
const GIVE_UP_AFTER_MS = 15_000;

export async function withFileLock<T>(files: StoreFiles, lockFile: string, work: () => Promise<T>): Promise<T> {
  const started = Date.now();
  const token = JSON.stringify({ pid: process.pid, time: Date.now() });
  for (let attempt = 0; ; attempt++) {
    if (await files.createExclusive(lockFile, token)) break;
    if (await isStale(files, lockFile)) {
      await files.remove(lockFile);
      continue;
    }
    if (Date.now() - started > GIVE_UP_AFTER_MS) throw new StoreError('The conversation store is locked by another OpenAgent process that does not let go.', 'locked');
    await new Promise((resolve) => setTimeout(resolve, Math.min(50, 2 + attempt)));
  }
  try {
    return await work();
  } finally {
    await files.remove(lockFile);
  }
}

async function isStale(files: StoreFiles, lockFile: string): Promise<boolean> {
  const raw = await files.read(lockFile);
  if (!raw) return false;
  try {
    const holder = JSON.parse(raw.toString('utf8')) as { pid: number; time: number };
    if (Date.now() - holder.time > STALE_AFTER_MS) return true;
    process.kill(holder.pid, 0);
    return false;
  } catch (error) {
    // ESRCH: the holder is gone. A half-written lock file (its writer died) is stale too.
    return (error as NodeJS.ErrnoException).code === 'ESRCH' || error instanceof SyntaxError;
  }
}
