/**
 * A custom agent's `model:` in our providers' terms. It may name a model of ours
 * (`anthropic/claude-opus-4-5`, `ollama/qwen3`), a Claude model (`claude-…`), Claude Code's
 * families (`sonnet`, `opus`, `haiku`: the Anthropic provider's models) or `inherit`; or a
 * model label of VS Code's own picker ("Claude Sonnet 4 (copilot)"), which only VS Code's
 * models can answer to: that label is kept for them and reported unused here. VS Code allows a
 * list (the first available is used); so do we. A model that cannot be used (no key for its
 * provider, no address) is reported, and the user's model answers.
 */
import { createLlmClient, type ModelSettings } from '../llm/create-llm-client';
import { isProviderId, PROVIDER_PRESETS } from '../llm/provider-presets';
import { printable } from './custom-agent-tools';

/** Claude Code's model families, as the Anthropic provider's newest models of each. */
export const MODEL_FAMILIES: Readonly<Record<string, string>> = {
  sonnet: 'claude-sonnet-4-6',
  opus: 'claude-opus-4-5',
  haiku: 'claude-haiku-4-5',
};

/** Models read from one `model:` list. */
export const MAX_MODEL_NAMES = 10;

/** The `model:` field as a list of names; a problem when it is neither a string nor a list of them. */
export function modelNames(value: unknown): { names: string[]; problem?: string } {
  if (value === undefined || value === null) return { names: [] };
  const listed = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
  if (!listed || listed.some((name) => typeof name !== 'string'))
    return { names: [], problem: 'model must be a model name or a list of them; your model is used' };
  const names = (listed as string[]).map((name) => name.trim()).filter(Boolean);
  return { names: names.slice(0, MAX_MODEL_NAMES) };
}

/** What one name means to us. */
export type ModelReference =
  { kind: 'inherit' } | { kind: 'ours'; provider: string; model: string } | { kind: 'vscode'; label: string };

export function modelReference(name: string): ModelReference {
  const lower = name.toLowerCase();
  if (lower === 'inherit' || lower === 'default') return { kind: 'inherit' };
  if (Object.hasOwn(MODEL_FAMILIES, lower))
    return { kind: 'ours', provider: 'anthropic', model: MODEL_FAMILIES[lower]! };
  const slash = name.indexOf('/');
  if (slash > 0 && isProviderId(name.slice(0, slash)) && name.length > slash + 1)
    return { kind: 'ours', provider: name.slice(0, slash), model: name.slice(slash + 1) };
  if (/^claude-[a-z0-9.-]+$/.test(lower)) return { kind: 'ours', provider: 'anthropic', model: lower };
  return { kind: 'vscode', label: name };
}

export interface ModelChoiceDeps {
  /** The user's model settings (the model kept when the agent's cannot be used). */
  settings: ModelSettings;
  /** Addresses of providers other than the settings' one. */
  baseUrls: Readonly<Record<string, string>>;
  apiKey(provider: string): Promise<string | undefined>;
}

export interface ModelChoice {
  /** The settings the preset's conversations use; undefined: the user's. */
  settings?: ModelSettings;
  /** VS Code model labels the agent names, kept for a VS Code model provider. */
  vscodeLabels: string[];
  problems: string[];
}

/** The first of `names` we can route to, else the user's model, with what was not used and why. */
export async function chooseAgentModel(names: readonly string[], deps: ModelChoiceDeps): Promise<ModelChoice> {
  const problems: string[] = [];
  const vscodeLabels: string[] = [];
  for (const name of names) {
    const reference = modelReference(name);
    if (reference.kind === 'inherit') return { vscodeLabels, problems };
    if (reference.kind === 'vscode') {
      vscodeLabels.push(reference.label);
      problems.push(`the model "${printable(name)}" is a VS Code model name, which OpenAgent cannot route to here`);
      continue;
    }
    const { provider, model } = reference;
    const baseUrl =
      provider === deps.settings.provider.trim() ? deps.settings.baseUrl : (deps.baseUrls[provider] ?? '');
    const settings = { provider, model, baseUrl };
    const setup = createLlmClient(settings, await deps.apiKey(provider));
    if (setup.ok) return { settings, vscodeLabels, problems };
    problems.push(`the model ${provider}/${printable(model)} cannot be used: ${setup.message}`);
  }
  if (problems.length) problems.push(`your model (${describe(deps.settings)}) answers instead`);
  return { vscodeLabels, problems };
}

function describe(settings: ModelSettings): string {
  const provider = settings.provider.trim();
  const model = settings.model.trim() || (isProviderId(provider) ? PROVIDER_PRESETS[provider].defaultModel : '');
  return `${provider}/${model}`;
}
