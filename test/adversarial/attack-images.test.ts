/**
 * Attacks on images (issue 36), through the product's own code: @image:path against links,
 * pipes and secrets; bombs the header probe does not see (a GIF's first frame), many large
 * pictures at once (memory), forged sizes in an import (the meter and the estimate), and names
 * that try to break out of the exported Markdown.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as zlib from 'node:zlib';
import MarkdownIt from 'markdown-it';
import { NodeWorkspace } from '../../src/node/node-workspace';
import { nodeImageFiles } from '../../src/node/images/node-image-files';
import { ImageError, prepareImage } from '../../src/node/images/prepare-image';
import { readImageMention } from '../../src/core/images/image-mention';
import { imageTokens } from '../../src/core/images/image-limits';
import { imageReference } from '../../src/core/images/user-images';
import { conversationToMarkdown, exportConversation, importConversation } from '../../src/store/conversation-export';
import { openStore, tempDir } from '../unit/store/store-helpers';
import { preparedImage } from '../unit/images/image-fixtures';
import { pngOf } from '../fixtures/image-bytes';

const SECRET = 'sk-ant-api03-PROOF_attack_images_secret_value';

/** A GIF whose screen is 10×10 and whose first frame claims 65535×65535: 35 bytes. */
function gifFrameBomb(): Buffer {
  return Buffer.concat([
    Buffer.from('GIF89a', 'ascii'),
    Buffer.from([10, 0, 10, 0, 0xf0, 0, 0]),
    Buffer.from([255, 0, 0, 0, 0, 255]),
    Buffer.from([0x2c, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0]),
    Buffer.from([2, 2, 0x44, 0x01, 0]),
    Buffer.from([0x3b]),
  ]);
}

function crc32(bytes: Buffer): number {
  let crc = ~0;
  for (const byte of bytes) {
    crc ^= byte;
    for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
  }
  return ~crc >>> 0;
}

/** A real PNG of width×height, all black: a few hundred kilobytes for tens of megapixels. */
function blackPng(width: number, height: number): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const head = Buffer.alloc(4);
    head.writeUInt32BE(data.length);
    const tail = Buffer.alloc(4);
    tail.writeUInt32BE(crc32(body));
    return Buffer.concat([head, body, tail]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', zlib.deflateSync(Buffer.alloc((width * 3 + 1) * height), { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** Runs `work`, sampling the process's resident memory; returns its result and the peak growth (MB). */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ result: T; megabytes: number }> {
  global.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 2);
  try {
    const result = await work();
    return { result, megabytes: (Math.max(peak, process.memoryUsage().rss) - before) / 1e6 };
  } finally {
    clearInterval(timer);
  }
}

