/**
 * Checkpoints (SPEC 3): each turn records the before-image of every file the agent's file tools
 * change — its text and format, or that it did not exist — the first time the turn touches it.
 * "Revert This Turn" writes those images back and deletes the files the turn created. No shadow
 * git, and the user's .git is never touched. A file changed again after the turn (by the user or
 * a later turn) is reported as a conflict, so the host can ask before overwriting it.
 *
 * Commands run through bash can change files too; those changes are not seen here.
 */
import { createHash } from 'node:crypto';
import type { WorkspaceFiles } from '../ports';
import { encodeText, type DecodedText, type TextContent } from './text-file';

/** Files larger than this are not kept (a revert says so instead). */
export const MAX_CHECKPOINT_BYTES = 50 * 1024 * 1024;

type BeforeImage =
  | { kind: 'absent' }
  /**
   * `bytes`: the file as it was on disk, kept only when its text written back in its format
   * would not give the same bytes (bytes that are not valid UTF-8): a revert is byte for byte.
   */
  | { kind: 'text'; text: string; format: Omit<DecodedText, 'text'>; bytes?: Uint8Array }
  | { kind: 'too_large'; size: number };

interface FileCheckpoint {
  path: string;
  before: BeforeImage;
  /** Hash of the text the turn left (updated on every write of the turn). */
  afterHash: string;
  /**
   * The text the turn left, kept for the review of its hunks until the next turn begins;
   * undefined when it was written as bytes (a big file's edit).
   */
  after?: TextContent;
}

export interface TurnChange {
  path: string;
  change: 'created' | 'modified';
}

export interface RevertPlan {
  turn: number;
  files: TurnChange[];
  /** Files changed since the turn wrote them: reverting loses those changes. */
  conflicts: string[];
}

export interface RevertResult {
  turn: number;
  restored: string[];
  deleted: string[];
  /** Files that could not be restored, with why. */
  failed: Array<{ path: string; reason: string }>;
}

export class Checkpoints {
  private readonly turns = new Map<number, Map<string, FileCheckpoint>>();
  private current: number;

  /** `turnsBefore`: turns a reopened conversation already had (numbers go on after them). */
  constructor(
    private readonly workspace: WorkspaceFiles,
    turnsBefore = 0,
  ) {
    this.current = turnsBefore;
  }

  /** Starts recording a new turn; returns its number. */
  beginTurn(): number {
    // The texts earlier turns left were for their review, computed when they ended.
    for (const files of this.turns.values()) for (const checkpoint of files.values()) delete checkpoint.after;
    this.current += 1;
    return this.current;
  }

  /** The workspace folder the checkpointed paths are in. */
  get root(): string {
    return this.workspace.root;
  }

  get currentTurn(): number {
    return this.current;
  }

  /** The workspace with writes recorded in the current turn: give this one to the file tools. */
  tracked(): WorkspaceFiles {
    const inner = this.workspace;
    return {
      root: inner.root,
      realpath: (absolute) => inner.realpath(absolute),
      readlink: (absolute) => inner.readlink(absolute),
      stat: (absolute) => inner.stat(absolute),
      linkedSecret: (absolute) => inner.linkedSecret(absolute),
      readText: (absolute) => inner.readText(absolute),
      list: (directory, options) => inner.list(directory, options),
      delete: (absolute) => inner.delete(absolute),
      writeText: async (absolute, text, format) => {
        await this.capture(absolute);
        const written = await inner.writeText(absolute, text, format);
        const checkpoint = this.turns.get(this.current)?.get(absolute);
        if (checkpoint) {
          checkpoint.afterHash = hash(text);
          checkpoint.after = text;
        }
        return written;
      },
      ...(inner.readBytes && inner.writeUtf8Bytes
        ? {
            readBytes: inner.readBytes.bind(inner),
            writeUtf8Bytes: async (absolute: string, pieces: readonly Uint8Array[]) => {
              await this.capture(absolute);
              const written = await inner.writeUtf8Bytes!(absolute, pieces);
              const checkpoint = this.turns.get(this.current)?.get(absolute);
              // UTF-8 without a BOM: the bytes hash as the text they decode to.
              if (checkpoint) {
                checkpoint.afterHash = hash(pieces);
                delete checkpoint.after;
              }
              return written;
            },
          }
        : {}),
    };
  }

  /** What a turn changed, in the order it first touched the files. */
  changes(turn: number): TurnChange[] {
    return [...(this.turns.get(turn)?.values() ?? [])].map((checkpoint) => ({
      path: checkpoint.path,
      change: checkpoint.before.kind === 'absent' ? 'created' : 'modified',
    }));
  }

  /**
   * The text a file had before `turn` changed it: a string, `null` when the turn created it, or
   * undefined when the turn has no such file (or it was reverted, or too large to keep).
   */
  beforeText(turn: number, absolute: string): string | null | undefined {
    const before = this.turns.get(turn)?.get(absolute)?.before;
    if (!before || before.kind === 'too_large') return undefined;
    return before.kind === 'absent' ? null : before.text;
  }

