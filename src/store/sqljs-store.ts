/**
 * The conversation store on sql.js (SQLite compiled to WebAssembly). sql.js keeps the database in
 * memory and can only write it out whole, so writes go to an append-only journal and the whole
 * file is rewritten ("folded") only when the journal has grown to a fraction of it: each write
 * costs what it adds, and the amortised cost of folding stays a small multiple of that.
 *
 * Files in the store folder: store.sqlite (the snapshot, replaced atomically), store.journal
 * (appended, fsynced), store.lock (held during each write by whichever process writes).
 * Every process syncs from the files under the lock before it reads or writes, so several
 * windows and the CLI can share one store without losing updates.
 */
import * as path from 'node:path';
import initSqlJs, { type Database, type SqlJsStatic, type SqlValue } from 'sql.js';
import type {
  AuditRecord,
  ConversationStore,
  ForkCopy,
  StoredConversation,
  StoredMessage,
  TeamOutboxItem,
  UsageQuery,
  UsageRecord,
  UsageTotals,
} from '../core/ports';
import { LockLostError, withFileLock, type LockFence } from './file-lock';
import { JournalFiles } from './journal-files';
import { applyEntry } from './apply-entry';
import { SqlJsRecordings } from './recording-rows';
import { SqlJsImages } from './image-rows';
import {
  encodeEntry,
  firstLine,
  isJournalHeader,
  journalHeader,
  parseJournal,
  snapshotHash,
  type JournalEntry,
} from './journal';
import { journalProblem as describeJournal, SetAside, setAsideMessage, type Recovery } from './set-aside';
import { openSnapshot } from './snapshot';
import { storedVersion, toAudit, toConversation, toMessage, toOutboxItem, toTotals, whereClause } from './store-rows';
import { StoreError, storeErrorFrom } from './store-error';
import { nodeStoreFiles, type StoreFiles } from './store-files';

export interface SqlJsStoreOptions {
  directory: string;
  /** Path to sql-wasm.wasm (dist/ in the extension, node_modules/sql.js/dist in tests). */
  wasmPath: string;
  /**
   * Removes secrets from every entry before it reaches the disk, whatever the caller passed (a
   * key pasted into a prompt, a trace with its headers): the core's redactor, given by the kit.
   */
  redact: <T>(value: T) => T;
  files?: StoreFiles;
  /**
   * Told when files are set aside after the store was opened (a file replaced by a pipe or a
   * folder while it runs); at open, OpenedStore.recovered says it.
   */
  onRecovered?: (recovery: Recovery) => void;
  /** Fold when the journal reaches this share of the snapshot's size (at least `minFoldBytes`). */
  foldRatio?: number;
  minFoldBytes?: number;
  now?: () => number;
}

export interface OpenedStore {
  store: SqlJsStore;
  /** Set when an unreadable store was moved aside and a fresh one started: tell the user. */
  quarantined?: { path: string; error: StoreError };
  /** Set when damaged files were kept aside and what they held recovered: tell the user. */
  recovered?: Recovery;
}

let sqlJs: Promise<SqlJsStatic> | undefined;
/** How long one write keeps trying while its lock is taken away before it gives up. */
const WRITE_GIVE_UP_MS = 30_000;

export class SqlJsStore implements ConversationStore {
  private generation = 0;
  private journalOffset = 0;
  /** Identity of the journal file this memory reflects: a fold by anyone replaces the file. */
  private journalId: string | undefined;
  private snapshotBytes = 0;
  private closed = false;
  /** Set once open() has returned: what is set aside from then on is told through onRecovered. */
  private opened = false;

  private constructor(
    private db: Database,
    private readonly sql: SqlJsStatic,
    private readonly options: Required<Omit<SqlJsStoreOptions, 'files' | 'now' | 'onRecovered'>> & {
      onRecovered?: (recovery: Recovery) => void;
      files: StoreFiles;
      now: () => number;
    },
  ) {
    this.aside = new SetAside(options.files, options.now);
    this.journal = new JournalFiles(options.files, this.journalFile, options.now, this.aside.note);
  }

