/** How the developer panel writes numbers, costs, durations, times and JSON. No DOM. */

export function formatTokens(count: number): string {
  return Math.round(count).toLocaleString('en-US');
}

/** Dollars with enough digits to tell cheap calls apart (under $1: four); `~` marks an estimate. */
export function formatCost(usd: number, reported = true): string {
  const digits = usd !== 0 && Math.abs(usd) < 1 ? 4 : 2;
  return `${reported ? '' : '~'}$${usd.toFixed(digits)}`;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1000)} s`;
}

/** Local wall-clock time with milliseconds: 14:03:07.042. */
export function formatTime(epochMs: number): string {
  const date = new Date(epochMs);
  const pad = (value: number, width = 2) => String(value).padStart(width, '0');
  return `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}.${pad(date.getMilliseconds(), 3)}`;
}

/** Pretty JSON for any value; a string that is itself JSON (a tool input that did not parse) stays as it is. */
export function formatJson(value: unknown): string {
  if (value === undefined) return '(none)';
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value, null, 2) ?? String(value);
  } catch {
    return String(value);
  }
}

/** The one-line target of a tool call: its path, command, pattern or query. */
export function toolTarget(input: unknown): string | undefined {
  if (typeof input !== 'object' || input === null) return undefined;
  const fields = input as Record<string, unknown>;
  for (const key of ['command', 'path', 'pattern', 'query', 'symbol', 'url', 'jobId']) {
    const value = fields[key];
    if (typeof value === 'string' && value) return value.length > 120 ? `${value.slice(0, 119)}…` : value;
  }
  return undefined;
}
