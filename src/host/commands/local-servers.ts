/**
 * First contact in the editor: the local model servers found on this machine (or where
 * OPENAGENT_LOCAL_SERVERS says to look), and switching OpenAgent to one of them in the user's
 * settings.
 */
import * as vscode from 'vscode';
import { discoverLocalServers, localServerCandidates, type LocalServer } from '../../core/llm/local-servers';
import { PROVIDER_PRESETS } from '../../core/llm/provider-presets';
import { CONFIG_SECTION } from '../settings';

export function findLocalServers(): Promise<LocalServer[]> {
  return discoverLocalServers(localServerCandidates(process.env.OPENAGENT_LOCAL_SERVERS));
}

/** Sets provider, address (empty when it is the provider's usual one) and model in the user's settings. */
export async function useLocalServer(server: LocalServer, model: string): Promise<void> {
  const config = vscode.workspace.getConfiguration(CONFIG_SECTION);
  const usual = PROVIDER_PRESETS[server.provider].defaultBaseUrl?.replace('localhost', '127.0.0.1');
  const target = vscode.ConfigurationTarget.Global;
  await config.update('provider', server.provider, target);
  await config.update('baseUrl', server.baseUrl === usual ? '' : server.baseUrl, target);
  await config.update('model', model, target);
  void vscode.window.showInformationMessage(`OpenAgent now uses ${model} on ${server.label} (${server.baseUrl}).`);
}
