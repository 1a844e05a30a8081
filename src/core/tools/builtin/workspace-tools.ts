/**
 * The built-in tools over a workspace, the same list for every host: files, search and the
 * shell, plus code navigation where the host has language features (the editor), and the
 * knowledge tools (memory, skills). Hosts differ only in the adapters they pass in.
 */
import type { CodeNavigation, ImageFiles, Shell, TextSearch, WorkspaceFiles } from '../../ports';
import type { AnyTool } from '../tool';
import { createBashTool } from './bash';
import { createNavigationTools, createSearchTool } from './code-tools';
import { createFileTools } from './file-tools';

export interface WorkspaceToolsDeps {
  /** The workspace the file tools read and write (the checkpointed one, so edits can be reverted). */
  files: WorkspaceFiles;
  search: TextSearch;
  shell: Shell;
  /** Where commands start. */
  cwd: () => string | undefined;
  /** Language features (definitions, references, symbols); absent outside an editor. */
  navigation?: CodeNavigation;
  /** Memory and skill tools. */
  knowledge: AnyTool[];
  /** Pictures read_file returns as images (issue 36); absent: it says an image is not text. */
  images?: ImageFiles;
}

export function createWorkspaceTools(deps: WorkspaceToolsDeps): AnyTool[] {
  return [
    ...deps.knowledge,
    ...createFileTools(deps.files, deps.images),
    createSearchTool(deps.search, deps.files),
    ...(deps.navigation ? createNavigationTools(deps.navigation, deps.files) : []),
    createBashTool(deps.shell, deps.cwd),
  ];
}
