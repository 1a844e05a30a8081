import * as vscode from 'vscode';
import { SANDBOX_MODES, stricterSandbox, type SandboxMode } from '../core/policy/sandbox-modes';
import type { AgentLimits } from '../core/agent/agent-loop';
import type { ConnectionOptions, ModelSettings } from '../core/llm/create-llm-client';

export const CONFIG_SECTION = 'openagent';

/** The model settings as the user set them (workspace values are ignored when untrusted). */
export function readModelSettings(): ModelSettings {
  const config = vscode.workspace.getConfiguration(CONFIG_SECTION);
  return {
    provider: config.get<string>('provider', 'anthropic'),
    model: config.get<string>('model', ''),
    baseUrl: config.get<string>('baseUrl', ''),
  };
}

/** Addresses of providers the model policy routes to (provider id → base URL); invalid entries are left out. */
export function readProviderBaseUrls(): Record<string, string> {
  const value = vscode.workspace.getConfiguration(CONFIG_SECTION).get<unknown>('providerBaseUrls');
  if (!value || typeof value !== 'object') return {};
  return Object.fromEntries(
    Object.entries(value).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && /^https?:\/\//.test(entry[1]),
    ),
  );
}

/** Fires when any model setting changes. */
export function onModelSettingsChanged(listener: () => void): vscode.Disposable {
  return vscode.workspace.onDidChangeConfiguration((event) => {
    if (event.affectsConfiguration(CONFIG_SECTION)) listener();
  });
}

/** The agent's limits from settings; zero means "not set" for the budget and the window. */
export function readLimits(): Partial<AgentLimits> {
  const config = vscode.workspace.getConfiguration(CONFIG_SECTION);
  const positive = (key: string) => {
    const value = config.get<number>(key, 0);
    return Number.isFinite(value) && value > 0 ? value : undefined;
  };
  return {
    maxTurns: positive('maxTurns'),
    maxOutputTokens: positive('maxOutputTokens'),
    tokenBudget: positive('tokenBudget'),
    compactThreshold: positive('compactThreshold'),
    contextWindow: positive('contextWindow'),
    callCostWarningUsd: positive('callCostWarningUsd'),
  };
}

/** How clients talk to model servers: the stream idle timeout (openagent.streamIdleTimeoutSeconds). */
export function readConnection(): ConnectionOptions {
  const seconds = vscode.workspace.getConfiguration(CONFIG_SECTION).get<number>('streamIdleTimeoutSeconds', 120);
  return Number.isFinite(seconds) && seconds > 0 ? { idleTimeoutMs: seconds * 1000 } : {};
}

/** The globs of `files.exclude` that are switched on, for searches to leave out too. */
export function filesExcludeGlobs(): string[] {
  const exclude = vscode.workspace.getConfiguration('files').get<Record<string, unknown>>('exclude') ?? {};
  return Object.entries(exclude)
    .filter(([, on]) => on === true)
    .map(([glob]) => glob);
}

/** Whether new conversations start in plan mode. */
export function readPlanModeDefault(): boolean {
  return vscode.workspace.getConfiguration(CONFIG_SECTION).get<boolean>('planMode', false);
}

/**
 * `openagent.sandbox`: the user's choice, which a workspace (folder) value can make stricter but
 * never looser — a cloned repository's `.vscode/settings.json` cannot turn the sandbox off.
 */
export function readSandboxSetting(): SandboxMode {
  const inspected = vscode.workspace.getConfiguration(CONFIG_SECTION).inspect<string>('sandbox');
  const valid = (value: string | undefined): SandboxMode | undefined =>
    (SANDBOX_MODES as readonly string[]).includes(value ?? '') ? (value as SandboxMode) : undefined;
  const user = valid(inspected?.globalValue) ?? 'auto';
  const workspace = [valid(inspected?.workspaceValue), valid(inspected?.workspaceFolderValue)].filter(
    (mode): mode is SandboxMode => mode !== undefined && mode !== 'off',
  );
  return workspace.reduce<SandboxMode>((mode, other) => stricterSandbox(mode, other) ?? mode, user);
}
