/**
 * The store's write-ahead journal: every write is one JSON line appended (and fsynced) to a file
 * beside the SQLite snapshot, so a write costs the size of what changed, not of the whole
 * database. Lines begin with a newline: a write torn by a crash becomes a line of its own that
 * replay skips, and never spoils the next one. The first line names the snapshot generation the
 * journal applies to. Each entry line ends with a checksum of its JSON (` #` and 8 hex digits),
 * so a damaged byte anywhere — even one that still leaves valid JSON — is found, not replayed
 * as something else. Lines without one (written before checksums) are read as they are.
 */
import { createHash } from 'node:crypto';
import type { AuditRecord, ForkCopy, StoredConversation, StoredMessage, UsageRecord } from '../core/ports';

export type JournalEntry =
  | { op: 'conversation'; value: StoredConversation }
  | { op: 'delete_conversation'; id: string }
  | { op: 'message'; value: StoredMessage }
  | { op: 'usage'; value: UsageRecord }
  | { op: 'audit'; value: AuditRecord }
  /** Outbox records the team database has received (SPEC 5a). */
  | { op: 'team_delivered'; keys: string[] }
  /** Outbox records the team database refused for their content: kept, no longer sent. */
  | { op: 'team_refused'; keys: string[]; reason: string }
  /** A fork (SPEC 5b): the parent's messages up to a seq copied into a new conversation. */
  | { op: 'fork'; value: ForkCopy }
  /** A conversation taken back to before `fromSeq` (its later part saved as a fork first). */
  | { op: 'rewind'; conversationId: string; fromSeq: number; marker: StoredMessage };

/**
 * The first line: the snapshot generation the journal applies to, and a hash of that snapshot
 * file (SQLite pages carry no checksum: a damaged byte in a record would go unnoticed).
 */
export function journalHeader(generation: number, snapshot?: Uint8Array): string {
  return `${JSON.stringify({ journal: 1, generation, ...(snapshot ? { snapshot: snapshotHash(snapshot) } : {}) })}\n`;
}

export function snapshotHash(snapshot: Uint8Array): string {
  return createHash('sha256').update(snapshot).digest('hex').slice(0, 16);
}

/** Whether a first line is a header this code wrote (the generation alone, or with the hash). */
export function isJournalHeader(line: string): boolean {
  return /^\{"journal":1,"generation":\d+(,"snapshot":"[0-9a-f]{16}")?\}$/.test(line);
}

export function encodeEntry(entry: JournalEntry): string {
  const json = JSON.stringify(entry);
  return `\n${json} #${checksum(json)}`;
}

function checksum(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 8);
}

const CHECKED = / #([0-9a-f]{8})$/;

export interface ParsedJournal {
  generation: number | undefined;
  /** The hash of the snapshot the header was written with, if it has one. */
  snapshot: string | undefined;
  entries: JournalEntry[];
  /** Lines that did not parse or failed their checksum (torn writes, damage). */
  skipped: number;
  /** Damaged lines before the last one: a torn write can only be the last. */
  damaged: number;
}

/** Parses journal text from `start`; the header is read only when `start` is 0. */
export function parseJournal(text: string): ParsedJournal {
  const lines = text.split('\n');
  let generation: number | undefined;
  let snapshot: string | undefined;
  const entries: JournalEntry[] = [];
  let skipped = 0;
  let damaged = 0;
  const last = lines.findLastIndex((line) => line !== '');
  lines.forEach((raw, index) => {
    if (raw === '') return;
    const bad = (certain = false) => {
      skipped++;
      // Only the last line can be a write torn by a crash, and only if it stops short.
      if (index !== last || certain) damaged++;
    };
    const sum = CHECKED.exec(raw);
    const line = sum ? raw.slice(0, -sum[0].length) : raw;
    // A complete line whose checksum does not match is damage, not a torn write.
    if (sum && checksum(line) !== sum[1]) return bad(true);
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return bad();
    }
    if (parsed && typeof parsed === 'object' && 'journal' in parsed) {
      ({ generation, snapshot } = parsed as unknown as { generation: number; snapshot?: string });
    } else if (parsed && typeof parsed === 'object' && 'op' in parsed) {
      entries.push(parsed as JournalEntry);
    } else bad();
  });
  return { generation, snapshot, entries, skipped, damaged };
}
