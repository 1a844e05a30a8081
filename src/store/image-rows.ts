/**
 * Images in the store (issue 36): one row per sha256 of the encoded bytes, however many
 * conversations and messages use it, and one `image_uses` row per conversation that uses it.
 * Events carry only references ({sha256, mediaType, width, height, name}); the bytes live here.
 *
 * Writes go through the store's journal like every other (one `image` entry carries the bytes,
 * base64, once; a later use of the same image is a small `image_use` entry). The bytes are
 * checked on the way in (their sha256 must be the one claimed, they must fit IMAGE_LIMITS) and on
 * the way out (a damaged or oversized row reads as missing, which reopening turns into a note).
 *
 * Queued messages (not in their conversation yet) hold their images under their own holder
 * (queuedImagesHolder), released as they go; see queued-image-holds.ts.
 *
 * Freeing: deleting a conversation deletes its uses, then every image no conversation uses. A
 * fork copies its parent's uses, so the parent's deletion never takes the fork's images. A rewind
 * keeps the uses of what it took back (the part left behind is saved as a fork that uses them).
 */
import { createHash } from 'node:crypto';
import type { Database, SqlValue } from 'sql.js';
import { IMAGE_LIMITS, IMAGE_MEDIA_TYPES, queuedImagesHolder, type ImagePart, type ImageStore } from '../core/ports';

/** An image as one journal entry carries it. */
export interface ImageRow {
  sha256: string;
  mediaType: string;
  width: number;
  height: number;
  name?: string;
  /** base64 of the bytes (the journal is text); the row keeps the bytes themselves. */
  data: string;
  time: number;
}

export type ImageEntry =
  | { op: 'image'; image: ImageRow; conversationId?: string }
  | { op: 'image_use'; sha256: string; conversationId: string }
  /** `holder` stops using every image but `keep` (queued messages that went: ImageStore.release). */
  | { op: 'image_release'; holder: string; keep: string[] };

export interface ImagesDeps {
  /** Writes an entry through the journal, as given (image bytes are not text to redact). */
  write(entry: ImageEntry): Promise<void>;
  read(query: string, parameters: SqlValue[]): Promise<Array<Record<string, SqlValue>>>;
  /** The store's redactor, for the image's name (a file name may hold anything). */
  redact<T>(value: T): T;
  now(): number;
}

/** A put the store refuses: the bytes are not what the image claims, or too many of them. */
export class ImageRefusedError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageRefusedError';
  }
}

const SHA256 = /^[0-9a-f]{64}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The image's bytes after checking everything it claims about them; throws ImageRefusedError. */
export function verifiedBytes(image: ImagePart): Buffer {
  const label = image.name ? `The image ${image.name}` : 'The image';
  if (typeof image.sha256 !== 'string' || !SHA256.test(image.sha256))
    throw new ImageRefusedError(`${label} has no valid sha256 (64 hex digits).`);
  if (!(IMAGE_MEDIA_TYPES as readonly string[]).includes(image.mediaType))
    throw new ImageRefusedError(`${label} is ${String(image.mediaType)}, not PNG, JPEG, GIF or WebP.`);
  // A prepared image is at most maxLongSide a side: a larger claim is forged (and would inflate estimates).
  const side = (value: number) => Number.isSafeInteger(value) && value >= 1 && value <= IMAGE_LIMITS.maxLongSide;
  if (!side(image.width) || !side(image.height))
    throw new ImageRefusedError(`${label} has no valid size (${image.width}×${image.height}).`);
  // Measured before decoding: base64 is 4 characters for 3 bytes.
  if (typeof image.data !== 'string' || image.data.length > Math.ceil(IMAGE_LIMITS.maxBytes / 3) * 4)
    throw new ImageRefusedError(`${label} is over ${IMAGE_LIMITS.maxBytes} bytes: images are kept prepared, not raw.`);
  if (image.data.length % 4 !== 0 || !BASE64.test(image.data))
    throw new ImageRefusedError(`${label}'s data is not base64.`);
  const bytes = Buffer.from(image.data, 'base64');
  if (bytes.length === 0) throw new ImageRefusedError(`${label} is empty.`);
  if (bytes.length > IMAGE_LIMITS.maxBytes)
    throw new ImageRefusedError(`${label} is over ${IMAGE_LIMITS.maxBytes} bytes: images are kept prepared, not raw.`);
  const actual = createHash('sha256').update(bytes).digest('hex');
  if (actual !== image.sha256)
    throw new ImageRefusedError(
      `${label}'s bytes do not match its sha256 (${image.sha256.slice(0, 12)}…, the bytes are ${actual.slice(0, 12)}…): not kept.`,
    );
  return bytes;
}

export class SqlJsImages implements ImageStore {
  constructor(private readonly deps: ImagesDeps) {}

