/**
 * Recorded runs in the store (RecordingStore of core/replay/recording.ts): content kept once by
 * its ref, each conversation's manifest and steps. Writes go through the store's journal like
 * every other (one `recording` entry per batch: what a step puts in the same moment — its
 * content and the step itself — is one durable line, applied together), so a crash loses nothing
 * written and reopening replays them. Content is kept as its canonical JSON text: a value
 * nested deeper than JSON.stringify can write is stored and read like any other.
 *
 * What content a conversation reaches is known from the refs its steps and manifest hold
 * (recording_roots) and the refs content holds (recording_edges); deleting a conversation
 * deletes its recording and then every content no remaining recording reaches.
 */
import type { Database, SqlValue } from 'sql.js';
import {
  canonicalJson,
  isContentRef,
  type ContentRef,
  type RecordedStep,
  type RecordingStore,
  type RunManifest,
  type RunRecording,
} from '../core/ports';
import type { JournalEntry } from './journal';

/** What one `recording` journal entry writes. */
export interface RecordingBatch {
  /** Canonical JSON texts by ref (only those the store did not have when the batch was made). */
  contents?: Array<{ ref: string; json: string }>;
  manifests?: RunManifest[];
  steps?: Array<{ conversationId: string; step: RecordedStep }>;
  running?: Array<{ conversationId: string; running: boolean }>;
}

const REFS = /sha256:[0-9a-f]{64}/g;

/** Every ref a text names (a content's or a step's JSON). */
function refsIn(json: string): string[] {
  return [...new Set(json.match(REFS) ?? [])];
}

export function applyRecording(db: Database, batch: RecordingBatch): void {
  for (const { ref, json } of batch.contents ?? []) {
    db.run('INSERT OR IGNORE INTO recording_content (ref, json) VALUES (?, ?)', [ref, json]);
    for (const child of refsIn(json))
      if (child !== ref) db.run('INSERT OR IGNORE INTO recording_edges (parent, child) VALUES (?, ?)', [ref, child]);
  }
  for (const manifest of batch.manifests ?? []) {
    const json = JSON.stringify(manifest);
    db.run(
      `INSERT INTO recording_runs (conversation_id, manifest, running) VALUES (?, ?, 0)
       ON CONFLICT (conversation_id) DO UPDATE SET manifest = excluded.manifest`,
      [manifest.conversationId, json],
    );
    roots(db, manifest.conversationId, json);
  }
  for (const { conversationId, step } of batch.steps ?? []) {
    const json = JSON.stringify(step);
    db.run('INSERT OR REPLACE INTO recording_steps (conversation_id, step, kind, data) VALUES (?, ?, ?, ?)', [
      conversationId,
      step.step,
      step.kind,
      json,
    ]);
    roots(db, conversationId, json);
  }
  for (const { conversationId, running } of batch.running ?? [])
    db.run('UPDATE recording_runs SET running = ? WHERE conversation_id = ?', [running ? 1 : 0, conversationId]);
}

function roots(db: Database, conversationId: string, json: string): void {
  for (const ref of refsIn(json))
    db.run('INSERT OR IGNORE INTO recording_roots (conversation_id, ref) VALUES (?, ?)', [conversationId, ref]);
}

/**
 * A conversation's recording goes with it, then all content no other recording reaches (its
 * roots and everything they refer to, followed through recording_edges).
 */
export function deleteRecording(db: Database, conversationId: string): void {
  for (const table of ['recording_runs', 'recording_steps', 'recording_roots'])
    db.run(`DELETE FROM ${table} WHERE conversation_id = ?`, [conversationId]);
  db.run(
    `DELETE FROM recording_content WHERE ref NOT IN (
       WITH RECURSIVE live(ref) AS (
         SELECT ref FROM recording_roots
         UNION SELECT recording_edges.child FROM recording_edges JOIN live ON recording_edges.parent = live.ref)
       SELECT ref FROM live)`,
  );
  db.run('DELETE FROM recording_edges WHERE parent NOT IN (SELECT ref FROM recording_content)');
}

export interface RecordingsDeps {
  /** Appends an entry to the journal and applies it; the entry is redacted already. */
  write(entry: JournalEntry): Promise<void>;
  /** Rows of a query, after bringing memory up to date with the files. */
  read(query: string, parameters: SqlValue[]): Promise<Array<Record<string, SqlValue>>>;
  /** The store's redaction, applied to every value before it is hashed into text or kept. */
  redact<T>(value: T): T;
}

/** How long puts gather before they are written: at most this much of a run is lost to a crash. */
const BATCH_MS = 100;

/** The most content refs asked about in one query. */
const REFS_PER_QUERY = 500;

/**
 * The RecordingStore of the sql.js store. Puts made in the same moment are gathered into one
 * journal entry (one append and fsync for a step's request, answer and the step itself);
 * content the store has already is not written again.
 */
export class SqlJsRecordings implements RecordingStore {
  private pending: Required<RecordingBatch> | undefined;
  private pendingDone: Promise<void> | undefined;
  /** The batch being written, and the end of the last one (batches are written in order). */
  private writing: Promise<void> = Promise.resolve();

