/**
 * Lists the entries of a zip file (a .vsix is one) by reading its central directory, and
 * inflates an entry on demand. Enough of the format for inspecting our own packages.
 */
import * as fs from 'node:fs';
import * as zlib from 'node:zlib';

export interface ZipEntry {
  name: string;
  compressedSize: number;
  size: number;
  read(): Buffer;
}

export function readZipEntries(file: string): ZipEntry[] {
  const data = fs.readFileSync(file);
  // The end-of-central-directory record sits in the last 64 KiB + 22 bytes.
  let end = -1;
  for (let offset = data.length - 22; offset >= Math.max(0, data.length - 65_557); offset--) {
    if (data.readUInt32LE(offset) === 0x06054b50) {
      end = offset;
      break;
    }
  }
  if (end < 0) throw new Error(`${file} is not a zip file`);
  const count = data.readUInt16LE(end + 10);
  let cursor = data.readUInt32LE(end + 16);
  const entries: ZipEntry[] = [];
  for (let index = 0; index < count; index++) {
    if (data.readUInt32LE(cursor) !== 0x02014b50) throw new Error(`${file}: bad central directory`);
    const method = data.readUInt16LE(cursor + 10);
    const compressedSize = data.readUInt32LE(cursor + 20);
    const size = data.readUInt32LE(cursor + 24);
    const nameLength = data.readUInt16LE(cursor + 28);
    const extraLength = data.readUInt16LE(cursor + 30);
    const commentLength = data.readUInt16LE(cursor + 32);
    const localHeader = data.readUInt32LE(cursor + 42);
    const name = data.toString('utf8', cursor + 46, cursor + 46 + nameLength);
    entries.push({
      name,
      compressedSize,
      size,
      read: () => {
        const start = localHeader + 30 + data.readUInt16LE(localHeader + 26) + data.readUInt16LE(localHeader + 28);
        const raw = data.subarray(start, start + compressedSize);
        return method === 0 ? Buffer.from(raw) : zlib.inflateRawSync(raw);
      },
    });
    cursor += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