  /**
   * What the current turn did to each file, for the review of its hunks: the text before (null:
   * created; a size: too large to keep) and the text it left (undefined: written as bytes).
   */
  edits(
    turn: number,
  ): Array<{ path: string; before: string | null | { tooLarge: number }; after: TextContent | undefined }> {
    return [...(this.turns.get(turn)?.values() ?? [])].map((checkpoint) => {
      const before = checkpoint.before;
      return {
        path: checkpoint.path,
        before: before.kind === 'absent' ? null : before.kind === 'too_large' ? { tooLarge: before.size } : before.text,
        after: checkpoint.after,
      };
    });
  }

  /**
   * A file's bytes before `turn` changed it (`absent`: the turn created it; `too_large`: no copy
   * was kept), or undefined when the turn has no such file: what a fork into a worktree writes.
   */
  beforeImage(
    turn: number,
    absolute: string,
  ): { kind: 'absent' } | { kind: 'bytes'; bytes: Uint8Array } | { kind: 'too_large'; size: number } | undefined {
    const before = this.turns.get(turn)?.get(absolute)?.before;
    if (!before || before.kind !== 'text') return before;
    return { kind: 'bytes', bytes: before.bytes ?? encodeText(before.text, before.format) };
  }

  /** The turns whose changes are kept (not reverted), oldest first. */
  keptTurns(): number[] {
    return [...this.turns.keys()].filter((turn) => this.turns.get(turn)!.size > 0).sort((a, b) => a - b);
  }

  /** The newest turn that changed files and has not been reverted. */
  latestTurn(): number | undefined {
    return [...this.turns.keys()].filter((turn) => this.turns.get(turn)!.size > 0).pop();
  }

  async plan(turn: number): Promise<RevertPlan | undefined> {
    const files = this.turns.get(turn);
    if (!files || files.size === 0) return undefined;
    const conflicts: string[] = [];
    for (const checkpoint of files.values()) {
      const now = await this.currentHash(checkpoint.path);
      if (now !== checkpoint.afterHash) conflicts.push(checkpoint.path);
    }
    return { turn, files: this.changes(turn), conflicts };
  }

  /** Restores a turn's before-images (newer turns' changes to the same files are overwritten). */
  async revert(turn: number): Promise<RevertResult> {
    const result: RevertResult = { turn, restored: [], deleted: [], failed: [] };
    const files = this.turns.get(turn);
    if (!files) return result;
    for (const checkpoint of files.values()) {
      const before = checkpoint.before;
      try {
        if (before.kind === 'too_large') {
          result.failed.push({
            path: checkpoint.path,
            reason: `it was ${(before.size / 1_048_576).toFixed(0)} MB, too large to keep a copy of`,
          });
        } else if (before.kind === 'absent') {
          if (await this.workspace.stat(checkpoint.path)) await this.workspace.delete(checkpoint.path);
          result.deleted.push(checkpoint.path);
        } else {
          if (before.bytes && this.workspace.writeUtf8Bytes)
            await this.workspace.writeUtf8Bytes(checkpoint.path, [before.bytes]);
          else await this.workspace.writeText(checkpoint.path, before.text, before.format);
          result.restored.push(checkpoint.path);
        }
      } catch (error) {
        result.failed.push({ path: checkpoint.path, reason: error instanceof Error ? error.message : String(error) });
      }
    }
    this.turns.delete(turn);
    return result;
  }

  private async capture(absolute: string): Promise<void> {
    let files = this.turns.get(this.current);
    if (!files) {
      files = new Map();
      this.turns.set(this.current, files);
    }
    if (files.has(absolute)) return;
    const stat = await this.workspace.stat(absolute);
    let before: BeforeImage;
    if (!stat) before = { kind: 'absent' };
    else if (stat.size > MAX_CHECKPOINT_BYTES) before = { kind: 'too_large', size: stat.size };
    else {
      const { text, ...format } = await this.workspace.readText(absolute);
      before = { kind: 'text', text, format, ...(await this.rawIfChanged(absolute, text, format)) };
    }
    files.set(absolute, { path: absolute, before, afterHash: '' });
  }

  /** The file's bytes when decoding changed them (the adapter reads bytes, as the Node one does). */
  private async rawIfChanged(
    absolute: string,
    text: string,
    format: Omit<DecodedText, 'text'>,
  ): Promise<{ bytes?: Uint8Array }> {
    // Valid UTF-8 decodes and encodes back to the same bytes: only a replacement character (or
    // UTF-16, whose odd trailing byte is dropped) says the bytes may differ.
    if (!this.workspace.readBytes || (format.encoding === 'utf8' && !text.includes('\uFFFD'))) return {};
    const bytes = await this.workspace.readBytes(absolute);
    return Buffer.compare(Buffer.from(encodeText(text, format)), Buffer.from(bytes)) === 0 ? {} : { bytes };
  }

  private async currentHash(absolute: string): Promise<string | undefined> {
    if (!(await this.workspace.stat(absolute))) return undefined;
    try {
      return hash((await this.workspace.readText(absolute)).text);
    } catch {
      return undefined;
    }
  }
}

function hash(content: TextContent | readonly Uint8Array[]): string {
  const digest = createHash('sha256');
  for (const piece of typeof content === 'string' ? [content] : content) digest.update(piece);
  return digest.digest('hex');
}
