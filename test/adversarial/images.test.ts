/**
 * Hostile images (issue 36): each gets a clear message, and nothing else breaks — the process
 * keeps its memory (a bomb is refused by its header, before decoding) and the next image works.
 */
import assert from 'node:assert/strict';
import * as zlib from 'node:zlib';
import { Jimp } from 'jimp';
import { imageSize } from 'image-size';
import { ImageError, prepareImage } from '../../src/node/images/prepare-image';
import { appendUserImages } from '../../src/core/images/user-images';
import { capImages, countImages } from '../../src/core/images/image-notes';
import type { ImagePart, ModelMessage } from '../../src/core/llm/llm-client';

async function refusal(bytes: Uint8Array, name = 'x.png'): Promise<string> {
  try {
    await prepareImage(bytes, { name });
  } catch (error) {
    assert.ok(error instanceof ImageError, `an ImageError, not ${String(error)}`);
    return error.message;
  }
  assert.fail('the image was accepted');
}

function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A valid-looking PNG that claims width×height, with a few bytes of (compressed) data. */
function pngClaiming(width: number, height: number): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(Buffer.alloc(1024))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A GIF that claims width×height with one empty frame. */
function gifClaiming(width: number, height: number): Buffer {
  const screen = Buffer.alloc(7);
  screen.writeUInt16LE(width, 0);
  screen.writeUInt16LE(height, 2);
  return Buffer.concat([Buffer.from('GIF89a', 'ascii'), screen, Buffer.from([0x3b])]);
}

/** An animated GIF of `frames` 8×8 frames, each a different colour. */
function animatedGif(frames: number): Buffer {
  const parts = [Buffer.from('GIF89a', 'ascii'), Buffer.from([8, 0, 8, 0, 0xf0, 0, 0])];
  // Global colour table of two entries: red, blue.
  parts.push(Buffer.from([255, 0, 0, 0, 0, 255]));
  for (let frame = 0; frame < frames; frame++) {
    parts.push(Buffer.from([0x21, 0xf9, 4, 0, 1, 0, 0, 0]));
    parts.push(Buffer.from([0x2c, 0, 0, 0, 0, 8, 0, 8, 0, 0]));
    // LZW minimum code size 2; one sub-block of codes: clear, 64× colour index (frame parity)… kept tiny.
    const index = frame % 2;
    parts.push(Buffer.from([2, 0x16, ...lzwFill(index), 0]));
  }
  parts.push(Buffer.from([0x3b]));
  return Buffer.concat(parts);
}

/** LZW data (code size 3 bits at start) filling 64 pixels with one colour index: clear, 64 literals, end. */
function lzwFill(index: number): number[] {
  const codes = [4, ...Array.from({ length: 64 }, () => index), 5];
  const bytes: number[] = [];
  let buffer = 0;
  let bits = 0;
  let size = 3;
  let next = 6;
  for (const [position, code] of codes.entries()) {
    buffer |= code << bits;
    bits += size;
    while (bits >= 8) {
      bytes.push(buffer & 0xff);
      buffer >>>= 8;
      bits -= 8;
    }
    // After the clear code and each literal but the first, the table grows (the decoder does the same).
    if (position > 1 && position < codes.length - 1) {
      next++;
      if (next === 1 << size && size < 12) size++;
    }
  }
  if (bits > 0) bytes.push(buffer & 0xff);
  return bytes.slice(0, 0x16).concat(Array(Math.max(0, 0x16 - bytes.length)).fill(0));
}

async function jpeg(width: number, height: number): Promise<Buffer> {
  return new Jimp({ width, height, color: 0x884422ff }).getBuffer('image/jpeg', { quality: 90 });
}

