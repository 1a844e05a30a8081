/**
 * The providers OpenAgent knows. Local servers speak the OpenAI Chat Completions protocol at
 * a default address; "openai-compatible" is any other such server, at a base URL the user gives.
 */
export type ProviderId =
  'anthropic' | 'openai' | 'ollama' | 'lmstudio' | 'llamacpp' | 'vllm' | 'openai-compatible' | 'vscode';

export interface ProviderPreset {
  id: ProviderId;
  label: string;
  /** "editor": the models VS Code offers (vscode.lm), reachable only inside the editor. */
  protocol: 'anthropic' | 'openai' | 'editor';
  /** Where the server listens by default; undefined means the vendor SDK's own default. */
  defaultBaseUrl?: string;
  defaultModel: string;
  /** Hosted APIs need a key; local servers accept any. */
  requiresApiKey: boolean;
  /** Environment variable read when no key is in secret storage. */
  apiKeyEnvVar?: string;
  /** Local servers are free to run. */
  local: boolean;
}

export const PROVIDER_PRESETS: Readonly<Record<ProviderId, ProviderPreset>> = {
  anthropic: {
    id: 'anthropic',
    label: 'Anthropic',
    protocol: 'anthropic',
    defaultModel: 'claude-sonnet-4-6',
    requiresApiKey: true,
    apiKeyEnvVar: 'ANTHROPIC_API_KEY',
    local: false,
  },
  openai: {
    id: 'openai',
    label: 'OpenAI',
    protocol: 'openai',
    defaultModel: 'gpt-4.1',
    requiresApiKey: true,
    apiKeyEnvVar: 'OPENAI_API_KEY',
    local: false,
  },
  ollama: {
    id: 'ollama',
    label: 'Ollama',
    protocol: 'openai',
    defaultBaseUrl: 'http://localhost:11434/v1',
    defaultModel: 'qwen3-coder',
    requiresApiKey: false,
    local: true,
  },
  lmstudio: {
    id: 'lmstudio',
    label: 'LM Studio',
    protocol: 'openai',
    defaultBaseUrl: 'http://localhost:1234/v1',
    defaultModel: 'qwen3-coder',
    requiresApiKey: false,
    local: true,
  },
  llamacpp: {
    id: 'llamacpp',
    label: 'llama.cpp server',
    protocol: 'openai',
    defaultBaseUrl: 'http://localhost:8080/v1',
    defaultModel: 'default',
    requiresApiKey: false,
    local: true,
  },
  vllm: {
    id: 'vllm',
    label: 'vLLM',
    protocol: 'openai',
    defaultBaseUrl: 'http://localhost:8000/v1',
    defaultModel: 'default',
    requiresApiKey: false,
    local: true,
  },
  'openai-compatible': {
    id: 'openai-compatible',
    label: 'OpenAI-compatible server',
    protocol: 'openai',
    defaultModel: 'default',
    requiresApiKey: false,
    apiKeyEnvVar: 'OPENAI_API_KEY',
    local: false,
  },
  vscode: {
    id: 'vscode',
    label: 'VS Code',
    protocol: 'editor',
    // Empty: the first chat model VS Code offers (Copilot's, or another extension's).
    defaultModel: '',
    requiresApiKey: false,
    local: false,
  },
};

export function isProviderId(value: string): value is ProviderId {
  return Object.hasOwn(PROVIDER_PRESETS, value);
}

/**
 * The model a user sees named for these settings: the model set, else the provider's default, or
 * for servers that serve whatever they loaded ("default"), the server's name.
 */
export function modelLabel(provider: string, model: string): string {
  const preset = isProviderId(provider.trim()) ? PROVIDER_PRESETS[provider.trim() as ProviderId] : undefined;
  const name = model.trim();
  if (name && name !== 'default') return name;
  if (!preset) return name || 'no model';
  return preset.defaultModel === 'default' || !preset.defaultModel ? preset.label : preset.defaultModel;
}
