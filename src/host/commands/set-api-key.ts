import * as vscode from 'vscode';
import { PROVIDER_PRESETS, isProviderId } from '../../core/llm/provider-presets';
import type { SecretStorageSource } from '../secret-storage-source';
import { readModelSettings } from '../settings';

/** Asks for an API key (masked) and keeps it in SecretStorage, never in settings. */
export async function setApiKey(secrets: SecretStorageSource): Promise<boolean> {
  const current = readModelSettings().provider;
  const choices = Object.values(PROVIDER_PRESETS)
    .filter((preset) => preset.requiresApiKey || preset.id === 'openai-compatible')
    .map((preset) => ({
      label: preset.label,
      description: preset.id === current ? 'current provider' : undefined,
      id: preset.id,
    }));
  const preferred = isProviderId(current) && choices.some((choice) => choice.id === current) ? current : undefined;
  const picked = preferred
    ? choices.find((choice) => choice.id === preferred)
    : await vscode.window.showQuickPick(choices, { title: 'OpenAgent: which provider is the key for?' });
  if (!picked) return false;
  const key = await vscode.window.showInputBox({
    title: `OpenAgent: ${picked.label} API key`,
    prompt: 'Stored in VS Code secret storage, never in settings files.',
    password: true,
    ignoreFocusOut: true,
    validateInput: (value) =>
      value.trim() === '' ? 'Enter a key' : /\s/.test(value.trim()) ? 'A key has no spaces' : undefined,
  });
  if (key === undefined) return false;
  await secrets.setApiKey(picked.id, key.trim());
  void vscode.window.showInformationMessage(`OpenAgent: ${picked.label} API key saved.`);
  return true;
}
