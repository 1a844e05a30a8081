/**
 * What a write_file or edit_file call would do to its file, computed without writing: the
 * current text and the text after the call. Approvals show it as a diff ("Show Details").
 */
import type { WorkspaceFiles } from '../../ports';
import { applyEdits, type TextEdit } from '../../workspace/apply-edits';
import { resolveWorkspacePath } from '../../workspace/workspace-path';

export type ProposedChange =
  { ok: true; path: string; before: string | undefined; after: string } | { ok: false; reason: string };

/** Undefined for tools that do not write one file. */
export async function proposedChange(
  workspace: WorkspaceFiles,
  toolName: string,
  input: unknown,
): Promise<ProposedChange | undefined> {
  if (toolName !== 'write_file' && toolName !== 'edit_file') return undefined;
  const call = (input ?? {}) as { path?: unknown; content?: unknown; edits?: unknown };
  if (typeof call.path !== 'string') return { ok: false, reason: 'The call names no file.' };
  try {
    const absolute = await resolveWorkspacePath(workspace.root, call.path, workspace);
    const exists = (await workspace.stat(absolute))?.type === 'file';
    const current = exists ? await workspace.readText(absolute) : undefined;
    if (toolName === 'write_file') {
      if (typeof call.content !== 'string') return { ok: false, reason: 'The call has no content.' };
      // As write_file writes it: in a file with \r\n line endings, so does the new content.
      const after = current?.lineEnding === '\r\n' ? call.content.replace(/\r?\n/g, '\r\n') : call.content;
      return { ok: true, path: absolute, before: current?.text, after };
    }
    if (!current) return { ok: false, reason: `${call.path} does not exist.` };
    if (!Array.isArray(call.edits)) return { ok: false, reason: 'The call has no edits.' };
    const outcome = applyEdits(current.text, current.lineEnding, call.edits as TextEdit[]);
    return outcome.ok
      ? { ok: true, path: absolute, before: current.text, after: outcome.pieces.join('') }
      : { ok: false, reason: outcome.reason };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  }
}
