/**
 * Text files as they are on disk, so an edit can put them back the same way: the encoding
 * (UTF-8, UTF-16 LE/BE) with or without its byte-order mark, and the line endings.
 */
import { Buffer, isAscii } from 'node:buffer';

/** A text whole, or in pieces to be written one after the other. */
export type TextContent = string | readonly string[];
export interface DecodedText {
  text: string;
  encoding: 'utf8' | 'utf16le' | 'utf16be';
  bom: boolean;
  lineEnding: '\n' | '\r\n';
}

export class BinaryFileError extends Error {
  constructor(message = 'This is a binary file, not text.') {
    super(message);
    this.name = 'BinaryFileError';
  }
}

export function decodeText(bytes: Uint8Array): DecodedText {
  let encoding: DecodedText['encoding'] = 'utf8';
  let bom = false;
  let body = bytes;
  if (bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf) {
    bom = true;
    body = bytes.subarray(3);
  } else if (bytes[0] === 0xff && bytes[1] === 0xfe) {
    encoding = 'utf16le';
    bom = true;
    body = bytes.subarray(2);
  } else if (bytes[0] === 0xfe && bytes[1] === 0xff) {
    encoding = 'utf16be';
    bom = true;
    body = bytes.subarray(2);
  }
  if (encoding === 'utf8' && looksBinary(body)) throw new BinaryFileError();
  const text =
    encoding !== 'utf8'
      ? new TextDecoder(encoding === 'utf16le' ? 'utf-16le' : 'utf-16be').decode(body)
      : isAscii(body)
        ? // Plain ASCII (most source files): a byte is a character, and this is several times faster.
          Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('latin1')
        : new TextDecoder('utf-8', { fatal: false }).decode(body);
  const firstBreak = text.indexOf('\n');
  const lineEnding = firstBreak > 0 && text[firstBreak - 1] === '\r' ? '\r\n' : '\n';
  return { text, encoding, bom, lineEnding };
}

export function encodeText(text: TextContent, format: Omit<DecodedText, 'text'>): Uint8Array {
  const pieces = typeof text === 'string' ? [text] : text;
  const bom = format.bom ? (format.encoding === 'utf8' ? 3 : 2) : 0;
  if (format.encoding === 'utf8') {
    // One buffer of the exact size, each piece written into it: no joined copy of a big text.
    let size = bom;
    for (const piece of pieces) size += Buffer.byteLength(piece, 'utf8');
    const out = Buffer.allocUnsafe(size);
    if (bom) out.set([0xef, 0xbb, 0xbf]);
    let offset = bom;
    for (const piece of pieces) offset += out.write(piece, offset, 'utf8');
    return out;
  }
  let length = 0;
  for (const piece of pieces) length += piece.length;
  const out = new Uint8Array(length * 2 + bom);
  if (bom) out.set(format.encoding === 'utf16le' ? [0xff, 0xfe] : [0xfe, 0xff]);
  let offset = bom;
  for (const piece of pieces)
    for (let index = 0; index < piece.length; index++) {
      const code = piece.charCodeAt(index);
      const [first, second] = format.encoding === 'utf16le' ? [code & 0xff, code >> 8] : [code >> 8, code & 0xff];
      out[offset++] = first;
      out[offset++] = second;
    }
  return out;
}

/** A NUL byte in the first 8 KB is the usual sign of a binary file. */
export function looksBinary(bytes: Uint8Array): boolean {
  const end = Math.min(bytes.length, 8_192);
  for (let index = 0; index < end; index++) if (bytes[index] === 0) return true;
  return false;
}
