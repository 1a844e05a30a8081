/** Rows of the store's tables as the ports' types. */
import type { SqlValue } from 'sql.js';
import type { AuditRecord, StoredConversation, StoredMessage, TeamOutboxItem, UsageTotals } from '../core/ports';

export function parseStored(value: SqlValue | undefined, fallback: unknown): unknown {
  try {
    return JSON.parse(String(value)) as unknown;
  } catch {
    return fallback;
  }
}

export function toConversation(row: Record<string, SqlValue>): StoredConversation {
  return {
    id: String(row.id),
    title: String(row.title),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    settings: parseStored(row.settings, {}) as Record<string, unknown>,
  };
}

/** `WHERE a = ? AND b = ?` for the filters that are set. Column names are ours, never input. */
export function whereClause(filters: Array<[column: string, value: string | undefined]>): {
  sql: string;
  parameters: SqlValue[];
} {
  const set = filters.filter((filter): filter is [string, string] => filter[1] !== undefined && filter[1] !== '');
  return {
    sql: set.length > 0 ? `WHERE ${set.map(([column]) => `${column} = ?`).join(' AND ')}` : '',
    parameters: set.map(([, value]) => value),
  };
}

export function toMessage(row: Record<string, SqlValue>): StoredMessage {
  return {
    id: String(row.id),
    conversationId: String(row.conversation_id),
    seq: Number(row.seq),
    role: row.role as StoredMessage['role'],
    content: parseStored(row.content, { damaged: 'This message was damaged on disk and could not be read.' }),
    createdAt: Number(row.created_at),
  };
}

export function toAudit(row: Record<string, SqlValue>): AuditRecord {
  return {
    id: String(row.id),
    conversationId: String(row.conversation_id),
    time: Number(row.time),
    kind: row.kind as AuditRecord['kind'],
    data: parseStored(row.data, { damaged: true }) as Record<string, unknown>,
  };
}

export function toTotals(row: Record<string, SqlValue> | undefined): UsageTotals {
  return {
    calls: Number(row?.calls ?? 0),
    inputTokens: Number(row?.input ?? 0),
    outputTokens: Number(row?.output ?? 0),
    cacheReadTokens: Number(row?.cache_read ?? 0),
    cacheWriteTokens: Number(row?.cache_write ?? 0),
    costUsd: Number(row?.cost ?? 0),
  };
}

/** An outbox row; a damaged one (it cannot be sent as it was) is left out. */
export function toOutboxItem(row: Record<string, SqlValue>): TeamOutboxItem[] {
  const record = parseStored(row.record, undefined) as TeamOutboxItem['record'] | undefined;
  if (!record || typeof record !== 'object' || !record.team) return [];
  return [{ key: String(row.key), kind: row.kind === 'usage' ? 'usage' : 'audit', record } as TeamOutboxItem];
}
