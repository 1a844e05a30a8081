/** KnowledgeFiles on the Node file system (memory, rules and skills files). */
import * as fs from 'node:fs/promises';
import * as path from 'node:path';
import type { KnowledgeFiles } from '../core/ports';

export class NodeKnowledgeFiles implements KnowledgeFiles {
  async read(absolute: string): Promise<string | undefined> {
    try {
      return await fs.readFile(absolute, 'utf8');
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
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
    await fs.mkdir(path.dirname(absolute), { recursive: true });
    // O_APPEND: concurrent writers (teammates) each add whole lines.
    await fs.appendFile(absolute, text, 'utf8');
  }

  async create(absolute: string, text: string): Promise<void> {
    await fs.mkdir(path.dirname(absolute), { recursive: true });
    await fs.writeFile(absolute, text, { encoding: 'utf8', flag: 'wx' });
  }
}

function isMissing(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'EISDIR';
}
