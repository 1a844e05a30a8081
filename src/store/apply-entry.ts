/**
 * How each journal entry changes the database: idempotent upserts and deletes, so replaying an
 * entry twice (after a crash between a fold and the journal's reset) changes nothing.
 */
import type { Database } from 'sql.js';
import type { AuditRecord, UsageRecord } from '../core/ports';
import type { JournalEntry } from './journal';

export function applyEntry(db: Database, entry: JournalEntry): void {
  switch (entry.op) {
    case 'conversation': {
      const value = entry.value;
      db.run(
        'INSERT OR REPLACE INTO conversations (id, title, created_at, updated_at, settings) VALUES (?, ?, ?, ?, ?)',
        [value.id, value.title, value.createdAt, value.updatedAt, JSON.stringify(value.settings ?? {})],
      );
      break;
    }
    case 'delete_conversation':
      for (const table of ['conversations', 'messages', 'usage', 'audit', 'checkpoints']) {
        db.run(`DELETE FROM ${table} WHERE ${table === 'conversations' ? 'id' : 'conversation_id'} = ?`, [entry.id]);
      }
      break;
    case 'message': {
      const value = entry.value;
      db.run(
        'INSERT OR REPLACE INTO messages (id, conversation_id, seq, role, content, created_at) VALUES (?, ?, ?, ?, ?, ?)',
        [value.id, value.conversationId, value.seq, value.role, JSON.stringify(value.content ?? null), value.createdAt],
      );
      break;
    }
    case 'usage': {
      const value = entry.value;
      keepForTeam(db, 'usage', value);
      db.run(
        'INSERT OR REPLACE INTO usage (id, conversation_id, provider, model, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_usd, time, day) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)',
        [
          value.id,
          value.conversationId,
          value.provider,
          value.model,
          value.inputTokens,
          value.outputTokens,
          value.cacheReadTokens,
          value.cacheWriteTokens,
          value.costUsd,
          value.time,
          new Date(value.time).toISOString().slice(0, 10),
        ],
      );
      break;
    }
    case 'team_delivered':
      for (const key of entry.keys) db.run('DELETE FROM team_outbox WHERE key = ?', [key]);
      break;
    case 'team_refused':
      for (const key of entry.keys) db.run('UPDATE team_outbox SET refused = ? WHERE key = ?', [entry.reason, key]);
      break;
    case 'audit': {
      const value = entry.value;
      keepForTeam(db, 'audit', value);
      db.run('INSERT OR REPLACE INTO audit (id, conversation_id, time, kind, data) VALUES (?, ?, ?, ?, ?)', [
        value.id,
        value.conversationId,
        value.time,
        value.kind,
        JSON.stringify(value.data ?? {}),
      ]);
      break;
    }
  }
}

/**
 * A record stamped for the team joins the outbox in the same entry that stores it, so it can
 * never be stored and not sent. Deleting its conversation leaves it in the outbox: the team's
 * audit trail keeps what happened. A replayed entry after delivery only sends it again, which
 * the team database ignores (same id).
 */
function keepForTeam(db: Database, kind: 'usage' | 'audit', value: UsageRecord | AuditRecord): void {
  if (!value.team) return;
  db.run('INSERT OR IGNORE INTO team_outbox (key, kind, record, time) VALUES (?, ?, ?, ?)', [
    `${kind}:${value.id}`,
    kind,
    JSON.stringify(value),
    value.time,
  ]);
}
