/**
 * Whether a workspace file is another name of a secret file: a hard link to `.env` named
 * `notes.txt` holds the same bytes, and neither its name nor its real path says so (issue 32,
 * item 1). A file with one link is itself; one with more is compared, by device and inode,
 * with the workspace's secret files (secret-files.ts: ignored ones included, links followed).
 * Costs one stat for an ordinary file; the walk is shared and remembered for a few seconds.
 */
import { stat } from 'node:fs/promises';
import * as path from 'node:path';
import { SecretFiles } from './secret-files';

export class LinkedSecrets {
  constructor(
    private readonly root: string,
    private readonly secretFiles: (root: string) => Promise<readonly string[]> = new SecretFiles().find,
  ) {}

  /** The secret file (relative to the workspace) that `absolute` is another hard link of, if any. */
  readonly find = async (absolute: string): Promise<string | undefined> => {
    const info = await stat(absolute).catch(() => undefined);
    if (!info || !info.isFile() || info.nlink < 2) return undefined;
    for (const secret of await this.secretFiles(this.root)) {
      const other = await stat(path.join(this.root, secret)).catch(() => undefined);
      if (other && other.ino === info.ino && other.dev === info.dev) return secret;
    }
    return undefined;
  };
}
