/**
 * A JSON document in a file that several writers change — agents of one process, or several
 * processes. An update holds a lock file (created exclusively; taken over when older than
 * 10 s, so a crashed writer cannot block it for good) and replaces the file atomically (temp
 * file + rename): a reader sees the document before or after a change, never half of one.
 * Updates of one file within this process also queue behind each other.
 */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import { notAFile, readRegularFile, UnusableFileError } from '../store/regular-file';

const STALE_LOCK_MS = 10_000;
const LOCK_WAIT_MS = 15_000;
/** A board or a team is a few hundred KB at most: a larger file is not read into memory. */
const DOCUMENT_CAP = 64 * 1024 * 1024;

export class LockedJsonFiles<Document> {
  private readonly queues = new Map<string, Promise<unknown>>();

  constructor(
    private readonly empty: () => Document,
    /** Checks what was read; throws with a reason when it is not a document of this kind. */
    private readonly validate: (data: unknown) => Document,
  ) {}

  async read(file: string): Promise<Document> {
    let text: string;
    try {
      // Only a regular file, opened without blocking: a pipe or a device here must not hang the agent.
      text = (await readRegularFile(file, DOCUMENT_CAP)).toString('utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return this.empty();
      if (!(error instanceof UnusableFileError)) throw error;
      throw new Error(`${file} ${error.reason}; it was left as it is.`, { cause: error });
    }
    let data: unknown;
    try {
      data = JSON.parse(text);
      return this.validate(data);
    } catch (error) {
      throw new Error(`${file} is damaged and was left as it is (${(error as Error).message}).`, { cause: error });
    }
  }

  update<Result>(
    file: string,
    change: (document: Document) => { document: Document; result: Result },
  ): Promise<Result> {
    const previous = this.queues.get(file) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(() => this.locked(file, change));
    this.queues.set(file, next);
    void next
      .finally(() => {
        if (this.queues.get(file) === next) this.queues.delete(file);
      })
      .catch(() => undefined);
    return next;
  }

  private async locked<Result>(
    file: string,
    change: (document: Document) => { document: Document; result: Result },
  ): Promise<Result> {
    await fs.mkdir(path.dirname(file), { recursive: true });
    const release = await acquireLock(`${file}.lock`);
    try {
      const { document, result } = change(await this.read(file));
      const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
      await fs.writeFile(temp, `${JSON.stringify(document, null, 2)}\n`, { encoding: 'utf8', flag: 'wx' });
      await fs.rename(temp, file);
      return result;
    } finally {
      await release();
    }
  }
}

async function acquireLock(lock: string): Promise<() => Promise<void>> {
  const deadline = Date.now() + LOCK_WAIT_MS;
  for (;;) {
    try {
      const handle = await fs.open(lock, 'wx');
      await handle.writeFile(`${process.pid}\n`);
      await handle.close();
      return () => fs.rm(lock, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const stat = await fs.lstat(lock).catch(() => undefined);
    // Something no writer of ours makes (a pipe, a folder, a link) is in the way at once. A lock
    // dated in the future (a clock set back, another machine's clock, `touch -d`) would never
    // grow old: it is as abandoned as an old one.
    if (stat && (notAFile(stat) !== undefined || Math.abs(Date.now() - stat.mtimeMs) > STALE_LOCK_MS)) {
      // Abandoned by a writer that died: take it over (whoever renames it first wins).
      const stale = `${lock}.stale-${process.pid}-${Date.now()}`;
      if (
        await fs.rename(lock, stale).then(
          () => true,
          () => false,
        )
      )
        // A lock file is removed; anything else (someone's folder) stays under the new name.
        if (!notAFile(stat)) await fs.rm(stale, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`${lock} is held by another writer.`);
    await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 20));
  }
}

/** A file name for an id (a conversation's, a team's): refuses anything that could leave the folder. */
export function documentFile(folder: string, id: string): string {
  if (!/^[\w.-]+$/.test(id) || id.startsWith('.')) throw new Error(`Not a document id: ${id}`);
  return path.join(folder, `${id}.json`);
}
