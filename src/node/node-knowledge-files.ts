/**
 * KnowledgeFiles on the Node file system (memory, rules and skills files). Those inside the
 * workspace are the folder's to decide, and a cloned folder can make any of them a link: they
 * are read and written as the file tools do (ContainedFiles), so `.openagent/memory.md` or
 * `AGENTS.md` made a link to a file outside the workspace, or to its `.env`, is neither read
 * into the prompt nor appended to, and a memory file with other hard links gets a copy of its
 * own before a note is added. Files outside the workspace (the user's global memory, the
 * bundled skills) are read as they are.
 */
import { constants } from 'node:fs';
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { KnowledgeFiles } from '../core/ports';
import { isSecretPlace } from '../core/policy/protected-paths';
import { isInside, PathError } from '../core/workspace/workspace-path';
import { ContainedFiles } from './contained-files';
import { openRegularFile, readRegularFile, UnusableFileError } from '../store/regular-file';

/**
 * The most read of a knowledge file outside the workspace (the global memory): its notes are a
 * few KB, and the prompt takes only the start of them.
 */
const OUTSIDE_CAP = 16 * 1024 * 1024;

export class NodeKnowledgeFiles implements KnowledgeFiles {
  private contained: { root: string; files: ContainedFiles } | undefined;

  /** `workspaceRoot`: the open workspace, whose files are read and written contained. */
  constructor(private readonly workspaceRoot: () => string | undefined = () => undefined) {}

  async read(absolute: string): Promise<string | undefined> {
    const workspace = await this.workspaceOf(absolute);
    try {
      if (!workspace) return (await readRegularFile(absolute, OUTSIDE_CAP, { follow: true })).toString('utf8');
      const bytes = await workspace.files.read(
        absolute,
        (real) => {
          const relative = (from: string) => path.relative(from, real).split(path.sep).join('/');
          if (isSecretPlace(relative(workspace.realRoot)))
            throw new PathError(`${absolute} leads to a secret file; it is not read as knowledge.`);
        },
        (opened) => {
          // A hard link is the other file itself (`.env`, a file outside the workspace) under an
          // innocent name, and nothing says where its other names are: not knowledge.
          if (opened.nlink > 1) throw new PathError(`${absolute} has other hard links; it is not read as knowledge.`);
          if (opened.size > OUTSIDE_CAP)
            throw new UnusableFileError(absolute, `is over ${OUTSIDE_CAP / 1024 / 1024} MiB`);
        },
      );
      return bytes.toString('utf8');
    } catch (error) {
      // Inside the workspace, a file that leads outside, to a secret or to no regular file is none.
      if (isMissing(error) || (workspace && isRefusal(error))) return undefined;
      throw unusable(error, 'not read');
    }
  }

  /** The workspace `absolute` is in (by its path as given, or under the root's real path). */
  private async workspaceOf(absolute: string): Promise<WorkspaceAccess | undefined> {
    const root = this.workspaceRoot();
    if (root === undefined) return undefined;
    const realRoot = await fs.realpath(root).catch(() => root);
    if (!isInside(root, absolute) && !isInside(realRoot, absolute)) return undefined;
    if (this.contained?.root !== root) this.contained = { root, files: new ContainedFiles(root) };
    return { files: this.contained.files, realRoot };
  }

  async list(absoluteDirectory: string): Promise<Array<{ name: string; directory: boolean }>> {
    try {
      const entries = await fs.readdir(absoluteDirectory, { withFileTypes: true });
      const listed = await Promise.all(
        entries.map(async (entry) => ({
          name: entry.name,
          // A symlinked folder (a skill linked in) counts as a folder.
          directory:
            entry.isDirectory() ||
            (entry.isSymbolicLink() &&
              (await fs.stat(path.join(absoluteDirectory, entry.name)).then(
                (stat) => stat.isDirectory(),
                () => false,
              ))),
        })),
      );
      return listed.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    } catch (error) {
      if (isMissing(error)) return [];
      throw error;
    }
  }

  async realpath(absolute: string): Promise<string | undefined> {
    try {
      return await fs.realpath(absolute);
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }

  async append(absolute: string, text: string): Promise<void> {
    const workspace = await this.workspaceOf(absolute);
    if (workspace) {
      await workspace.files.append(absolute, Buffer.from(text, 'utf8'));
      return;
    }
    await fs.mkdir(path.dirname(absolute), { recursive: true });
    // O_APPEND: concurrent writers (teammates) each add whole lines. Opened without blocking and
    // only if a regular file: a pipe there would wait for a reader for ever.
    const { handle } = await openRegularFile(
      absolute,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT,
      Infinity,
      {
        follow: true,
      },
    ).catch((error: unknown) => {
      throw unusable(error, 'not written');
    });
    try {
      await handle.writeFile(text, 'utf8');
    } finally {
      await handle.close();
    }
  }

  async create(absolute: string, text: string): Promise<void> {
    const workspace = await this.workspaceOf(absolute);
    if (workspace) {
      await workspace.files.append(absolute, Buffer.from(text, 'utf8'), true);
      return;
    }
    await fs.mkdir(path.dirname(absolute), { recursive: true });
    await fs.writeFile(absolute, text, { encoding: 'utf8', flag: 'wx' });
  }
}

/** Where a file of the workspace leads (its real path) is refused: outside, a link swapped in, not a file. */
/** Reached the same way as one of the workspace's own files. */
interface WorkspaceAccess {
  files: ContainedFiles;
  realRoot: string;
}

/** Not a file that can be used (a pipe, a device, a huge file), in words that say which and what was not done. */
function unusable(error: unknown, what: string): unknown {
  return error instanceof UnusableFileError ? new Error(`${error.message}; it was ${what}.`, { cause: error }) : error;
}

function isRefusal(error: unknown): boolean {
  return error instanceof PathError;
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}
