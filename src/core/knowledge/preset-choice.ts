/**
 * The preset a new conversation uses, taken once when it starts: its text and tools for the
 * system prompt, and — for a custom agent naming a model we can route to — the model its
 * prompts go to (the user's settings otherwise; a model policy still wins over both, as it does
 * over the settings). A host calls `prepare` before the conversation's models are routed (the
 * session's `prepare`), wraps its `readSettings` in `settings`, and builds the system prompt
 * from `preset()`.
 */
import type { ModelSettings } from '../llm/create-llm-client';
import type { SecretSource } from '../ports';
import { chooseAgentModel, type ModelChoice } from './custom-agent-model';
import type { InstructionProblem } from './instruction-files';
import type { LoadedPreset, PresetLibrary } from './presets';

export interface PresetChoiceDeps {
  presets: PresetLibrary;
  /** The preset the user chose (a setting, /preset). */
  presetName(): string;
  secrets: Pick<SecretSource, 'getApiKey'>;
  /** Addresses of providers other than the settings' one. */
  providerBaseUrls?: () => Readonly<Record<string, string>>;
  /** What was left out of the custom agents, or of the chosen one (files workspace-relative). */
  report(problems: InstructionProblem[]): void;
}

export interface ChosenPreset {
  preset: LoadedPreset;
  model: ModelChoice;
}

export class PresetChoice {
  private chosen: ChosenPreset | undefined;

  constructor(private readonly deps: PresetChoiceDeps) {}

  /** Reads the chosen preset again, for the conversation about to start; `user`: the user's model settings. */
  async prepare(user: ModelSettings): Promise<ChosenPreset> {
    const { problems, ...preset } = await this.deps.presets.load(this.deps.presetName());
    const agent = preset.agent;
    const model = agent
      ? await chooseAgentModel(agent.models, {
          settings: user,
          baseUrls: this.deps.providerBaseUrls?.() ?? {},
          apiKey: (provider) => this.deps.secrets.getApiKey(provider),
        })
      : { vscodeLabels: [], problems: [] };
    const about = agent ? [...agent.notes, ...model.problems].map((message) => ({ file: agent.file, message })) : [];
    this.deps.report([...problems, ...about]);
    this.chosen = { preset, model };
    return this.chosen;
  }

  /** The model settings prompts use: the chosen custom agent's model, else the user's. */
  settings(user: ModelSettings): ModelSettings {
    return this.chosen?.model.settings ?? user;
  }

  /** The preset of the conversation (read now when `prepare` has not run). */
  async preset(user: () => ModelSettings): Promise<LoadedPreset> {
    return (this.chosen ?? (await this.prepare(user()))).preset;
  }

  /** The chosen agent's VS Code model labels, for a VS Code model provider to answer to. */
  get vscodeModelLabels(): readonly string[] {
    return this.chosen?.model.vscodeLabels ?? [];
  }
}

/** What a preset adds to the system prompt's parts: its tool filter, when it lists tools. */
export function presetTools(preset: LoadedPreset): { offersTool?: (toolName: string) => boolean } {
  const tools = preset.tools;
  return tools ? { offersTool: (toolName) => tools.allows(toolName) } : {};
}
