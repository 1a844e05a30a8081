/**
 * The store's write-ahead journal: every write is one JSON line appended (and fsynced) to a file
 * beside the SQLite snapshot, so a write costs the size of what changed, not of the whole
 * database. Lines begin with a newline: a write torn by a crash becomes a line of its own that
 * replay skips, and never spoils the next one. The first line names the snapshot generation the
 * journal applies to. Each entry line ends with a checksum of its JSON (` #` and 8 hex digits),
 * so a damaged byte anywhere — even one that still leaves valid JSON — is found, not replayed
 * as something else. Lines without one (written before checksums) are read as they are.
 */
import { constants } from 'node:buffer';
import { createHash } from 'node:crypto';
import type { AuditRecord, ForkCopy, StoredConversation, StoredMessage, UsageRecord } from '../core/ports';
import type { ImageEntry } from './image-rows';
import type { RecordingBatch } from './recording-rows';

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
  | { op: 'rewind'; conversationId: string; fromSeq: number; marker: StoredMessage }
  /** Recorded runs (replay): content, manifests and steps written together (recording-rows.ts). */
  | ({ op: 'recording' } & RecordingBatch)
  /** Images (issue 36), kept once by sha256, and the conversations that use them (image-rows.ts). */
  | ImageEntry;

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

/**
 * The longest line decoded: a longer one cannot be a line this code wrote (it was one string),
 * and decoding it would throw (a journal of gigabytes with no newline, a sparse file).
 */
const LONGEST_LINE = constants.MAX_STRING_LENGTH;

/** The journal's first line (its header), decoded alone: never the whole file as one string. */
export function firstLine(bytes: Buffer): string {
  const end = bytes.indexOf(0x0a);
  const length = end === -1 ? bytes.length : end;
  return length > LONGEST_LINE ? '' : bytes.toString('utf8', 0, length);
}

/**
 * Parses journal bytes (the header is read only when they start at 0). Line by line, never the
 * whole file as one string: a journal larger than the longest string JavaScript holds is still
 * read, and a line too long to be one of ours counts as damaged instead of failing the read.
 */
export function parseJournal(bytes: Buffer): ParsedJournal {
  const lines: Array<[number, number]> = [];
  for (let start = 0; start <= bytes.length;) {
    const newline = bytes.indexOf(0x0a, start);
    const end = newline === -1 ? bytes.length : newline;
    if (end > start) lines.push([start, end]);
    start = end + 1;
  }
  let generation: number | undefined;
  let snapshot: string | undefined;
  const entries: JournalEntry[] = [];
  let skipped = 0;
  let damaged = 0;
  const last = lines.length - 1;
  lines.forEach(([start, end], index) => {
    const bad = (certain = false) => {
      skipped++;
      // Only the last line can be a write torn by a crash, and only if it stops short.
      if (index !== last || certain) damaged++;
    };
    if (end - start > LONGEST_LINE) return bad(true);
    const raw = bytes.toString('utf8', start, end);
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
