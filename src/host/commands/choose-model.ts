/**
 * "Choose Provider and Model" and "Choose Preset": quick picks that write the user's settings
 * (openagent.provider / model / baseUrl, openagent.preset). The model list comes from the
 * server when it can tell (GET /v1/models), otherwise a name can be typed. The next prompt uses
 * the choice; the conversation carries on.
 */
import * as vscode from 'vscode';
import { createLlmClient } from '../../core/llm/create-llm-client';
import { PROVIDER_PRESETS } from '../../core/llm/provider-presets';
import type { SecretSource } from '../../core/ports';
import type { PresetLibrary } from '../../core/knowledge/presets';
import { CONFIG_SECTION, readModelSettings } from '../settings';
import { vscodeLmSurface } from '../llm/editor-lm-surface';
import { pickVscodeModel } from './vscode-lm-commands';

const TYPE_NAME = '$(edit) Type a model name…';

export async function chooseModel(secrets: SecretSource): Promise<void> {
  const current = readModelSettings();
  const provider = await vscode.window.showQuickPick(
    Object.values(PROVIDER_PRESETS).map((preset) => ({
      label: preset.label,
      description: preset.id === current.provider ? 'current' : preset.defaultModel || 'the models VS Code offers',
      id: preset.id,
    })),
    { placeHolder: 'Choose the provider OpenAgent talks to' },
  );
  if (!provider) return;
  // VS Code's models are listed by VS Code, with their vendor and family.
  if (provider.id === 'vscode') return saveChoice(provider, await pickVscodeModel(vscodeLmSurface(), current.model));
  const baseUrl = provider.id === current.provider ? current.baseUrl : '';
  const setup = createLlmClient(
    { provider: provider.id, model: 'probe', baseUrl },
    await secrets.getApiKey(provider.id),
  );
  const listed = setup.ok
    ? await vscode.window.withProgress(
        { location: vscode.ProgressLocation.Notification, title: `Asking ${provider.label} for its models…` },
        () => setup.client.listModels(AbortSignal.timeout(8_000)).catch(() => [] as string[]),
      )
    : [];
  const fallback = PROVIDER_PRESETS[provider.id].defaultModel;
  const choices = [...new Set([...(listed.length ? listed : fallback ? [fallback] : [])])];
  const picked = await vscode.window.showQuickPick([...choices, TYPE_NAME], {
    placeHolder: listed.length ? `Models ${provider.label} offers` : `${provider.label} did not list its models`,
  });
  if (!picked) return;
  const model =
    picked === TYPE_NAME
      ? await vscode.window.showInputBox({ prompt: `Model name for ${provider.label}`, value: current.model })
      : picked;
  await saveChoice(provider, model);
}

async function saveChoice(provider: { id: string; label: string }, model: string | undefined): Promise<void> {
  if (!model) return;
  const current = readModelSettings();
  const config = vscode.workspace.getConfiguration(CONFIG_SECTION);
  await config.update('provider', provider.id, vscode.ConfigurationTarget.Global);
  await config.update('model', model.trim(), vscode.ConfigurationTarget.Global);
  if (provider.id !== current.provider) await config.update('baseUrl', '', vscode.ConfigurationTarget.Global);
  void vscode.window.showInformationMessage(`OpenAgent will answer with ${provider.label} · ${model.trim()}.`);
}

export async function choosePreset(presets: PresetLibrary): Promise<void> {
  const config = vscode.workspace.getConfiguration(CONFIG_SECTION);
  const current = config.get<string>('preset', 'coding');
  // Custom agents (.github/agents, .claude/agents) show where they come from and what they do.
  const { entries } = await presets.catalog();
  const picked = await vscode.window.showQuickPick(
    entries.map((entry) => ({
      label: entry.name,
      description: [entry.name === current ? 'current' : '', entry.source === 'bundled' ? '' : entry.source]
        .filter(Boolean)
        .join(' · '),
      ...(entry.description ? { detail: entry.description } : {}),
    })),
    { placeHolder: 'Choose the preset (system prompt or custom agent) for new conversations', matchOnDetail: true },
  );
  if (!picked) return;
  await config.update('preset', picked.label, vscode.ConfigurationTarget.Global);
  void vscode.window.showInformationMessage(`New conversations use the "${picked.label}" preset.`);
}
