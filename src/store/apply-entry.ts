/**
 * How each journal entry changes the database: idempotent upserts and deletes, so replaying an
 * entry twice (after a crash between a fold and the journal's reset) changes nothing.
 */
import type { Database } from 'sql.js';
import type { AuditRecord, StoredConversation, StoredMessage, UsageRecord } from '../core/ports';
import type { JournalEntry } from './journal';
import { applyRecording, deleteRecording } from './recording-rows';
import { applyImage, copyImageUses, deleteImageUses } from './image-rows';

export function applyEntry(db: Database, entry: JournalEntry): void {
  switch (entry.op) {
    case 'conversation':
      saveConversation(db, entry.value);
      break;
    case 'fork': {
      const { conversation, copyUpTo, add } = entry.value;
      const parent = conversation.forkedFrom.conversationId;
      saveConversation(db, conversation);
      // Copied inside SQLite: one journal line however long the conversation is. The copies get
      // the fork's ids (`<fork>-<seq>`, as its recorder names messages); the events inside keep
      // the parent's id, which reopening replaces with the conversation's own.
      db.run(
        `INSERT OR REPLACE INTO messages (id, conversation_id, seq, role, content, created_at)
         SELECT ? || '-' || seq, ?, seq, role, content, created_at FROM messages WHERE conversation_id = ? AND seq <= ?`,
        [conversation.id, conversation.id, parent, copyUpTo],
      );
      for (const message of add) putMessage(db, message);
      copyImageUses(db, parent, conversation.id);
      break;
    }
    case 'rewind':
      db.run('DELETE FROM messages WHERE conversation_id = ? AND seq >= ?', [entry.conversationId, entry.fromSeq]);
      putMessage(db, entry.marker);
      break;
    case 'delete_conversation':
      for (const table of ['conversations', 'messages', 'usage', 'audit', 'checkpoints']) {
        db.run(`DELETE FROM ${table} WHERE ${table === 'conversations' ? 'id' : 'conversation_id'} = ?`, [entry.id]);
      }
      deleteRecording(db, entry.id);
      deleteImageUses(db, entry.id);
      break;
    case 'image':
    case 'image_use':
    case 'image_release':
      applyImage(db, entry);
      break;
    case 'recording':
      applyRecording(db, entry);
      break;
    case 'message':
      putMessage(db, entry.value);
      break;
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

function putMessage(db: Database, value: StoredMessage): void {
  db.run(
    'INSERT OR REPLACE INTO messages (id, conversation_id, seq, role, content, created_at) VALUES (?, ?, ?, ?, ?, ?)',
    [value.id, value.conversationId, value.seq, value.role, JSON.stringify(value.content ?? null), value.createdAt],
  );
}

/**
 * A conversation saved again keeps where it was forked from: a writer that does not know of forks
 * (a rename, the recorder's update of its time) leaves those columns as they are.
 */
function saveConversation(db: Database, value: StoredConversation): void {
  const origin = value.forkedFrom;
  db.run(
    `INSERT INTO conversations (id, title, created_at, updated_at, settings, parent_id, fork_seq, fork_reason)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (id) DO UPDATE SET title = excluded.title, created_at = excluded.created_at,
       updated_at = excluded.updated_at, settings = excluded.settings,
       parent_id = COALESCE(excluded.parent_id, parent_id), fork_seq = COALESCE(excluded.fork_seq, fork_seq),
       fork_reason = COALESCE(excluded.fork_reason, fork_reason)`,
    [
      value.id,
      value.title,
      value.createdAt,
      value.updatedAt,
      JSON.stringify(value.settings ?? {}),
      origin?.conversationId ?? null,
      origin?.seq ?? null,
      origin?.reason ?? null,
    ],
  );
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
