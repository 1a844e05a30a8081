/**
 * ReviewedFiles over a WorkspaceFiles port (the Node workspace of the CLI and the unit tests):
 * the file is read again and compared right before it is written, and written back in its own
 * encoding, byte-order mark and line endings. VS Code has its own adapter, which edits the open
 * document so the undo can itself be undone with Ctrl+Z.
 */
import type { WorkspaceFiles } from '../ports';
import type { ReviewedFiles } from './edit-review';

export function reviewedFilesOf(workspace: WorkspaceFiles): ReviewedFiles {
  const current = async (absolute: string) =>
    (await workspace.stat(absolute))?.type === 'file' ? workspace.readText(absolute) : undefined;
  return {
    read: async (absolute) => (await current(absolute))?.text,
    replace: async (absolute, expected, text) => {
      const now = await current(absolute);
      if (now?.text !== expected) return false;
      const { text: _text, ...format } = now;
      await workspace.writeText(absolute, text, format);
      return true;
    },
    delete: async (absolute, expected) => {
      if ((await current(absolute))?.text !== expected) return false;
      await workspace.delete(absolute);
      return true;
    },
  };
}