  /** Damaged files, and things not store files in their place, moved or copied aside. */
  private readonly aside: SetAside;
  /** The journal file among processes: taken for folds, installed, recovered. */
  private readonly journal: JournalFiles;
  /** Rows of their own (recorded runs, redacted before they are hashed; images), written through this journal. */
  private readonly rowDeps = {
    write: (entry: JournalEntry) => this.write(entry, true),
    read: async (query: string, parameters: SqlValue[]) => (await this.sync(), this.rows(query, parameters)),
    redact: <T>(value: T): T => this.options.redact(value),
    now: () => this.options.now(),
  };
  readonly recordings = new SqlJsRecordings(this.rowDeps);
  readonly images = new SqlJsImages(this.rowDeps);

  static async open(options: SqlJsStoreOptions): Promise<OpenedStore> {
    const resolved = { foldRatio: 0.25, minFoldBytes: 1024 * 1024, files: nodeStoreFiles, now: Date.now, ...options };
    sqlJs ??= initSqlJs({ locateFile: () => resolved.wasmPath });
    const sql = await sqlJs;
    try {
      await resolved.files.mkdir(resolved.directory);
    } catch (error) {
      throw storeErrorFrom(error, 'create the store folder');
    }
    const store = new SqlJsStore(new sql.Database(), sql, resolved);
    try {
      const recovered = store.aside.withNotes(await store.untilDone(() => store.locked(() => store.load())));
      store.opened = true;
      return recovered ? { store, recovered } : { store };
    } catch (error) {
      if (!(error instanceof StoreError) || (error.kind !== 'corrupt' && error.kind !== 'future_schema')) throw error;
      const quarantinePath = await store.locked(() => store.aside.quarantine(store.snapshotFile, store.journalFile));
      await store.untilDone(() => store.locked(() => store.load()));
      store.opened = true;
      return { store, quarantined: { path: quarantinePath, error } };
    }
  }

  /** Runs `work` holding the store's lock (see file-lock.ts). */
  private async locked<T>(work: (fence: LockFence) => Promise<T>): Promise<T> {
    try {
      return await withFileLock(this.options.files, this.lockFile, work, this.aside.note);
    } finally {
      if (this.opened) this.tell(undefined);
    }
  }

  /** After open: what was recovered or set aside, told (at open it is returned instead). */
  private tell(recovery: Recovery | undefined): void {
    const told = this.aside.withNotes(recovery);
    if (told) this.options.onRecovered?.(told);
  }

  /** load() while the store is in use: what it had to set aside is told. */
  private async reload(): Promise<void> {
    const recovery = await this.load();
    if (this.opened) this.tell(recovery);
  }

  private get snapshotFile(): string {
    return path.join(this.options.directory, 'store.sqlite');
  }
  private get journalFile(): string {
    return path.join(this.options.directory, 'store.journal');
  }
  private get lockFile(): string {
    return path.join(this.options.directory, 'store.lock');
  }

  // ---- reads -------------------------------------------------------------------------------
  async getConversation(id: string): Promise<StoredConversation | undefined> {
    await this.sync();
    return this.rows('SELECT * FROM conversations WHERE id = ?', [id]).map(toConversation)[0];
  }

  async listConversations(
    options: { limit?: number; offset?: number; search?: string } = {},
  ): Promise<StoredConversation[]> {
    await this.sync();
    const search = options.search?.trim();
    // The title, or the text of a prompt or an answer (stored as JSON: plain words match).
    const where = search
      ? "WHERE title LIKE ?1 ESCAPE '\\' OR id IN (SELECT conversation_id FROM messages WHERE role IN ('user', 'assistant') AND content LIKE ?1 ESCAPE '\\')"
      : '';
    const parameters: SqlValue[] = search ? [`%${search.replace(/[\\%_]/g, (char) => `\\${char}`)}%`] : [];
    return this.rows(`SELECT * FROM conversations ${where} ORDER BY updated_at DESC LIMIT ? OFFSET ?`, [
      ...parameters,
      options.limit ?? 1_000_000,
      options.offset ?? 0,
    ]).map(toConversation);
  }

  async listMessages(conversationId: string): Promise<StoredMessage[]> {
    await this.sync();
    return this.rows('SELECT * FROM messages WHERE conversation_id = ? ORDER BY seq', [conversationId]).map(toMessage);
  }