describe('hostile images', () => {
  it('a text file named .png is refused as not a picture', async () => {
    assert.match(
      await refusal(Buffer.from('console.log("hi")\n'), 'fake.png'),
      /fake\.png is not a PNG, JPEG, GIF or WebP image/,
    );
  });

  it('a 0-byte file is refused as empty', async () => {
    assert.match(await refusal(new Uint8Array(0), 'empty.png'), /empty\.png is empty \(0 bytes\)/);
  });

  it('a PNG header claiming 100000×100000 is refused before decoding, and memory stays put', async () => {
    const before = process.memoryUsage().rss;
    const bomb = pngClaiming(100_000, 100_000);
    assert.ok(bomb.length < 2_000);
    assert.match(await refusal(bomb, 'bomb.png'), /claims 100000×100000 pixels .* refused before decoding/);
    assert.ok(process.memoryUsage().rss - before < 200 * 1024 * 1024);
  });

  it('a GIF header claiming 65535×65535 is refused the same way', async () => {
    assert.match(await refusal(gifClaiming(65_535, 65_535), 'bomb.gif'), /claims 65535×65535 pixels/);
  });

  it('an animated GIF of 3000 frames becomes its first frame, as a PNG', async () => {
    const gif = animatedGif(3000);
    const image = await prepareImage(gif, { name: 'anim.gif' });
    assert.equal(image.mediaType, 'image/png');
    assert.deepEqual([image.width, image.height], [8, 8]);
  });

  it('SVG is never rasterized: refused as text', async () => {
    const svg = Buffer.from('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>');
    assert.match(await refusal(svg, 'logo.svg'), /logo\.svg is SVG: that is text/);
    assert.match(await refusal(Buffer.from('  <svg width="1" height="1"></svg>'), 'a.png'), /is SVG/);
  });

  it('a truncated JPEG is refused as damaged', async () => {
    const whole = await jpeg(400, 300);
    const cut = whole.subarray(0, Math.floor(whole.length / 3));
    const message = await refusal(cut, 'cut.jpg').catch(() => 'accepted');
    assert.match(message, /cut\.jpg could not be decoded .* damaged or not what it claims/);
  });

  it('a huge EXIF block is dropped: the image is re-encoded without it', async () => {
    const plain = await jpeg(200, 100);
    // An APP1 segment is at most 64 KB; forty of them make a 2.6 MB header before the picture.
    const app1 = Buffer.concat([
      Buffer.from([0xff, 0xe1, 0xff, 0xff]),
      Buffer.from('Exif\0\0'),
      Buffer.alloc(0xffff - 8, 0x41),
    ]);
    const bloated = Buffer.concat([plain.subarray(0, 2), ...Array(40).fill(app1), plain.subarray(2)]);
    const image = await prepareImage(bloated, { name: 'exif.jpg' });
    const sent = Buffer.from(image.data, 'base64');
    assert.ok(sent.length < 50_000, `sent ${sent.length} bytes`);
    assert.ok(!sent.includes(Buffer.from('Exif\0\0AAAA')));
    assert.deepEqual(imageSize(sent), { width: 200, height: 100, type: 'jpg' });
  });

  it('100 images in one message are refused with the cap; a request keeps the newest 100', () => {
    const image = (n: number): ImagePart => ({
      type: 'image',
      mediaType: 'image/png',
      data: 'AA==',
      width: 10,
      height: 10,
      sha256: String(n),
    });
    const history: ModelMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'look' }] }];
    assert.throws(
      () =>
        appendUserImages(
          history,
          Array.from({ length: 100 }, (_, n) => image(n)),
        ),
      /100 images attached; a message carries at most 20/,
    );
    assert.equal(countImages(history[0]!), 0, 'nothing half-added');
    const many: ModelMessage[] = Array.from({ length: 6 }, (_, turn) => ({
      role: 'user' as const,
      content: Array.from({ length: 20 }, (_, n) => image(turn * 20 + n)),
    }));
    const capped = capImages(many, 100);
    assert.equal(
      capped.reduce((sum, message) => sum + countImages(message), 0),
      100,
    );
    assert.match(JSON.stringify(capped[0]), /An earlier image is no longer sent/);
    assert.equal(countImages(capped[5]!), 20, 'the newest are kept');
  });

  it('after all of that, a good image still works', async () => {
    const image = await prepareImage(await jpeg(2000, 1000), { name: 'ok.jpg' });
    assert.deepEqual([image.width, image.height, image.mediaType], [1568, 784, 'image/jpeg']);
  });
});
