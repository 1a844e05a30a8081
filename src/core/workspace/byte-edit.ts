/**
 * edit_file's fast path for big files: a single edit whose oldText occurs exactly once, found
 * and replaced in the file's bytes, so that a 100 MB file is neither decoded into a string nor
 * encoded back (each of those costs more than reading and writing it). It applies only to
 * UTF-8 files without a byte-order mark, not binary, and only on the ladder's first rung;
 * anything else (several edits, no exact match, several matches) goes the text way, which also
 * explains refusals.
 *
 * The file is not validated as UTF-8 (that alone costs as much as reading it): a valid UTF-8
 * oldText without U+FFFD occurs in the bytes exactly where it occurs in the decoded text, since
 * UTF-8 sequences cannot start inside one another. Where the text path would also rewrite
 * invalid bytes elsewhere as U+FFFD, this path leaves every untouched byte as it was.
 */
import { Buffer } from 'node:buffer';
import type { TextEdit } from './apply-edits';
import { looksBinary } from './text-file';

/** Files smaller than this take the text path: it is fast enough there. */
export const BYTE_PATH_MIN_BYTES = 1024 * 1024;

/** The file's new bytes in pieces (the untouched parts are views of the old bytes), or undefined. */
export function exactByteEdit(bytes: Uint8Array, edits: readonly TextEdit[]): Uint8Array[] | undefined {
  const [edit] = edits;
  if (!edit || edits.length > 1 || edit.replaceAll) return undefined;
  const hasBom =
    (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) ||
    (bytes[0] === 0xff && bytes[1] === 0xfe) ||
    (bytes[0] === 0xfe && bytes[1] === 0xff);
  if (hasBom || looksBinary(bytes)) return undefined;
  const oldText = edit.oldText.replace(/\r\n/g, '\n');
  const newText = edit.newText.replace(/\r\n/g, '\n');
  // U+FFFD (or a lone surrogate, encoded as one) stands for any invalid bytes in decoded text:
  // only the text path matches it the way the model saw it.
  if (oldText === '' || oldText === newText || /[\uD800-\uDFFF\uFFFD]/u.test(oldText + newText)) return undefined;
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // The file's line endings, judged by its first line as decodeText judges them.
  const firstBreak = buffer.indexOf(0x0a);
  const crlf = firstBreak > 0 && buffer[firstBreak - 1] === 0x0d;
  const native = (text: string) => Buffer.from(crlf ? text.replace(/\n/g, '\r\n') : text, 'utf8');
  const needle = native(oldText);
  const first = buffer.indexOf(needle);
  if (first < 0 || buffer.indexOf(needle, first + needle.length) >= 0) return undefined;
  return [buffer.subarray(0, first), native(newText), buffer.subarray(first + needle.length)];
}
