/** Rows of the store's tables as the ports' types. */
import type { SqlValue } from 'sql.js';
import type { AuditRecord, StoredConversation, StoredMessage, TeamOutboxItem, UsageTotals } from '../core/ports';
import type { JournalEntry } from './journal';

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
    ...(typeof row.parent_id === 'string' && row.parent_id
      ? {
          forkedFrom: {
            conversationId: row.parent_id,
            seq: Number(row.fork_seq ?? -1),
            reason: row.fork_reason === 'rewind' ? ('rewind' as const) : ('fork' as const),
          },
        }
      : {}),
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

/**
 * For replaying a journal of unknown age: the version of what `entry` writes that the store
 * already has (`current`: NaN when it has none, Infinity when any copy is as new as it gets) and
 * the entry's own (`time`).
 */
export function storedVersion(
  entry: JournalEntry,
  rows: (query: string, parameters: SqlValue[]) => Array<Record<string, SqlValue>>,
): { current: number; time: number } {
  const exists = (query: string, id: string) => (rows(query, [id]).length > 0 ? Infinity : NaN);
  switch (entry.op) {
    case 'conversation':
      return {
        current: Number(rows('SELECT updated_at AS t FROM conversations WHERE id = ?', [entry.value.id])[0]?.t ?? NaN),
        time: entry.value.updatedAt,
      };
    case 'message':
      return {
        current: Number(rows('SELECT created_at AS t FROM messages WHERE id = ?', [entry.value.id])[0]?.t ?? NaN),
        time: entry.value.createdAt,
      };
    case 'usage':
    case 'audit':
      return { current: exists(`SELECT 1 AS t FROM ${entry.op} WHERE id = ?`, entry.value.id), time: 0 };
    case 'fork':
      // A fork already there has gone on since: it is not copied again.
      return { current: exists('SELECT 1 FROM conversations WHERE id = ?', entry.value.conversation.id), time: 0 };
    default:
      return { current: NaN, time: 0 };
  }
}
