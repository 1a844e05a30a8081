import type * as vscode from 'vscode';
import type { SecretSource } from '../core/ports';

const keyName = (provider: string) => `openagent.apiKey.${provider}`;

/**
 * API keys from the editor's SecretStorage (OS keychain or equivalent), with the environment
 * as a fallback so a key exported in the shell works too. Keys never go anywhere else.
 */
export class SecretStorageSource implements SecretSource {
  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly fallback: SecretSource,
  ) {}

  async getApiKey(provider: string): Promise<string | undefined> {
    return (await this.secrets.get(keyName(provider))) || (await this.fallback.getApiKey(provider));
  }

  async setApiKey(provider: string, key: string): Promise<void> {
    await this.secrets.store(keyName(provider), key);
  }

  async deleteApiKey(provider: string): Promise<void> {
    await this.secrets.delete(keyName(provider));
  }
}
