import type { SecretSource } from '../core/ports';
import { isProviderId, PROVIDER_PRESETS } from '../core/llm/provider-presets';

/** API keys from environment variables (ANTHROPIC_API_KEY, OPENAI_API_KEY, OPENAGENT_API_KEY). */
export class EnvSecretSource implements SecretSource {
  constructor(private readonly env: NodeJS.ProcessEnv = process.env) {}

  async getApiKey(provider: string): Promise<string | undefined> {
    const variable = isProviderId(provider) ? PROVIDER_PRESETS[provider].apiKeyEnvVar : undefined;
    return (variable ? this.env[variable] : undefined) || this.env.OPENAGENT_API_KEY || undefined;
  }
}
