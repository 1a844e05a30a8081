/**
 * Presets (SPEC 2.9): a preset is a system prompt, prompts/<name>/PROMPT.md bundled with the
 * extension, overridable by the workspace's .openagent/prompts/<name>/PROMPT.md (trusted
 * workspaces only). The openagent.preset setting picks one for new conversations.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { CONFIG_SECTION } from './settings';

function presetFolders(extensionPath: string): string[] {
  const folders = [path.join(extensionPath, 'prompts')];
  const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
  // The workspace's own presets come last: they win over bundled ones of the same name.
  if (root && vscode.workspace.isTrusted) folders.push(path.join(root, '.openagent', 'prompts'));
  return folders;
}

/** Bundled presets (prompts/<name>/PROMPT.md) and the workspace's own (.openagent/prompts/<name>/). */
export function listPresets(extensionPath: string): string[] {
  const names = new Set<string>();
  for (const folder of presetFolders(extensionPath)) {
    for (const entry of safeReaddir(folder)) if (fs.existsSync(path.join(folder, entry, 'PROMPT.md'))) names.add(entry);
  }
  return [...names].sort();
}

/** The text of the chosen preset (falling back to "coding" when it does not exist). */
export function readPresetText(extensionPath: string): string {
  const chosen = vscode.workspace.getConfiguration(CONFIG_SECTION).get<string>('preset', 'coding');
  for (const name of [chosen, 'coding']) {
    for (const folder of presetFolders(extensionPath).reverse()) {
      const file = path.join(folder, name, 'PROMPT.md');
      if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8');
    }
  }
  throw new Error(`The bundled "coding" preset is missing from ${extensionPath}.`);
}

function safeReaddir(folder: string): string[] {
  try {
    return fs.readdirSync(folder);
  } catch {
    return [];
  }
}