  async usageTotals(query: UsageQuery = {}): Promise<UsageTotals> {
    await this.sync();
    const where = whereClause([
      ['conversation_id', query.conversationId],
      ['model', query.model],
      ['day', query.day],
    ]);
    // Days are YYYY-MM-DD text, so a month is a range of them.
    if (query.month) {
      where.sql = `${where.sql ? `${where.sql} AND` : 'WHERE'} day >= ? AND day <= ?`;
      where.parameters.push(`${query.month}-01`, `${query.month}-31`);
    }
    const [row] = this.rows(
      `SELECT COUNT(*) AS calls, COALESCE(SUM(input_tokens),0) AS input, COALESCE(SUM(output_tokens),0) AS output,
              COALESCE(SUM(cache_read_tokens),0) AS cache_read, COALESCE(SUM(cache_write_tokens),0) AS cache_write,
              COALESCE(SUM(cost_usd),0) AS cost FROM usage ${where.sql}`,
      where.parameters,
    );
    return toTotals(row);
  }

  async listAudit(query: { conversationId?: string; kind?: AuditRecord['kind'] } = {}): Promise<AuditRecord[]> {
    await this.sync();
    const where = whereClause([
      ['conversation_id', query.conversationId],
      ['kind', query.kind],
    ]);
    return this.rows(`SELECT * FROM audit ${where.sql} ORDER BY time, id`, where.parameters).map(toAudit);
  }

  async teamOutbox(limit: number): Promise<TeamOutboxItem[]> {
    await this.sync();
    return this.rows('SELECT * FROM team_outbox WHERE refused IS NULL ORDER BY time, key LIMIT ?', [limit]).flatMap(
      toOutboxItem,
    );
  }

  async teamRefused(): Promise<{ count: number; reason?: string }> {
    await this.sync();
    const [row] = this.rows(
      'SELECT COUNT(*) AS count, MAX(refused) AS reason FROM team_outbox WHERE refused IS NOT NULL',
      [],
    );
    const count = Number(row?.count ?? 0);
    return count ? { count, reason: String(row!.reason) } : { count };
  }

  // ---- writes ------------------------------------------------------------------------------
  saveConversation(conversation: StoredConversation): Promise<void> {
    return this.write({ op: 'conversation', value: conversation });
  }
  deleteConversation(id: string): Promise<void> {
    return this.write({ op: 'delete_conversation', id });
  }
  putMessage(message: StoredMessage): Promise<void> {
    return this.write({ op: 'message', value: message });
  }
  recordUsage(record: UsageRecord): Promise<void> {
    return this.write({ op: 'usage', value: record });
  }
  recordAudit(record: AuditRecord): Promise<void> {
    return this.write({ op: 'audit', value: record });
  }
  deliveredToTeam(keys: string[]): Promise<void> {
    return keys.length ? this.write({ op: 'team_delivered', keys }) : Promise.resolve();
  }
  refusedByTeam(keys: string[], reason: string): Promise<void> {
    return keys.length ? this.write({ op: 'team_refused', keys, reason }) : Promise.resolve();
  }
  forkConversation(copy: ForkCopy): Promise<void> {
    return this.write({ op: 'fork', value: copy });
  }
  rewindConversation(conversationId: string, fromSeq: number, marker: StoredMessage): Promise<void> {
    return this.write({ op: 'rewind', conversationId, fromSeq, marker });
  }
  async listForks(conversationId: string): Promise<StoredConversation[]> {
    await this.sync();
    return this.rows('SELECT * FROM conversations WHERE parent_id = ? ORDER BY created_at, id', [conversationId]).map(
      toConversation,
    );
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.db.close();
  }

  /**
   * Journal first (durable), then memory: a failed write changes nothing anywhere. A lock taken
   * away meanwhile (LockLostError) undoes the write in memory, re-syncs and tries again.
   */
  private async write(entry: JournalEntry, redacted = false): Promise<void> {
    if (this.closed) throw new StoreError('The conversation store is closed.', 'io');
    // No secret reaches the disk: key-shaped strings and secret-named fields are redacted here.
    const safe = redacted ? entry : this.options.redact(entry);
    const line = encodeEntry(safe);
    await this.untilDone(() => this.locked((fence) => this.writeLocked(safe, line, fence)));
  }

  /**
   * Runs `work` again while it stops with LockLostError (the lock taken away, a fold under way
   * in another process): it re-syncs from disk each time, so it never writes over anyone's work.
   */
  private async untilDone<T>(work: () => Promise<T>): Promise<T> {
    const started = Date.now();
    for (let attempt = 1; ; attempt++) {
      try {
        return await work();
      } catch (error) {
        if (!(error instanceof LockLostError)) throw error;
        if (Date.now() - started > WRITE_GIVE_UP_MS)
          throw new StoreError(
            'Could not use the conversation store: something keeps deleting or replacing its lock (store.lock).',
            'locked',
          );
        // Someone else may be writing under a lock of their own now: let them finish.
        await new Promise((resolve) => setTimeout(resolve, Math.min(50, attempt * 2) * Math.random()));
      }
    }
  }