  async put(image: ImagePart, conversationId?: string): Promise<void> {
    verifiedBytes(image);
    // Asked of the store each time (not remembered): a deletion, here or in another window, may
    // have freed it since, and then its bytes must be written again.
    if (await this.has(image.sha256)) {
      if (conversationId !== undefined)
        await this.deps.write({ op: 'image_use', sha256: image.sha256, conversationId });
      return;
    }
    const name = image.name === undefined ? undefined : this.deps.redact(image.name).slice(0, 500);
    const row: ImageRow = {
      sha256: image.sha256,
      mediaType: image.mediaType,
      width: image.width,
      height: image.height,
      ...(name !== undefined ? { name } : {}),
      data: image.data,
      time: this.deps.now(),
    };
    await this.deps.write({ op: 'image', image: row, ...(conversationId !== undefined ? { conversationId } : {}) });
  }

  async get(sha256: string): Promise<ImagePart | undefined> {
    if (typeof sha256 !== 'string' || !SHA256.test(sha256)) return undefined;
    const row = (await this.deps.read('SELECT * FROM images WHERE sha256 = ?', [sha256]))[0];
    if (!row) return undefined;
    const bytes = row.bytes instanceof Uint8Array ? Buffer.from(row.bytes) : undefined;
    // A row written by something else, or damaged: read as missing rather than sent as it is.
    if (!bytes || bytes.length === 0 || bytes.length > IMAGE_LIMITS.maxBytes) return undefined;
    if (createHash('sha256').update(bytes).digest('hex') !== sha256) return undefined;
    const mediaType = String(row.media_type);
    if (!(IMAGE_MEDIA_TYPES as readonly string[]).includes(mediaType)) return undefined;
    return {
      type: 'image',
      mediaType: mediaType as ImagePart['mediaType'],
      data: bytes.toString('base64'),
      width: Number(row.width),
      height: Number(row.height),
      sha256,
      ...(typeof row.name === 'string' ? { name: row.name } : {}),
    };
  }

  async release(holder: string, keep: readonly string[]): Promise<void> {
    if (typeof holder !== 'string' || holder.length === 0 || holder.length > 300)
      throw new ImageRefusedError('An image holder is named by 1 to 300 characters.');
    const kept = [...new Set(keep)].filter((sha256) => typeof sha256 === 'string' && SHA256.test(sha256));
    await this.deps.write({ op: 'image_release', holder, keep: kept });
  }

  /** The sha256s `holder` uses, sorted (for tests and the store's status). */
  async usedBy(holder: string): Promise<string[]> {
    const rows = await this.deps.read('SELECT sha256 FROM image_uses WHERE conversation_id = ? ORDER BY sha256', [
      holder,
    ]);
    return rows.map((row) => String(row.sha256));
  }

  /** How many images the store keeps, and their bytes (for tests and the store's status). */
  async totals(): Promise<{ count: number; bytes: number }> {
    const row = (
      await this.deps.read('SELECT COUNT(*) AS count, COALESCE(SUM(LENGTH(bytes)), 0) AS bytes FROM images', [])
    )[0];
    return { count: Number(row?.count ?? 0), bytes: Number(row?.bytes ?? 0) };
  }

  private async has(sha256: string): Promise<boolean> {
    return (await this.deps.read('SELECT 1 AS present FROM images WHERE sha256 = ?', [sha256])).length > 0;
  }
}

/** Applies an image entry: idempotent (the first bytes of a sha256 stay; a release twice is one). */
export function applyImage(db: Database, entry: ImageEntry): void {
  if (entry.op === 'image_release') {
    // Only the use goes: the bytes stay until a conversation's deletion frees what nothing uses,
    // so a queued message taken out to be sent never loses its image before its conversation
    // has put its own use of it.
    const keep = Array.isArray(entry.keep) ? entry.keep.filter((sha256) => typeof sha256 === 'string') : [];
    db.run(`DELETE FROM image_uses WHERE conversation_id = ? AND sha256 NOT IN (${keep.map(() => '?').join(', ')})`, [
      String(entry.holder),
      ...keep,
    ]);
  } else if (entry.op === 'image') {
    const image = entry.image;
    db.run(
      'INSERT OR IGNORE INTO images (sha256, media_type, width, height, name, bytes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [
        image.sha256,
        image.mediaType,
        image.width,
        image.height,
        image.name ?? null,
        Buffer.from(image.data, 'base64'),
        image.time,
      ],
    );
    if (entry.conversationId !== undefined) use(db, entry.conversationId, image.sha256);
  } else use(db, entry.conversationId, entry.sha256);
}

function use(db: Database, conversationId: string, sha256: string): void {
  db.run('INSERT OR IGNORE INTO image_uses (conversation_id, sha256) VALUES (?, ?)', [conversationId, sha256]);
}

/** A deleted conversation's uses go, then every image no conversation uses any more. */
export function deleteImageUses(db: Database, conversationId: string): void {
  // Its queued messages' images go with it (a window that still shows them sends them as notes).
  db.run('DELETE FROM image_uses WHERE conversation_id IN (?, ?)', [
    conversationId,
    queuedImagesHolder(conversationId),
  ]);
  db.run('DELETE FROM images WHERE sha256 NOT IN (SELECT sha256 FROM image_uses)');
}

/** A fork uses what its parent uses (its copied events name the same images). */
export function copyImageUses(db: Database, parentId: string, forkId: string): void {
  db.run(
    'INSERT OR IGNORE INTO image_uses (conversation_id, sha256) SELECT ?, sha256 FROM image_uses WHERE conversation_id = ?',
    [forkId, parentId],
  );
}
