/**
 * Presets (SPEC 2.9): a preset is a system prompt, prompts/<name>/PROMPT.md bundled with
 * OpenAgent, overridable by the workspace's .openagent/prompts/<name>/PROMPT.md. The workspace's
 * custom agents (VS Code's .github/agents/*.agent.md, Claude Code's .claude/agents/*.md, read by
 * custom-agents.ts) are presets too: the "coding" preset with the agent's instructions after
 * it, its tools only, its model if we can route to it. The host says which workspace counts
 * (the editor: a trusted one only; the CLI: the folder it runs in).
 *
 * Names: OpenAgent's own presets first (the workspace's over the bundled of the same name), then
 * custom agents in CUSTOM_AGENT_FOLDERS order; a custom agent whose name is taken is left out,
 * reported.
 */
import * as path from 'node:path';
import type { KnowledgeFiles } from '../ports';
import { readCustomAgents, type CustomAgent } from './custom-agents';
import type { ToolAllowance } from './custom-agent-tools';
import type { InstructionProblem } from './instruction-files';

/** One preset as pickers show it. */
export interface PresetEntry {
  name: string;
  /** Where it comes from: "bundled", or the workspace-relative file. */
  source: string;
  /** The custom agent's description; empty for OpenAgent's presets. */
  description: string;
  /** The custom agent it is made of. */
  agent?: CustomAgent;
}

/** A preset ready for a conversation. */
export interface LoadedPreset {
  name: string;
  text: string;
  /** The tools it may use; undefined: every tool. */
  tools?: ToolAllowance;
  /** Set for a custom agent: its model names and what was not used of it. */
  agent?: CustomAgent;
}

export class PresetLibrary {
  /**
   * @param bundledFolder the prompts/ folder shipped with OpenAgent.
   * @param workspaceRoot the workspace whose own presets and custom agents count, if any (read at each call).
   */
  constructor(
    private readonly files: KnowledgeFiles,
    private readonly bundledFolder: string,
    private readonly workspaceRoot: () => string | undefined,
  ) {}

  /** The workspace's own presets come last: they win over bundled ones of the same name. */
  private folders(root: string | undefined): string[] {
    return root ? [this.bundledFolder, path.join(root, '.openagent', 'prompts')] : [this.bundledFolder];
  }

  /** OpenAgent's presets and the workspace's custom agents, sorted by name, with what was left out. */
  async catalog(): Promise<{ entries: PresetEntry[]; problems: InstructionProblem[] }> {
    const root = this.workspaceRoot();
    const own = new Map<string, PresetEntry>();
    for (const folder of this.folders(root))
      for (const entry of await this.files.list(folder))
        if (entry.directory && (await this.files.read(path.join(folder, entry.name, 'PROMPT.md'))) !== undefined)
          own.set(entry.name, {
            name: entry.name,
            source: folder === this.bundledFolder ? 'bundled' : `.openagent/prompts/${entry.name}/PROMPT.md`,
            description: '',
          });
    const { agents, problems } = root
      ? await readCustomAgents(this.files, root, own.keys())
      : { agents: [], problems: [] };
    const entries = [
      ...own.values(),
      ...agents.map((agent) => ({ name: agent.name, source: agent.file, description: agent.description, agent })),
    ];
    return { entries: entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)), problems };
  }

  /** Every preset name, sorted. */
  async list(): Promise<string[]> {
    return (await this.catalog()).entries.map((entry) => entry.name);
  }

  async has(name: string): Promise<boolean> {
    return (await this.list()).includes(name);
  }

  /** The text of `name`, falling back to "coding" when it does not exist (any more). */
  async read(name: string): Promise<string> {
    return (await this.load(name)).text;
  }

  /** The preset `name` for a new conversation, or "coding" when it does not exist (any more). */
  async load(name: string): Promise<LoadedPreset & { problems: InstructionProblem[] }> {
    const own = await this.ownText(name);
    if (own !== undefined) return { name, text: own, problems: [] };
    const { entries, problems } = await this.catalog();
    const agent = entries.find((entry) => entry.name === name)?.agent;
    const coding = await this.ownText('coding');
    if (coding === undefined) throw new Error(`The bundled "coding" preset is missing from ${this.bundledFolder}.`);
    if (!agent) return { name: 'coding', text: coding, problems };
    const text = agent.instructions
      ? `${coding}\n\n# Custom agent "${agent.name}" (${agent.file})\n\n${agent.instructions}`
      : coding;
    return { name, text, ...(agent.tools ? { tools: agent.tools } : {}), agent, problems };
  }

  private async ownText(name: string): Promise<string | undefined> {
    // A name from a setting: only a plain folder name can be one of ours.
    if (!name || name.includes('/') || name.includes('\\') || name.startsWith('.')) return undefined;
    for (const folder of this.folders(this.workspaceRoot()).reverse()) {
      const text = await this.files.read(path.join(folder, name, 'PROMPT.md'));
      if (text !== undefined) return text;
    }
    return undefined;
  }
}