  private async writeLocked(entry: JournalEntry, line: string, fence: LockFence): Promise<void> {
    await this.syncLocked();
    // Applied in memory inside a savepoint first: an entry SQLite refuses never reaches the
    // journal (where it would fail again at every replay), and a failed append is undone.
    this.db.run('SAVEPOINT write');
    try {
      applyEntry(this.db, entry);
      await fence.check();
      await this.options.files.appendDurable(this.journalFile, line);
    } catch (error) {
      this.db.run('ROLLBACK TO write');
      this.db.run('RELEASE write');
      if (error instanceof LockLostError) throw error;
      // No journal: another process is folding it (this one's lock was taken). Try again.
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new LockLostError();
      throw storeErrorFrom(error, 'save to the conversation store');
    }
    this.db.run('RELEASE write');
    const expected = this.journalOffset + Buffer.byteLength(line);
    const after = await this.options.files.fingerprint(this.journalFile);
    if (after === undefined || after.id !== this.journalId || after.size !== expected) {
      // The journal changed beside this write (the lock was taken from under one of us): another
      // process appended too, or took the journal to fold it — maybe after it read what this
      // write added. Read everything again and write once more: entries are idempotent upserts,
      // and this write has not returned, so it may as well take effect now.
      this.journalId = undefined;
      throw new LockLostError();
    }
    this.journalOffset = expected;
    if (this.journalOffset > Math.max(this.options.minFoldBytes, this.snapshotBytes * this.options.foldRatio)) {
      // The entry is durable in the journal: a lock lost now only skips this fold.
      try {
        await this.fold(fence);
      } catch (error) {
        if (!(error instanceof LockLostError)) throw error;
        this.journalId = undefined; // re-read from disk at the next sync
      }
    }
  }

  // ---- files -------------------------------------------------------------------------------

  /** Brings memory up to date with what other processes wrote. */
  private async sync(): Promise<void> {
    if (this.closed) throw new StoreError('The conversation store is closed.', 'io');
    if (this.isCurrent(await this.options.files.fingerprint(this.journalFile))) return;
    await this.untilDone(() => this.locked(() => this.syncLocked()));
  }

  private isCurrent(fingerprint: { size: number; id: string } | undefined): boolean {
    return fingerprint !== undefined && fingerprint.id === this.journalId && fingerprint.size === this.journalOffset;
  }

  private async syncLocked(): Promise<void> {
    const fingerprint = await this.options.files.fingerprint(this.journalFile);
    // Something not a journal in its place (a pipe, a folder…): load() sets it aside unread.
    if (fingerprint?.unusable) return this.reload();
    // The file identity alone is not proof: inode numbers are reused after a rename. Under the
    // lock, the journal's header (its snapshot generation) decides whether it is still ours.
    const header = fingerprint ? parseJournal(Buffer.from(firstLine(await this.journal.read(0, 128)))) : undefined;
    if (
      !fingerprint ||
      header?.generation !== this.generation ||
      fingerprint.id !== this.journalId ||
      fingerprint.size < this.journalOffset
    ) {
      await this.reload();
      return;
    }
    if (fingerprint.size === this.journalOffset) return;
    const fresh = await this.journal.read(this.journalOffset, fingerprint.size - this.journalOffset);
    // Every entry line begins with a newline: anything else means the offset is not a line
    // boundary (the file changed under a view that was not exact): read it all again.
    if (fresh[0] !== 0x0a) {
      await this.reload();
      return;
    }
    for (const entry of parseJournal(fresh).entries) this.replay(entry);
    this.journalOffset += fresh.length;
  }

  /**
   * Loads the snapshot and replays its journal. Never overwrites what it cannot read: a snapshot
   * that fails to open or `PRAGMA quick_check`, and a journal whose header does not parse or
   * names a generation ahead of the snapshot, are copied aside (`*.unreadable-<time>`), every
   * entry that still parses is replayed onto what is readable (never taking a conversation back
   * to an older version), and the result is folded into a fresh snapshot. Throws future_schema.
   */
  private async load(): Promise<Recovery | undefined> {
    const leftovers = await this.journal.recover();
    const recovery = await this.loadFiles();
    if (leftovers.length > 0) await this.takeIn(leftovers);
    return recovery;
  }

