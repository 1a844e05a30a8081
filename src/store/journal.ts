/**
 * The store's write-ahead journal: every write is one JSON line appended (and fsynced) to a file
 * beside the SQLite snapshot, so a write costs the size of what changed, not of the whole
 * database. Lines begin with a newline: a write torn by a crash becomes a line of its own that
 * replay skips, and never spoils the next one. The first line names the snapshot generation the
 * journal applies to.
 */
import type { AuditRecord, StoredConversation, StoredMessage, UsageRecord } from '../core/ports';

export type JournalEntry =
  | { op: 'conversation'; value: StoredConversation }
  | { op: 'delete_conversation'; id: string }
  | { op: 'message'; value: StoredMessage }
  | { op: 'usage'; value: UsageRecord }
  | { op: 'audit'; value: AuditRecord };

export function journalHeader(generation: number): string {
  return `${JSON.stringify({ journal: 1, generation })}\n`;
}

export function encodeEntry(entry: JournalEntry): string {
  return `\n${JSON.stringify(entry)}`;
}

export interface ParsedJournal {
  generation: number | undefined;
  entries: JournalEntry[];
  /** Lines that did not parse (torn writes). */
  skipped: number;
}

/** Parses journal text from `start`; the header is read only when `start` is 0. */
export function parseJournal(text: string): ParsedJournal {
  const lines = text.split('\n');
  let generation: number | undefined;
  const entries: JournalEntry[] = [];
  let skipped = 0;
  for (const line of lines) {
    if (line === '') continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      skipped++;
      continue;
    }
    if (parsed && typeof parsed === 'object' && 'journal' in parsed) {
      generation = (parsed as unknown as { generation: number }).generation;
    } else if (parsed && typeof parsed === 'object' && 'op' in parsed) {
      entries.push(parsed as JournalEntry);
    } else {
      skipped++;
    }
  }
  return { generation, entries, skipped };
}
