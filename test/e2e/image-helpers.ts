/**
 * Pictures for the editor tests, made and measured here (no image library to agree with the
 * product's), and the composer fed as a user feeds it: real paste and drop events whose
 * DataTransfer holds the files, on the composer's text area.
 */
import assert from 'node:assert/strict';
import * as zlib from 'node:zlib';
import { Jimp } from 'jimp';
import type { Frame } from 'playwright-core';
import { waitUntil } from '../harness/patience';

// ---------------------------------------------------------------- pictures, made and measured here

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
}

/**
 * A real RGB PNG of `width`×`height`, made by hand (no image library to agree with the product's):
 * four colour bands across, a darker left half — a picture whose preview shows something.
 */
export function makePng(width: number, height: number): Buffer {
  const bands = [
    [0x2f, 0x6f, 0xdf],
    [0xf2, 0xb1, 0x34],
    [0x3a, 0xa6, 0x5b],
    [0xd9, 0x48, 0x4a],
  ];
  const rows: Buffer[] = [];
  const rowFor = new Map<number, Buffer>();
  for (let y = 0; y < height; y++) {
    const band = Math.min(bands.length - 1, Math.floor((y * bands.length) / height));
    let row = rowFor.get(band);
    if (!row) {
      row = Buffer.alloc(1 + width * 3);
      const [r, g, b] = bands[band]!;
      for (let x = 0; x < width; x++) {
        const shade = x < width / 2 ? 0.6 : 1;
        row[1 + x * 3] = Math.round(r! * shade);
        row[2 + x * 3] = Math.round(g! * shade);
        row[3 + x * 3] = Math.round(b! * shade);
      }
      rowFor.set(band, row);
    }
    rows.push(row);
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, no filter method variant, not interlaced
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', zlib.deflateSync(Buffer.concat(rows))),
    pngChunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A 300×200 grey JPEG, as a camera or an editor would save one (jimp encodes it). */
export async function makeJpeg(): Promise<Buffer> {
  return new Jimp({ width: 300, height: 200, color: 0x808080ff }).getBuffer('image/jpeg');
}

/** Width and height read from a PNG's or a JPEG's own bytes (the IHDR chunk; a SOFn marker). */
export function dimensionsOf(bytes: Buffer): { format: 'png' | 'jpeg'; width: number; height: number } {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])))
    return { format: 'png', width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20) };
  assert.equal(bytes.readUInt16BE(0), 0xffd8, 'neither a PNG nor a JPEG');
  let offset = 2;
  while (offset < bytes.length) {
    assert.equal(bytes[offset], 0xff, `a JPEG marker at ${offset}`);
    const marker = bytes[offset + 1]!;
    const length = bytes.readUInt16BE(offset + 2);
    // SOF0–SOF15, except DHT (C4), JPG (C8) and DAC (CC).
    if (marker >= 0xc0 && marker <= 0xcf && ![0xc4, 0xc8, 0xcc].includes(marker))
      return { format: 'jpeg', height: bytes.readUInt16BE(offset + 5), width: bytes.readUInt16BE(offset + 7) };
    offset += 2 + length;
  }
  throw new Error('a JPEG without a frame header');
}

// ---------------------------------------------------------------- the composer, as a user feeds it

/** Pastes files into the composer: a real ClipboardEvent whose DataTransfer holds them, on the textarea. */
export async function pasteFiles(chat: Frame, files: ReadonlyArray<{ name: string; type: string; bytes: Buffer }>) {
  await dispatchFiles(chat, 'paste', files);
}

/** Drops files on the composer: dragenter, dragover and drop, each a real DragEvent with the DataTransfer. */
export async function dropFiles(chat: Frame, files: ReadonlyArray<{ name: string; type: string; bytes: Buffer }>) {
  await dispatchFiles(chat, 'drop', files);
}

async function dispatchFiles(
  chat: Frame,
  kind: 'paste' | 'drop',
  files: ReadonlyArray<{ name: string; type: string; bytes: Buffer }>,
): Promise<void> {
  const given = files.map((file) => ({ name: file.name, type: file.type, base64: file.bytes.toString('base64') }));
  const unhandled = await chat.locator('#prompt textarea').evaluate(
    (textarea, { kind, given }) => {
      const data = new DataTransfer();
      for (const file of given) {
        const bytes = Uint8Array.from(atob(file.base64), (char) => char.charCodeAt(0));
        data.items.add(new File([bytes], file.name, { type: file.type }));
      }
      // composed: a real paste or drop crosses the text area's shadow root to the composer's form.
      const init = { bubbles: true, cancelable: true, composed: true };
      if (kind === 'paste')
        return textarea.dispatchEvent(new ClipboardEvent('paste', { ...init, clipboardData: data }));
      textarea.dispatchEvent(new DragEvent('dragenter', { ...init, dataTransfer: data }));
      const accepted = !textarea.dispatchEvent(new DragEvent('dragover', { ...init, dataTransfer: data }));
      return textarea.dispatchEvent(new DragEvent('drop', { ...init, dataTransfer: data })) || !accepted;
    },
    { kind, given },
  );
  assert.equal(unhandled, false, `the composer took the ${kind} (the default was prevented)`);
}

/** The composer's chips: each one's name and whether its preview was drawn. */
export async function chips(chat: Frame): Promise<Array<{ name: string; preview: boolean }>> {
  return chat.locator('#image-chips .image-chip').evaluateAll((elements) =>
    elements.map((chip) => {
      const image = chip.querySelector('img');
      return {
        name: chip.querySelector('.image-chip-name')?.textContent ?? '',
        preview: !!image && image.complete && image.naturalWidth > 0 && image.src.startsWith('data:image/'),
      };
    }),
  );
}

/** Waits until the chips are `expected` (names, each with its preview drawn). */
export async function waitForChips(chat: Frame, expected: string[]): Promise<void> {
  let seen: Array<{ name: string; preview: boolean }> = [];
  await waitUntil(
    async () => {
      seen = await chips(chat);
      return (
        seen.length === expected.length && seen.every((chip, index) => chip.name === expected[index] && chip.preview)
      );
    },
    () => `the chips ${JSON.stringify(expected)} with previews; seen ${JSON.stringify(seen)}`,
  );
}

/** Waits until the prompt `text` is shown in the chat with `count` drawn previews of its images. */
export async function waitForTurnPreviews(chat: Frame, text: string, count: number): Promise<void> {
  const turn = chat.locator('.turn-user', { hasText: text }).last();
  await turn.waitFor();
  await waitUntil(
    () =>
      turn
        .locator('.image-strip img.image-preview')
        .evaluateAll((images) =>
          images.filter(
            (image) =>
              (image as HTMLImageElement).src.startsWith('data:image/') && (image as HTMLImageElement).naturalWidth > 0,
          ),
        )
        .then((drawn) => drawn.length === count),
    `${count} drawn preview(s) in the prompt "${text}"`,
  );
}
