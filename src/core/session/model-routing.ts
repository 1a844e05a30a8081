/**
 * Which model serves which kind of work for a prompt's run (SPEC 2.3): the policy's route for
 * the kind, else its default, else the settings. Servers are shared between kinds that use the
 * same one. A route that cannot be set up (a key missing for its provider) is a problem, named
 * after the route, in words for the user.
 */
import type { ModelBinding } from '../agent/agent-loop';
import { createLlmClient, type ConnectionOptions, type ModelSettings } from '../llm/create-llm-client';
import type { LlmClient } from '../llm/llm-client';
import type { EditorModels } from '../llm/editor-models';
import { routeModel, type ModelPolicy, type WorkKind } from '../policy/model-routes';
import type { SecretSource } from '../ports';

export interface ModelRoutingDeps {
  readSettings(): ModelSettings;
  /** How clients talk to servers (the stream idle timeout). */
  readConnection?(): ConnectionOptions;
  /** Which model serves which kind of work (policy as code). */
  modelPolicy?: () => ModelPolicy | undefined;
  /** Addresses of providers other than the one in the settings (provider → base URL). */
  providerBaseUrls?: () => Readonly<Record<string, string>>;
  secrets: SecretSource;
  /** The editor's own models (provider "vscode"); absent outside the editor. */
  editorModels?: EditorModels;
}

/** The models a prompt's run uses, one per kind of work. */
export interface RoutedModels {
  main: ModelBinding;
  work: WorkKind;
  compaction: ModelBinding;
  finalSummary: ModelBinding;
  subagent: ModelBinding;
  /** For the stored conversation's settings. */
  providerId: string;
  /** The API keys these models use, to redact from traces and the store. */
  apiKeys: string[];
}

/**
 * Why a prompt could not start a run, in words for the user. `stopped`: the user pressed Stop
 * while the run was being set up (the policy file, MCP servers, the store); the prompt was not sent.
 */
export interface SetupProblem {
  reason: 'unknown_provider' | 'missing_api_key' | 'missing_base_url' | 'editor_only' | 'stopped';
  message: string;
}

export const STOPPED_IN_SETUP: SetupProblem = {
  reason: 'stopped',
  message: 'Stopped before the agent began: the prompt was not sent.',
};

/** Read at every prompt, so a provider, key or route changed mid-chat applies to the next answer. */
export async function routeModels(deps: ModelRoutingDeps, work: WorkKind): Promise<RoutedModels | SetupProblem> {
  const settings = deps.readSettings();
  const policy = deps.modelPolicy?.();
  const baseUrls = deps.providerBaseUrls?.() ?? {};
  const clients = new Map<string, LlmClient>();
  const keys = new Set<string>();
  let providerId = settings.provider;
  const bind = async (kind: WorkKind): Promise<ModelBinding | SetupProblem> => {
    const route = routeModel(kind, settings, policy, baseUrls);
    const provider = route.settings.provider.trim();
    const apiKey = await deps.secrets.getApiKey(provider);
    const setup = createLlmClient(route.settings, apiKey, deps.readConnection?.(), deps.editorModels);
    if (!setup.ok) {
      const why =
        route.source === 'settings'
          ? setup.message
          : `The model policy sends ${kind.replace('_', ' ')} work to ${provider}/${route.settings.model}: ${setup.message}`;
      return { reason: setup.reason, message: why };
    }
    if (apiKey) keys.add(apiKey);
    if (kind === work) providerId = setup.preset.id;
    const server = `${setup.preset.id}\n${setup.baseUrl ?? ''}`;
    if (!clients.has(server)) clients.set(server, setup.client);
    return { llm: clients.get(server)!, model: setup.model };
  };
  const main = await bind(work);
  if ('reason' in main) return main;
  const compaction = await bind('compaction');
  if ('reason' in compaction) return compaction;
  const finalSummary = await bind('final_summary');
  if ('reason' in finalSummary) return finalSummary;
  const subagent = await bind('subagent');
  if ('reason' in subagent) return subagent;
  return { main, work, compaction, finalSummary, subagent, providerId, apiKeys: [...keys] };
}