describe('attacks on images', function () {
  this.timeout(300_000);

  describe('@image:path and read_file of pictures on a real disk', () => {
    let root: string;
    let outside: string;
    const images = nodeImageFiles(() => ({ model: 'm', sees: true }));
    const mention = (input: string) => readImageMention(new NodeWorkspace(root), images, input);

    before(async () => {
      root = fs.mkdtempSync(path.join(os.tmpdir(), 'attack-images-'));
      outside = fs.mkdtempSync(path.join(os.tmpdir(), 'attack-images-out-'));
      fs.writeFileSync(path.join(root, '.env'), `ANTHROPIC_API_KEY=${SECRET}\n`);
      fs.writeFileSync(path.join(root, 'ok.png'), await pngOf(30, 20));
      fs.writeFileSync(path.join(outside, 'far.png'), await pngOf(10, 10));
      fs.linkSync(path.join(root, '.env'), path.join(root, 'env-hardlink.png'));
      fs.symlinkSync(path.join(root, '.env'), path.join(root, 'env-link.png'));
      fs.symlinkSync(outside, path.join(root, 'outdir'));
      fs.symlinkSync('/proc/self/environ', path.join(root, 'environ.png'));
      fs.symlinkSync(path.join(root, 'loop-b.png'), path.join(root, 'loop-a.png'));
      fs.symlinkSync(path.join(root, 'loop-a.png'), path.join(root, 'loop-b.png'));
      fs.mkdirSync(path.join(root, 'folder.png'));
      execFileSync('mkfifo', [path.join(root, 'pipe.png')]);
    });
    after(() => {
      fs.rmSync(root, { recursive: true, force: true });
      fs.rmSync(outside, { recursive: true, force: true });
    });

    it('refuses each hostile path with a reason, never blocks, and no secret reaches a message', async () => {
      const hostile = [
        'env-hardlink.png',
        'env-link.png',
        '.env',
        '.ENV',
        'outdir/far.png',
        '../' + path.basename(outside) + '/far.png',
        path.join(outside, 'far.png'),
        'environ.png',
        '/proc/self/environ',
        '/proc/self/cwd/ok.png',
        `/proc/self/root${root}/.env`,
        'loop-a.png',
        'folder.png',
        'pipe.png',
        'missing.png',
        './././../../../../etc/passwd',
      ];
      for (const input of hostile) {
        const message = await mention(input).then(
          () => assert.fail(`${input} was attached`),
          (error: Error) => error.message,
        );
        assert.doesNotMatch(message, /PROOF_attack_images|sk-ant-api03/, `${input}: ${message}`);
      }
      // After all of them, a good picture still works.
      assert.equal((await mention('ok.png')).width, 30);
    });

    it('a FIFO, a folder or a device reached by the reader itself (a swap after the checks) is refused at once', async () => {
      for (const target of [path.join(root, 'pipe.png'), path.join(root, 'folder.png'), '/dev/zero']) {
        const started = Date.now();
        await assert.rejects(images.read(target, 'x.png'), (error: unknown) => {
          assert.ok(error instanceof ImageError, String(error));
          assert.match(error.message, /x\.png is not a file/);
          return true;
        });
        assert.ok(Date.now() - started < 20_000, 'not blocked');
      }
    });
  });

  describe('bombs and crowds', () => {
    it('a 35-byte GIF whose first frame claims 65535×65535 is refused by its frame, at once', async () => {
      const started = Date.now();
      const { result, megabytes } = await peakGrowth(() =>
        prepareImage(gifFrameBomb(), { name: 'tiny.gif' }).then(
          () => 'accepted',
          (error: Error) => error.message,
        ),
      );
      assert.match(result, /tiny\.gif is a GIF whose first frame \(65535×65535/);
      assert.ok(Date.now() - started < 10_000, `took ${Date.now() - started} ms`);
      assert.ok(megabytes < 100, `grew ${megabytes} MB`);
    });

    it('four 49-megapixel PNGs (200 KB each) asked at once are decoded one at a time', async () => {
      const bomb = blackPng(7000, 7000);
      assert.ok(bomb.length < 300_000);
      const { result, megabytes } = await peakGrowth(() =>
        Promise.all([1, 2, 3, 4].map((n) => prepareImage(bomb, { name: `b${n}.png` }))),
      );
      for (const image of result) assert.deepEqual([image.width, image.height], [1568, 1568]);
      // One decode of 49 megapixels peaks near half a gigabyte; four at once would be two.
      assert.ok(megabytes < 1_000, `grew ${Math.round(megabytes)} MB`);
    });
  });

  describe('forged sizes and names in conversations', () => {
    it('the token estimate of an image stays within one full-size picture whatever its size claims', () => {
      const most = imageTokens(1568, 1568);
      for (const [width, height] of [
        [Number.NaN, 10],
        [-5000, 3000],
        [1e308, 1e308],
        [Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
        [Infinity, -Infinity],
        ['1e9' as unknown as number, 5],
      ]) {
        const tokens = imageTokens(width!, height!);
        assert.ok(Number.isSafeInteger(tokens) && tokens >= 1 && tokens <= most, `${width}×${height}: ${tokens}`);
      }
      assert.equal(imageTokens(1092, 1092), 1590);
    });

    it('an import whose image claims 9007199254740991×9007199254740991 is refused whole', async () => {
      const { store } = await openStore(tempDir());
      const image = await preparedImage(71);
      await store.saveConversation({ id: 'c1', title: 'T', createdAt: 1, updatedAt: 2, settings: {} });
      await store.putMessage({
        id: 'c1-1',
        conversationId: 'c1',
        seq: 1,
        role: 'user',
        content: { text: 'look', images: [imageReference(image)] },
        createdAt: 1,
      });
      await store.images.put(image, 'c1');
      const exported = JSON.parse(JSON.stringify(await exportConversation(store, 'c1')));
      exported.images[0].width = Number.MAX_SAFE_INTEGER;
      exported.images[0].height = Number.MAX_SAFE_INTEGER;
      const { store: other } = await openStore(tempDir());
      await assert.rejects(importConversation(other, JSON.stringify(exported)), /has no valid size/);
      assert.deepEqual(await other.listConversations(), []);
      assert.deepEqual(await other.images.totals(), { count: 0, bytes: 0 });
    });

    it('a name cannot break out of the exported Markdown: one image, the rest text', async () => {
      const image = await preparedImage(72);
      const names = [
        'x](javascript:alert(1)) ![y](https://evil.example/t.png',
        'a\n\n# Owned\n<script>alert(1)</script>',
        'b\r\n[link]: https://evil.example',
        '<img src=x onerror=alert(1)>`code`*em*',
        'c\u2028\u202eevil\u2066\\](x)',
      ];
      const markdown = new MarkdownIt({ html: true });
      for (const name of names) {
        const reference = { ...imageReference(image), name };
        const exported = {
          format: 'openagent.conversation',
          version: 1,
          conversation: { id: 'c', title: 'T', createdAt: 1, updatedAt: 2, settings: {} },
          messages: [
            {
              id: 'c-1',
              conversationId: 'c',
              seq: 1,
              role: 'user',
              content: { text: 'hi', images: [reference] },
              createdAt: 1,
            },
            {
              id: 'c-2',
              conversationId: 'c',
              seq: 2,
              role: 'user',
              content: { text: 'gone', images: [{ ...reference, sha256: 'f'.repeat(64) }] },
              createdAt: 2,
            },
          ],
          images: [image],
        } as unknown as Parameters<typeof conversationToMarkdown>[0];
        const html = markdown.render(conversationToMarkdown(exported));
        assert.equal(html.match(/<img /g)?.length, 1, `${JSON.stringify(name)}:\n${html}`);
        assert.match(html, /<img src="data:image\/png;base64,/);
        // The elements the export itself makes, and none other; attribute text is text.
        const tags = [...html.replace(/ alt="[^"]*"/g, '').matchAll(/<([a-z0-9]+)[\s>]/g)].map((match) => match[1]);
        assert.deepEqual(
          tags,
          ['h1', 'p', 'em', 'h2', 'p', 'p', 'img', 'h2', 'p', 'p', 'em'],
          `${JSON.stringify(name)}:\n${html}`,
        );
        assert.doesNotMatch(html, /\u202e|\u2066|\u2028/);
      }
    });
  });
});