  /** Entries of left-over taken journals that are newer than what the store has, kept; then the files go. */
  private async takeIn(leftovers: string[]): Promise<void> {
    let newer = 0;
    for (const file of leftovers) {
      const bytes = (await this.options.files.read(file)) ?? Buffer.alloc(0);
      for (const entry of parseJournal(bytes).entries)
        if (this.replay(entry, { noRegress: true, onlyNew: true })) newer++;
    }
    if (newer > 0) await this.fold();
    for (const file of leftovers) await this.options.files.remove(file);
  }

  private async loadFiles(): Promise<Recovery | undefined> {
    const kept: string[] = [];
    const { bytes: snapshot, unusable: snapshotUnusable } = await this.aside.readOrSetAside(this.snapshotFile, kept);
    const read = await this.options.files.fingerprint(this.journalFile);
    const { bytes: journal, unusable: journalUnusable } = read
      ? await this.aside.readOrSetAside(this.journalFile, kept)
      : {};
    // What this process has read of which file: a fold takes in anything appended after it.
    this.journalId = journal ? read?.id : undefined;
    this.journalOffset = journal?.length ?? 0;
    // Never decoded whole: a journal may be larger than the longest string JavaScript holds.
    const parsed = parseJournal(journal ?? Buffer.alloc(0));
    // A snapshot whose hash the journal header vouches for is exactly what was written: no
    // check needed. Any other is checked whole (integrity_check), however long that takes.
    const hash = snapshot && snapshotHash(snapshot);
    const vouched = hash !== undefined && parsed.snapshot === hash;
    let db: Database;
    // Words after "the database file": what it is, or why it could not be read.
    let snapshotProblem = snapshotUnusable;
    try {
      db = openSnapshot(this.sql, snapshot, !vouched);
    } catch (error) {
      if (error instanceof StoreError) throw error;
      snapshotProblem = `could not be read (${error instanceof Error ? error.message : String(error)})`;
      kept.push(await this.aside.keepAside(this.snapshotFile));
      db = openSnapshot(this.sql, undefined, false);
    }
    this.db.close();
    this.db = db;
    this.snapshotBytes = snapshotProblem ? 0 : (snapshot?.length ?? 0);
    this.generation = Number(this.rows("SELECT value FROM meta WHERE key = 'generation'")[0]?.value ?? 0);
    const headerReadable = !journal?.length || isJournalHeader(firstLine(journal));
    // The snapshot the journal was started for, byte for byte? Damage SQLite cannot see.
    const changed =
      !snapshotProblem &&
      snapshot !== undefined &&
      headerReadable &&
      parsed.generation === this.generation &&
      parsed.snapshot !== undefined &&
      parsed.snapshot !== hash;
    if (changed) kept.push(await this.aside.copyAside(this.snapshotFile, snapshot));
    if (
      journal &&
      headerReadable &&
      parsed.generation === this.generation &&
      !snapshotProblem &&
      !parsed.damaged &&
      !changed
    ) {
      for (const entry of parsed.entries) this.replay(entry);
      return undefined;
    }
    const ahead = parsed.generation !== undefined && parsed.generation > this.generation;
    const journalProblem =
      journalUnusable !== undefined ||
      (journal && (!headerReadable || ahead || snapshotProblem !== undefined || parsed.damaged > 0));
    if (journalProblem && journal) kept.push(await this.aside.copyAside(this.journalFile, journal));
    if (!journalProblem && !snapshotProblem && !changed) {
      // No journal yet, or one left from before the last fold. Its entries are in the snapshot
      // — unless a fold was cut off between its two files: anything newer in it is kept.
      if (parsed.entries.length > 0) {
        let newer = 0;
        for (const entry of parsed.entries) if (this.replay(entry, { noRegress: true, onlyNew: true })) newer++;
        if (newer > 0) return void (await this.fold());
      }
      if (journal) return void (await this.fold());
      // No journal while a fold is under way (or was cut off): load again once it is back.
      if (await this.journal.anyTaken()) throw new LockLostError();
      const header = Buffer.from(journalHeader(this.generation, snapshotProblem ? undefined : snapshot));
      // Only where there is none: another process may have made one since.
      if (!(await this.journal.install(header))) throw new LockLostError();
      this.journalOffset = header.length;
      this.journalId = (await this.options.files.fingerprint(this.journalFile))?.id;
      return undefined;
    }
    let recovered = 0;
    for (const entry of parsed.entries) if (this.replay(entry, { noRegress: true })) recovered++;
    // What was recovered lives only in memory until it is folded into a fresh snapshot.
    await this.fold();
    const problems = [
      snapshotProblem ? `the database file ${snapshotProblem}` : '',
      changed ? 'the database file changed since it was written (a damaged byte?); what it still holds is kept' : '',
      journalProblem && (journalUnusable || !snapshotProblem)
        ? describeJournal({ unusable: journalUnusable, ahead, headerReadable, damaged: parsed.damaged })
        : '',
    ].filter(Boolean);
    return {
      kept,
      recovered,
      skipped: parsed.skipped,
      message: setAsideMessage({ problems, recovered, skipped: parsed.skipped, kept }),
    };
  }

