/**
 * The editor's OpenTelemetry export: on while `openagent.telemetry.otlpEndpoint` names a
 * collector in the user's settings, rebuilt when it changes. Only the user's own (global)
 * value counts — the settings are application-scoped and restricted in untrusted workspaces,
 * and this reads `globalValue` besides, so a cloned repository's .vscode/settings.json can
 * never send the user's traces to an address of its choosing.
 */
import type { HeldSecrets } from '../core/llm/held-secrets';
import * as vscode from 'vscode';
import type { AgentEvent } from '../core/events/events';
import { createGenAiTelemetry, type GenAiTelemetry } from '../node/telemetry/genai-telemetry';
import { providerBaseUrl } from '../node/telemetry/genai-conventions';
import { headersFromSetting, otlpEndpoint, parseOtlpHeaders } from '../node/telemetry/otlp-config';
import { readModelSettings, readProviderBaseUrls } from './settings';

const SECTION = 'openagent.telemetry';

export class TelemetryExport implements vscode.Disposable {
  private telemetry: GenAiTelemetry | undefined;
  /** The endpoint and headers the current exporter was made with. */
  private configured = '';
  private readonly listener: vscode.Disposable;
  private told = false;

  constructor(
    private readonly deps: {
      version: string;
      /** Every secret the extension holds: never sent, wherever they turn up; the headers join them. */
      secrets: HeldSecrets;
    },
  ) {
    this.configure();
    this.listener = vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(SECTION)) this.configure();
    });
  }

  /** One event of the session's stream. */
  readonly record = (event: AgentEvent): void => this.telemetry?.record(event);

  /** Sends what is left and stops (deactivation). */
  async shutdown(): Promise<void> {
    const telemetry = this.telemetry;
    this.telemetry = undefined;
    this.configured = '';
    await telemetry?.shutdown();
  }

  dispose(): void {
    this.listener.dispose();
    void this.shutdown();
  }

  private configure(): void {
    const config = vscode.workspace.getConfiguration(SECTION);
    const endpoint = otlpEndpoint(config.inspect<string>('otlpEndpoint')?.globalValue);
    // Headers from the environment VS Code started with, the user's settings over them.
    const headers = {
      ...parseOtlpHeaders(process.env.OTEL_EXPORTER_OTLP_HEADERS ?? ''),
      ...headersFromSetting(config.inspect<unknown>('otlpHeaders')?.globalValue),
    };
    const wanted = endpoint ? JSON.stringify([endpoint, headers]) : '';
    if (wanted === this.configured) return;
    const previous = this.telemetry;
    this.telemetry = undefined;
    this.configured = wanted;
    void previous?.shutdown();
    if (!endpoint) return;
    this.deps.secrets.addHeaders(headers);
    this.told = false;
    this.telemetry = createGenAiTelemetry({
      endpoint,
      headers,
      serviceName: 'openagent',
      serviceVersion: this.deps.version,
      secrets: this.deps.secrets.matcher,
      serverUrl: (provider) => providerBaseUrl(provider, readModelSettings(), readProviderBaseUrls()),
      onExportError: (error) => this.tell(endpoint, error),
    });
  }

  /** Once per configuration: a collector that is down must not nag at every batch. */
  private tell(endpoint: string, error: unknown): void {
    if (this.told) return;
    this.told = true;
    const reason = error instanceof Error ? error.message : String(error);
    void vscode.window.showWarningMessage(`OpenAgent could not send telemetry to ${endpoint}: ${reason}`);
  }
}
