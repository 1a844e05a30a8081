/**
 * Presets (SPEC 2.9): a preset is a system prompt, prompts/<name>/PROMPT.md bundled with
 * OpenAgent, overridable by the workspace's .openagent/prompts/<name>/PROMPT.md. The host says
 * which workspace counts (the editor: a trusted one only; the CLI: the folder it runs in).
 */
import * as path from 'node:path';
import type { KnowledgeFiles } from '../ports';

export class PresetLibrary {
  /**
   * @param bundledFolder the prompts/ folder shipped with OpenAgent.
   * @param workspaceRoot the workspace whose own presets count, if any (read at each call).
   */
  constructor(
    private readonly files: KnowledgeFiles,
    private readonly bundledFolder: string,
    private readonly workspaceRoot: () => string | undefined,
  ) {}

  /** The workspace's own presets come last: they win over bundled ones of the same name. */
  private folders(): string[] {
    const root = this.workspaceRoot();
    return root ? [this.bundledFolder, path.join(root, '.openagent', 'prompts')] : [this.bundledFolder];
  }

  /** Every preset name, sorted. */
  async list(): Promise<string[]> {
    const names = new Set<string>();
    for (const folder of this.folders())
      for (const entry of await this.files.list(folder))
        if (entry.directory && (await this.files.read(path.join(folder, entry.name, 'PROMPT.md'))) !== undefined)
          names.add(entry.name);
    return [...names].sort();
  }

  async has(name: string): Promise<boolean> {
    return (await this.list()).includes(name);
  }

  /** The text of `name`, falling back to "coding" when it does not exist (any more). */
  async read(name: string): Promise<string> {
    for (const candidate of [name, 'coding']) {
      for (const folder of this.folders().reverse()) {
        const text = await this.files.read(path.join(folder, candidate, 'PROMPT.md'));
        if (text !== undefined) return text;
      }
    }
    throw new Error(`The bundled "coding" preset is missing from ${this.bundledFolder}.`);
  }
}
