/**
 * Resolves the user's model settings into a ready LlmClient, or into a plain explanation of
 * what is missing. Hosts (extension, CLI) supply the settings and the key lookup.
 */
import type { LlmClient } from './llm-client';
import { AnthropicClient } from './anthropic/anthropic-client';
import { OpenAiClient } from './openai/openai-client';
import { OpenAiServerInfo } from './openai/server-info';
import { isProviderId, PROVIDER_PRESETS, type ProviderPreset } from './provider-presets';
import { displayAddress } from './server-address';
import { EDITOR_ONLY_MESSAGE, type EditorModels } from './editor-models';

export interface ModelSettings {
  provider: string;
  /** Empty means the provider's default model. */
  model: string;
  /** Empty means the provider's default address. */
  baseUrl: string;
}

export type ModelSetup =
  | { ok: true; client: LlmClient; model: string; preset: ProviderPreset; baseUrl: string | undefined }
  | {
      ok: false;
      reason: 'unknown_provider' | 'missing_api_key' | 'missing_base_url' | 'editor_only';
      message: string;
      preset?: ProviderPreset;
    };

/** Local OpenAI-compatible servers ignore the key, but the SDK insists on a non-empty one. */
const KEY_FOR_KEYLESS_SERVERS = 'not-needed';

/** How the client talks to the server, beyond the settings. */
export interface ConnectionOptions {
  /** How long a streamed answer may go without progress (see idle-watchdog.ts). */
  idleTimeoutMs?: number;
  /** How long an answer under way may pause before it is said to (default 10 s). */
  silenceNoticeMs?: number;
  /** How long a local server's window and token count are waited for (default 5 s). */
  probeTimeoutMs?: number;
}

export function createLlmClient(
  settings: ModelSettings,
  apiKey: string | undefined,
  connection: ConnectionOptions = {},
  /** The editor's own models (the "vscode" provider); absent outside the editor. */
  editorModels?: EditorModels,
): ModelSetup {
  const providerId = settings.provider.trim();
  if (!isProviderId(providerId)) {
    const known = Object.keys(PROVIDER_PRESETS).join(', ');
    return {
      ok: false,
      reason: 'unknown_provider',
      message: `Unknown provider "${providerId}". Choose one of: ${known}.`,
    };
  }
  const preset = PROVIDER_PRESETS[providerId];
  const baseUrl = settings.baseUrl.trim() || preset.defaultBaseUrl;
  const model = settings.model.trim() || preset.defaultModel;
  const key = apiKey?.trim();

  if (preset.protocol === 'editor') {
    if (!editorModels) return { ok: false, reason: 'editor_only', preset, message: EDITOR_ONLY_MESSAGE };
    return { ok: true, client: editorModels.client(model), model, preset, baseUrl: undefined };
  }
  if (preset.id === 'openai-compatible' && !baseUrl) {
    return {
      ok: false,
      reason: 'missing_base_url',
      preset,
      message:
        'The OpenAI-compatible provider needs a base URL: set "openagent.baseUrl" (for example http://localhost:8080/v1).',
    };
  }
  if (preset.requiresApiKey && !key) {
    const envHint = preset.apiKeyEnvVar ? ` (or set ${preset.apiKeyEnvVar} in the environment)` : '';
    return {
      ok: false,
      reason: 'missing_api_key',
      preset,
      message:
        `OpenAgent needs a model to talk to. Set your ${preset.label} API key with "OpenAgent: Set API Key"${envHint}, ` +
        'or choose a local provider such as Ollama or LM Studio in the settings.',
    };
  }

  const client =
    preset.protocol === 'anthropic'
      ? new AnthropicClient({
          apiKey: key ?? '',
          baseUrl,
          idleTimeoutMs: connection.idleTimeoutMs,
          silenceNoticeMs: connection.silenceNoticeMs,
        })
      : new OpenAiClient({
          provider: preset.id,
          // The address without credentials: the label appears in every message and trace.
          label:
            baseUrl && preset.id !== 'openai'
              ? `${preset.label} at ${displayAddress(baseUrl) ?? baseUrl}`
              : preset.label,
          apiKey: key || KEY_FOR_KEYLESS_SERVERS,
          baseUrl,
          idleTimeoutMs: connection.idleTimeoutMs,
          silenceNoticeMs: connection.silenceNoticeMs,
          // Local engines (and unknown compatible servers) can be asked about their window.
          server:
            baseUrl && preset.id !== 'openai'
              ? new OpenAiServerInfo(preset.id, baseUrl, { timeoutMs: connection.probeTimeoutMs })
              : undefined,
        });
  return { ok: true, client, model, preset, baseUrl };
}
