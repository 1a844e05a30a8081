/**
 * First contact: the local model servers running on this machine, found on their usual ports,
 * with the models they offer — so a user with no key set is offered what they already run
 * instead of an empty chat. Each probe is short and only talks to the loopback address.
 */
import { PROVIDER_PRESETS, type ProviderId } from './provider-presets';

export interface LocalServer {
  provider: ProviderId;
  /** "Ollama", "llama.cpp server", … */
  label: string;
  baseUrl: string;
  models: string[];
}

export interface LocalServerCandidate {
  provider: ProviderId;
  /** The server's OpenAI-compatible address (…/v1). */
  baseUrl: string;
}

/** Where each local engine listens unless told otherwise. */
export const USUAL_LOCAL_SERVERS: readonly LocalServerCandidate[] = (
  ['ollama', 'lmstudio', 'llamacpp', 'vllm'] as const
).map((provider) => ({
  provider,
  baseUrl: PROVIDER_PRESETS[provider].defaultBaseUrl!.replace('localhost', '127.0.0.1'),
}));

/**
 * Where to look instead, from OPENAGENT_LOCAL_SERVERS ("ollama=http://127.0.0.1:11500/v1,
 * llamacpp=http://127.0.0.1:9090/v1"): servers on other ports. Anything unreadable is skipped.
 */
export function localServerCandidates(setting: string | undefined): readonly LocalServerCandidate[] {
  if (!setting?.trim()) return USUAL_LOCAL_SERVERS;
  const candidates: LocalServerCandidate[] = [];
  for (const entry of setting.split(',')) {
    const match = /^\s*(ollama|lmstudio|llamacpp|vllm)\s*=\s*(https?:\/\/[^\s,]+)\s*$/.exec(entry);
    if (match) candidates.push({ provider: match[1] as ProviderId, baseUrl: match[2]! });
  }
  return candidates;
}

const PROBE_TIMEOUT_MS = 800;
const MAX_MODELS = 20;

/** The servers that answered, in the order given; servers that offer no model are left out. */
export async function discoverLocalServers(
  candidates: readonly LocalServerCandidate[] = USUAL_LOCAL_SERVERS,
  fetchImpl: typeof fetch = (...args) => fetch(...args),
): Promise<LocalServer[]> {
  const found = await Promise.all(candidates.map((candidate) => probe(candidate, fetchImpl)));
  return found.filter((server): server is LocalServer => server !== undefined && server.models.length > 0);
}

async function probe(candidate: LocalServerCandidate, fetchImpl: typeof fetch): Promise<LocalServer | undefined> {
  const root = candidate.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  // Ollama's own list has every pulled model; the others list theirs at /v1/models.
  const models =
    candidate.provider === 'ollama'
      ? names(await getJson(`${root}/api/tags`, fetchImpl), 'models', 'name')
      : names(await getJson(`${candidate.baseUrl.replace(/\/+$/, '')}/models`, fetchImpl), 'data', 'id');
  if (!models) return undefined;
  return {
    provider: candidate.provider,
    label: PROVIDER_PRESETS[candidate.provider].label,
    baseUrl: candidate.baseUrl,
    models: models.slice(0, MAX_MODELS),
  };
}

/** `body[list][*][key]` as printable names, or undefined when the body is not such a list. */
function names(body: unknown, list: string, key: string): string[] | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const items = (body as Record<string, unknown>)[list];
  if (!Array.isArray(items)) return undefined;
  return items
    .map((item) => (typeof item === 'object' && item !== null ? (item as Record<string, unknown>)[key] : undefined))
    .filter((name): name is string => typeof name === 'string' && /^[\x20-\x7e]{1,200}$/.test(name))
    .map((name) => name.replace(/:latest$/, ''));
}

async function getJson(url: string, fetchImpl: typeof fetch): Promise<unknown> {
  try {
    const response = await fetchImpl(url, { signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) });
    if (!response.ok) return undefined;
    const text = await response.text();
    return text.length > 1_000_000 ? undefined : (JSON.parse(text) as unknown);
  } catch {
    return undefined;
  }
}

/** One line per server: "Ollama at http://127.0.0.1:11434/v1: qwen3-coder, llama3.2". */
export function describeLocalServer(server: LocalServer): string {
  const shown = server.models
    .slice(0, 4)
    .map((model) => shortModelName(model))
    .join(', ');
  const more = server.models.length > 4 ? ` and ${server.models.length - 4} more` : '';
  return `${server.label} at ${server.baseUrl}: ${shown}${more}`;
}

/** A model's name short enough for a button: a file path (llama.cpp names models by path) by its file name. */
export function shortModelName(model: string, maxChars = 40): string {
  const name = model.split(/[\\/]/).pop() || model;
  return name.length > maxChars ? `${name.slice(0, maxChars - 1)}…` : name;
}
