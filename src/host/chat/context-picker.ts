/**
 * The composer's "@" picker: what to attach to the next prompt — a file of the workspace
 * (searchable list), an image of it, the editor selection, the problems, the last terminal command, or the
 * uncommitted git changes. Returns the mention to insert, e.g. "@file:src/app.ts ".
 */
import * as vscode from 'vscode';

const SOURCES = [
  { label: '$(file) File…', detail: 'A file of the workspace', mention: 'file' },
  {
    label: '$(file-media) Image…',
    detail: 'A PNG, JPEG, GIF or WebP of the workspace, sent as an image',
    mention: 'image',
  },
  { label: '$(selection) Selection', detail: 'The code selected in the editor', mention: '@selection ' },
  { label: '$(warning) Problems', detail: 'Errors and warnings from the language services', mention: '@problems ' },
  {
    label: '$(terminal) Terminal',
    detail: 'The last command run in a terminal, with its output',
    mention: '@terminal ',
  },
  { label: '$(git-commit) Git changes', detail: 'The uncommitted diff, staged and not', mention: '@git ' },
];

export async function pickContext(): Promise<string | undefined> {
  const source = await vscode.window.showQuickPick(SOURCES, { placeHolder: 'Attach to the next prompt' });
  if (!source) return undefined;
  if (source.mention === 'image') return pickImage();
  if (source.mention !== 'file') return source.mention;
  const files = await vscode.workspace.findFiles('**/*', '**/{node_modules,.git}/**', 5_000);
  const picked = await vscode.window.showQuickPick(
    files.map((uri) => vscode.workspace.asRelativePath(uri, false)).sort(),
    { placeHolder: 'Attach a file (type to search)', matchOnDescription: true },
  );
  if (!picked) return undefined;
  return /\s/.test(picked) ? `@file:"${picked}" ` : `@file:${picked} `;
}

/** A picture of the workspace, as an @image mention (the host prepares it when the prompt is sent). */
async function pickImage(): Promise<string | undefined> {
  const files = await vscode.workspace.findFiles(
    '**/*.{png,PNG,jpg,JPG,jpeg,JPEG,gif,GIF,webp,WEBP}',
    '**/{node_modules,.git}/**',
    5_000,
  );
  if (files.length === 0) {
    void vscode.window.showInformationMessage('The workspace has no PNG, JPEG, GIF or WebP images.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    files.map((uri) => vscode.workspace.asRelativePath(uri, false)).sort(),
    { placeHolder: 'Attach an image (type to search)' },
  );
  if (!picked) return undefined;
  return /\s/.test(picked) ? `@image:"${picked}" ` : `@image:${picked} `;
}
