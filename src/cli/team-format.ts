/** How `openagent team` prints: plain tables for people, JSON lines and CSV for tools. */
import type { TeamAudit, TeamUsageRow } from '../core/team/team-store';

/** Columns padded to their widest cell; numbers right-aligned. */
export function table(header: string[], rows: string[][], numeric: boolean[] = []): string {
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: string[]) =>
    cells
      .map((cell, column) => (numeric[column] ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  return [line(header), ...rows.map(line)].join('\n');
}

export function usageTable(rows: TeamUsageRow[]): string {
  const total = rows.reduce(
    (sum, row) => ({
      member: 'total',
      calls: sum.calls + row.calls,
      inputTokens: sum.inputTokens + row.inputTokens,
      outputTokens: sum.outputTokens + row.outputTokens,
      costUsd: sum.costUsd + row.costUsd,
    }),
    { member: 'total', calls: 0, inputTokens: 0, outputTokens: 0, costUsd: 0 },
  );
  const cells = (row: TeamUsageRow) => [
    row.member,
    String(row.calls),
    String(row.inputTokens),
    String(row.outputTokens),
    String(row.inputTokens + row.outputTokens),
    `$${row.costUsd.toFixed(2)}`,
  ];
  return table(
    ['MEMBER', 'CALLS', 'INPUT', 'OUTPUT', 'TOKENS', 'USD'],
    [...rows.map(cells), ...(rows.length > 1 ? [cells(total)] : [])],
    [false, true, true, true, true, true],
  );
}

export const AUDIT_CSV_HEADER = ['id', 'time', 'member', 'repository', 'conversation_id', 'kind', 'data'];

/** One audit record as a CSV line (RFC 4180: fields with commas, quotes or line breaks quoted). */
export function auditCsvLine(record: TeamAudit): string {
  return csvLine([
    record.id,
    new Date(record.time).toISOString(),
    record.member,
    record.repository ?? '',
    record.conversationId,
    record.kind,
    JSON.stringify(record.data),
  ]);
}

export function auditJsonLine(record: TeamAudit): string {
  return JSON.stringify({ ...record, time: new Date(record.time).toISOString() });
}

export function csvLine(fields: string[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

function csvField(text: string): string {
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** `--since`: a UTC day (YYYY-MM-DD) or an ISO time; undefined when it is neither. */
export function parseSince(text: string): number | undefined {
  const value = /^\d{4}-\d{2}-\d{2}$/.test(text) ? Date.parse(`${text}T00:00:00Z`) : Date.parse(text);
  return /^\d{4}-\d{2}-\d{2}/.test(text) && Number.isFinite(value) ? value : undefined;
}
