/**
 * Presets for the CLI (SPEC 2.9), as src/host/presets.ts finds them for the extension: the
 * bundled prompts/<name>/PROMPT.md, overridden by the workspace's .openagent/prompts/<name>/.
 * The CLI runs where the user started it, so that folder counts as trusted.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';

export class PresetLibrary {
  /**
   * @param bundledFolder the prompts/ folder shipped with OpenAgent.
   * @param workspaceRoot the folder the CLI works in.
   */
  constructor(
    private readonly bundledFolder: string,
    private readonly workspaceRoot: string,
  ) {}

  /** The workspace's own presets come last: they win over bundled ones of the same name. */
  private folders(): string[] {
    return [this.bundledFolder, path.join(this.workspaceRoot, '.openagent', 'prompts')];
  }

  /** Every preset name, sorted. */
  list(): string[] {
    const names = new Set<string>();
    for (const folder of this.folders())
      for (const entry of safeReaddir(folder))
        if (fs.existsSync(path.join(folder, entry, 'PROMPT.md'))) names.add(entry);
    return [...names].sort();
  }

  has(name: string): boolean {
    return this.list().includes(name);
  }

  /** The text of `name`, falling back to "coding" when it does not exist (any more). */
  read(name: string): string {
    for (const candidate of [name, 'coding']) {
      for (const folder of this.folders().reverse()) {
        const file = path.join(folder, candidate, 'PROMPT.md');
        if (fs.existsSync(file)) return fs.readFileSync(file, 'utf8');
      }
    }
    throw new Error(`The bundled "coding" preset is missing from ${this.bundledFolder}.`);
  }
}

function safeReaddir(folder: string): string[] {
  try {
    return fs.readdirSync(folder);
  } catch {
    return [];
  }
}
