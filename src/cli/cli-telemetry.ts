/**
 * The CLI's OpenTelemetry export: on when OPENAGENT_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_ENDPOINT
 * is set, one more consumer of the session's events. Nothing is loaded otherwise.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { ConversationSession } from '../core/session/conversation-session';
import { createGenAiTelemetry } from '../node/telemetry/genai-telemetry';
import { providerBaseUrl } from '../node/telemetry/genai-conventions';
import { otlpDestinationFromEnv } from '../node/telemetry/otlp-config';

export interface CliTelemetry {
  /** Sends what is left (bounded by the export timeout) and stops. */
  shutdown(): Promise<void>;
}

export function startCliTelemetry(
  session: ConversationSession,
  deps: {
    env: NodeJS.ProcessEnv;
    /** Read at each call: /model changes them. */
    settings: { provider: string; baseUrl?: string };
    /** Model routes' addresses (OPENAGENT_<PROVIDER>_BASE_URL). */
    routeBaseUrls: Record<string, string>;
    warn(message: string): void;
  },
): CliTelemetry | undefined {
  const destination = otlpDestinationFromEnv(deps.env);
  if (!destination) return undefined;
  let told = false;
  // The collector's headers may hold its key: held with every other secret.
  session.heldSecrets.addHeaders(destination.headers);
  const telemetry = createGenAiTelemetry({
    ...destination,
    serviceName: 'openagent-cli',
    serviceVersion: packageVersion(),
    secrets: session.heldSecrets.matcher,
    serverUrl: (provider) => providerBaseUrl(provider, deps.settings, deps.routeBaseUrls),
    // The address, never the headers: they may hold the backend's key.
    onExportError: (error) => {
      if (told) return;
      told = true;
      deps.warn(
        `openagent: could not send telemetry to ${destination.endpoint}: ${error instanceof Error ? error.message : String(error)}`,
      );
    },
    timeoutMs: 5_000,
  });
  const unsubscribe = session.onEvent((event) => telemetry.record(event));
  return {
    shutdown: async () => {
      unsubscribe();
      await telemetry.shutdown();
    },
  };
}

/** The version in package.json: beside dist/ when built, two levels up from src/cli. */
export function packageVersion(): string | undefined {
  for (const candidate of [
    path.join(__dirname, '..', 'package.json'),
    path.join(__dirname, '..', '..', 'package.json'),
  ]) {
    try {
      const manifest = JSON.parse(readFileSync(candidate, 'utf8')) as { name?: string; version?: string };
      if (manifest.name === 'openagent') return manifest.version;
    } catch {
      // Not there: the next place.
    }
  }
  return undefined;
}