  constructor(private readonly deps: RecordingsDeps) {}

  putContent(ref: ContentRef, value: unknown): Promise<void> {
    if (!isContentRef(ref)) return Promise.reject(new Error(`Not a content ref: ${String(ref).slice(0, 80)}`));
    let json: string;
    try {
      json = canonicalJson(this.deps.redact(value));
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error(String(error)));
    }
    return this.add((batch) => batch.contents.push({ ref, json }));
  }

  async getContent(ref: ContentRef): Promise<unknown> {
    const json = this.pendingContent(ref) ?? (await this.contentJson(ref));
    return json === undefined ? undefined : (JSON.parse(json) as unknown);
  }

  async hasContent(ref: ContentRef): Promise<boolean> {
    return this.pendingContent(ref) !== undefined || (await this.contentJson(ref)) !== undefined;
  }

  saveManifest(manifest: RunManifest): Promise<void> {
    const safe = this.deps.redact(manifest);
    return this.add((batch) => batch.manifests.push(safe));
  }

  putStep(conversationId: string, step: RecordedStep): Promise<void> {
    const safe = this.deps.redact(step);
    return this.add((batch) => batch.steps.push({ conversationId, step: safe }));
  }

  markRunning(conversationId: string, running: boolean): Promise<void> {
    return this.add((batch) => batch.running.push({ conversationId, running }));
  }

  async getRecording(conversationId: string): Promise<RunRecording | undefined> {
    await this.settled();
    const [run] = await this.deps.read('SELECT manifest, running FROM recording_runs WHERE conversation_id = ?', [
      conversationId,
    ]);
    if (!run) return undefined;
    const steps = await this.deps.read('SELECT data FROM recording_steps WHERE conversation_id = ? ORDER BY step', [
      conversationId,
    ]);
    return {
      manifest: JSON.parse(String(run.manifest)) as RunManifest,
      steps: steps.map((row) => JSON.parse(String(row.data)) as RecordedStep),
      ...(Number(run.running) ? { unfinished: true } : {}),
    };
  }

  /**
   * Content kept (what the recordings cost on disk, before SQLite's own overhead): all of it, or
   * the pieces whose JSON holds `containing`.
   */
  async contentBytes(containing?: string): Promise<{ count: number; bytes: number }> {
    await this.settled();
    const [row] = await this.deps.read(
      `SELECT COUNT(*) AS count, COALESCE(SUM(LENGTH(json)), 0) AS bytes FROM recording_content
       ${containing === undefined ? '' : 'WHERE instr(json, ?) > 0'}`,
      containing === undefined ? [] : [containing],
    );
    return { count: Number(row?.count ?? 0), bytes: Number(row?.bytes ?? 0) };
  }

  /** Resolves when every put made so far is written (or has failed). */
  async settled(): Promise<void> {
    await (this.pendingDone ?? this.writing).catch(() => undefined);
  }

  private add(put: (batch: Required<RecordingBatch>) => void): Promise<void> {
    if (!this.pending) {
      const batch = (this.pending = { contents: [], manifests: [], steps: [], running: [] });
      // Written once everything put in the next moments has joined it, after the batch before
      // it: one append (lock, fsync) for many steps while a run goes fast.
      const previous = this.writing;
      this.pendingDone = new Promise<void>((resolve) => setTimeout(resolve, BATCH_MS))
        .then(() => previous.catch(() => undefined))
        .then(() => {
          if (this.pending === batch) {
            this.pending = undefined;
            this.pendingDone = undefined;
          }
          return this.writeBatch(batch);
        });
      this.writing = this.pendingDone;
    }
    put(this.pending);
    return this.pendingDone!;
  }

  private async writeBatch(batch: Required<RecordingBatch>): Promise<void> {
    const unique = new Map(batch.contents.map((content) => [content.ref, content]));
    for (let start = 0; start < unique.size; start += REFS_PER_QUERY) {
      const refs = [...unique.keys()].slice(start, start + REFS_PER_QUERY);
      const rows = await this.deps.read(
        `SELECT ref FROM recording_content WHERE ref IN (${refs.map(() => '?').join(',')})`,
        refs,
      );
      for (const row of rows) unique.delete(String(row.ref));
    }
    const entry: JournalEntry = {
      op: 'recording',
      ...(unique.size ? { contents: [...unique.values()] } : {}),
      ...(batch.manifests.length ? { manifests: batch.manifests } : {}),
      ...(batch.steps.length ? { steps: batch.steps } : {}),
      ...(batch.running.length ? { running: batch.running } : {}),
    };
    if (Object.keys(entry).length > 1) await this.deps.write(entry);
  }

  private pendingContent(ref: ContentRef): string | undefined {
    return this.pending?.contents.find((content) => content.ref === ref)?.json;
  }

  private async contentJson(ref: ContentRef): Promise<string | undefined> {
    const [row] = await this.deps.read('SELECT json FROM recording_content WHERE ref = ?', [ref]);
    return row ? String(row.json) : undefined;
  }
}
