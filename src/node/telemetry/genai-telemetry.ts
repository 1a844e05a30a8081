/**
 * Optional export of the agent's model and tool calls to an OpenTelemetry collector
 * (OTLP/HTTP), one more consumer of the event stream beside the store and the surfaces. This
 * file is the light front: the OpenTelemetry SDK (genai-exporter.ts) is loaded on the first
 * event, so a host without an endpoint — or one that never runs a prompt — never loads it.
 */
import type { AgentEvent } from '../../core/events/events';
import { lazyModule } from '../../core/lazy-module';
import type { KnownSecrets } from '../../core/llm/redact';
import type * as GenAiExporterModule from './genai-exporter';

/** The OpenTelemetry side, loaded on the first event to export (see lazy-module.ts). */
const genAiExporter = lazyModule(() => require('./genai-exporter') as typeof GenAiExporterModule);

export interface GenAiTelemetryOptions {
  /** The collector's base URL (e.g. http://localhost:4318); /v1/traces and /v1/metrics are added. */
  endpoint: string;
  /** Sent with every export (an API key of the observability backend): never logged. */
  headers: Record<string, string>;
  serviceName: string;
  serviceVersion?: string;
  /** Strings that must never leave the machine (API keys in use, the headers' values). */
  secrets: () => KnownSecrets;
  /** The base URL a provider's calls go to, for server.address / server.port. */
  serverUrl?: (provider: string) => string | undefined;
  /** An export failed or the SDK could not load; the host tells the user (once is enough). */
  onExportError?: (error: unknown) => void;
  /** How long spans wait to be sent in a batch (default 5 s) and metrics between sends (60 s). */
  spanDelayMs?: number;
  metricIntervalMs?: number;
  /** How long one export may take (default 10 s). */
  timeoutMs?: number;
}

export interface GenAiTelemetry {
  /** Takes one event of the stream; cheap, never throws. */
  record(event: AgentEvent): void;
  /** Sends what is recorded so far. */
  flush(): Promise<void>;
  /** Sends what is left and stops; later events are ignored. */
  shutdown(): Promise<void>;
}

interface Exporter {
  record(event: AgentEvent): void;
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

export function createGenAiTelemetry(options: GenAiTelemetryOptions): GenAiTelemetry {
  // Events older than this are a reopened conversation's history, not calls made now.
  const startedAt = Date.now();
  let loading: Promise<Exporter | undefined> | undefined;
  let exporter: Exporter | undefined;
  let stopped = false;
  const queued: AgentEvent[] = [];

  const load = (): Promise<Exporter | undefined> => {
    loading ??= Promise.resolve()
      .then(() => {
        const { GenAiExporter } = genAiExporter();
        exporter = new GenAiExporter({ ...options, startedAt });
        for (const event of queued.splice(0)) exporter.record(event);
        return exporter;
      })
      .catch((error: unknown) => {
        queued.length = 0;
        options.onExportError?.(error);
        return undefined;
      });
    return loading;
  };

  return {
    record(event) {
      if (stopped) return;
      try {
        if (exporter) exporter.record(event);
        else {
          queued.push(event);
          void load();
        }
      } catch (error) {
        // Telemetry must never break a run or the other subscribers.
        options.onExportError?.(error);
      }
    },
    async flush() {
      if (!loading) return;
      await (await loading)?.flush();
    },
    async shutdown() {
      stopped = true;
      if (!loading) return;
      await (await loading)?.shutdown();
    },
  };
}
