/**
 * The store's schema, versioned with PRAGMA user_version. Each migration moves the schema one
 * version up; a store written by a newer OpenAgent is refused, never rewritten.
 */
export const MIGRATIONS: readonly string[] = [
  // 1: conversations, messages, usage, audit, checkpoints.
  `CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
   CREATE TABLE conversations (
     id TEXT PRIMARY KEY, title TEXT NOT NULL, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, settings TEXT NOT NULL);
   CREATE INDEX conversations_by_update ON conversations (updated_at DESC);
   CREATE TABLE messages (
     id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, seq INTEGER NOT NULL, role TEXT NOT NULL,
     content TEXT NOT NULL, created_at INTEGER NOT NULL);
   CREATE INDEX messages_by_conversation ON messages (conversation_id, seq);
   CREATE TABLE usage (
     id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL,
     input_tokens INTEGER NOT NULL, output_tokens INTEGER NOT NULL, cache_read_tokens INTEGER NOT NULL,
     cache_write_tokens INTEGER NOT NULL, cost_usd REAL NOT NULL, time INTEGER NOT NULL, day TEXT NOT NULL);
   CREATE INDEX usage_by_conversation ON usage (conversation_id);
   CREATE INDEX usage_by_model_day ON usage (model, day);
   CREATE TABLE audit (
     id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, time INTEGER NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL);
   CREATE INDEX audit_by_conversation ON audit (conversation_id, time);
   CREATE TABLE checkpoints (
     id TEXT PRIMARY KEY, conversation_id TEXT NOT NULL, turn_id TEXT NOT NULL, path TEXT NOT NULL,
     before BLOB, created_at INTEGER NOT NULL);`,
  // 2: the team outbox — usage and audit records the team database has not received yet.
  `CREATE TABLE team_outbox (key TEXT PRIMARY KEY, kind TEXT NOT NULL, record TEXT NOT NULL, time INTEGER NOT NULL);
   CREATE INDEX team_outbox_by_time ON team_outbox (time, key);`,
  // 3: outbox records the team database refused for what they hold: kept here, no longer sent.
  `ALTER TABLE team_outbox ADD COLUMN refused TEXT;`,
  // 4: forks (SPEC 5b) — the conversation a fork was copied from, the last message it shares with
  // it, and why it was made ('fork', or 'rewind' for the part an edited prompt left behind).
  // Empty for every conversation written before: they are roots of their own trees.
  `ALTER TABLE conversations ADD COLUMN parent_id TEXT;
   ALTER TABLE conversations ADD COLUMN fork_seq INTEGER;
   ALTER TABLE conversations ADD COLUMN fork_reason TEXT;
   CREATE INDEX conversations_by_parent ON conversations (parent_id);`,
  // 5: recorded runs (replay and compare): content kept once by its ref, which content refers to
  // which (so what no recording reaches can go), each conversation's manifest, steps and the
  // refs they hold. Conversations written before have no recording.
  `CREATE TABLE recording_content (ref TEXT PRIMARY KEY, json TEXT NOT NULL);
   CREATE TABLE recording_edges (parent TEXT NOT NULL, child TEXT NOT NULL, PRIMARY KEY (parent, child));
   CREATE TABLE recording_runs (conversation_id TEXT PRIMARY KEY, manifest TEXT NOT NULL, running INTEGER NOT NULL);
   CREATE TABLE recording_steps (
     conversation_id TEXT NOT NULL, step INTEGER NOT NULL, kind TEXT NOT NULL, data TEXT NOT NULL,
     PRIMARY KEY (conversation_id, step));
   CREATE TABLE recording_roots (conversation_id TEXT NOT NULL, ref TEXT NOT NULL, PRIMARY KEY (conversation_id, ref));`,
  // 6: images (issue 36), kept once by the sha256 of their bytes, and which conversation uses
  // which (so deleting the last conversation that uses an image frees it: image-rows.ts).
  `CREATE TABLE images (
     sha256 TEXT PRIMARY KEY, media_type TEXT NOT NULL, width INTEGER NOT NULL, height INTEGER NOT NULL,
     name TEXT, bytes BLOB NOT NULL, created_at INTEGER NOT NULL);
   CREATE TABLE image_uses (conversation_id TEXT NOT NULL, sha256 TEXT NOT NULL, PRIMARY KEY (conversation_id, sha256));
   CREATE INDEX image_uses_by_image ON image_uses (sha256);`,
];

export const SCHEMA_VERSION = MIGRATIONS.length;
