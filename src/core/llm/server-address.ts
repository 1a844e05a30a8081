/**
 * The address of a model server as messages show it. A base URL may carry credentials
 * (`https://user:secret@host/v1`) or a key in its query (`?api-key=…`): neither belongs in a
 * chat message, a log or a trace, so only the scheme, host, port and path are kept.
 */

/** `https://host:port/path` without credentials, query or fragment; undefined if not a URL. */
export function displayAddress(baseUrl: string | undefined): string | undefined {
  if (!baseUrl) return undefined;
  let url: URL;
  try {
    url = new URL(baseUrl.trim());
  } catch {
    return undefined;
  }
  const path = url.pathname.replace(/\/+$/, '');
  return `${url.protocol}//${url.host}${path}`;
}

/**
 * "Ollama at http://localhost:11434/v1": the label with the address it was reached at, unless
 * the label already says it (OpenAI-compatible labels carry their address).
 */
export function nameWithAddress(label: string, address: string | undefined): string {
  return address && !label.includes(address) ? `${label} at ${address}` : label;
}