  /**
   * Writes the whole database as the new snapshot and starts an empty journal for it. The
   * journal is taken away from everyone first (JournalFiles.whileTaken), and what others
   * appended after this process last read it is taken in; a process that dies mid-fold leaves
   * the taken journal, which the next load puts back.
   */
  private async fold(fence?: LockFence): Promise<void> {
    await fence?.check();
    try {
      if (this.journalId === undefined) {
        // No journal was read (a new or recovered store): fold only while there is still none.
        if (await this.options.files.fingerprint(this.journalFile)) throw new LockLostError();
        return await this.writeFold();
      }
      await this.journal.whileTaken({ id: this.journalId, offset: this.journalOffset }, async ({ tail }) => {
        for (const entry of parseJournal(tail).entries) this.replay(entry);
        await this.writeFold();
      });
    } catch (error) {
      if (error instanceof LockLostError || error instanceof StoreError) throw error;
      throw storeErrorFrom(error, 'compact the conversation store');
    }
  }

  /** The snapshot, then a journal for it (only where there is none). */
  private async writeFold(): Promise<void> {
    const generation = this.generation + 1;
    this.db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('generation', ?)", [String(generation)]);
    const bytes = this.db.export();
    const header = Buffer.from(journalHeader(generation, bytes));
    try {
      await this.options.files.writeAtomic(this.snapshotFile, bytes);
      if (!(await this.journal.install(header))) throw new LockLostError();
    } catch (error) {
      // With the old snapshot the journal given back is the store as it was; with the new one
      // (written just before a failure) it is an older journal, whose entries the snapshot has.
      this.db.run("INSERT OR REPLACE INTO meta (key, value) VALUES ('generation', ?)", [String(this.generation)]);
      if (error instanceof LockLostError) throw error;
      throw storeErrorFrom(error, 'compact the conversation store');
    }
    this.generation = generation;
    this.snapshotBytes = bytes.length;
    this.journalOffset = header.length;
    this.journalId = (await this.options.files.fingerprint(this.journalFile))?.id;
  }

  /**
   * Applies a journal entry from disk; one that does not fit (written by a newer version) is
   * skipped. With `noRegress` (recovering a journal of unknown age) a conversation is never
   * taken back to an older version than the one already there. True when it was applied.
   */
  private replay(entry: JournalEntry, options: { noRegress?: boolean; onlyNew?: boolean } = {}): boolean {
    try {
      if (options.noRegress) {
        // A conversation or an answer (saved again as it streams) never goes back in time;
        // with `onlyNew`, what is already there as new is not applied again.
        const { current, time } = storedVersion(entry, (query, parameters) => this.rows(query, parameters));
        if (!Number.isNaN(current) && (current > time || (options.onlyNew && current >= time))) return false;
        // Nor is anything removed again: a rewind replayed late would remove what came after it.
        if (options.onlyNew && (entry.op === 'delete_conversation' || entry.op === 'rewind')) return false;
      }
      applyEntry(this.db, entry);
      return true;
    } catch {
      // Skipping keeps every other entry readable; the journal itself is left as it is.
      return false;
    }
  }

  private rows(query: string, parameters: SqlValue[] = []): Array<Record<string, SqlValue>> {
    const statement = this.db.prepare(query);
    try {
      statement.bind(parameters);
      const rows: Array<Record<string, SqlValue>> = [];
      while (statement.step()) rows.push(statement.getAsObject());
      return rows;
    } finally {
      statement.free();
    }
  }
}
