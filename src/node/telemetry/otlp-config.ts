/**
 * Where telemetry goes: the collector's address and headers, from the environment (the CLI:
 * OPENAGENT_OTLP_ENDPOINT, else the standard OTEL_EXPORTER_OTLP_ENDPOINT, with
 * OTEL_EXPORTER_OTLP_HEADERS) or from the editor's user settings (src/host/telemetry-export.ts).
 */
export interface OtlpDestination {
  /** The collector's base URL, without the /v1/traces path. */
  endpoint: string;
  headers: Record<string, string>;
}

/** The destination the environment names; undefined when none is set (or the SDK is disabled). */
export function otlpDestinationFromEnv(env: NodeJS.ProcessEnv): OtlpDestination | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const endpoint = otlpEndpoint(env.OPENAGENT_OTLP_ENDPOINT) ?? otlpEndpoint(env.OTEL_EXPORTER_OTLP_ENDPOINT);
  if (!endpoint) return undefined;
  return { endpoint, headers: parseOtlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS ?? '') };
}

/** An http(s) base URL, trailing slashes dropped; undefined for anything else. */
export function otlpEndpoint(value: string | undefined): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  try {
    const url = new URL(text);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return text.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}

/**
 * OTEL_EXPORTER_OTLP_HEADERS: `key1=value1,key2=value2`, values percent-encoded (the
 * OpenTelemetry environment variable format). Malformed pairs are skipped.
 */
export function parseOtlpHeaders(text: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of text.split(',')) {
    const at = pair.indexOf('=');
    if (at <= 0) continue;
    const name = pair.slice(0, at).trim();
    const value = decodeOrKeep(pair.slice(at + 1).trim());
    if (name && value) headers[name] = value;
  }
  return headers;
}

/** Headers from a settings object: string values only. */
export function headersFromSetting(value: unknown): Record<string, string> {
  const headers: Record<string, string> = {};
  if (!value || typeof value !== 'object' || Array.isArray(value)) return headers;
  for (const [name, entry] of Object.entries(value)) if (typeof entry === 'string' && name) headers[name] = entry;
  return headers;
}

function decodeOrKeep(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
