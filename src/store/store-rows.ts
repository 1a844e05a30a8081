/** Rows of the store's tables as the ports' types. */
import type { SqlValue } from 'sql.js';
import type { StoredConversation } from '../core/ports';

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
