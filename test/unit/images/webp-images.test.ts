/**
 * WebP beyond the limits is scaled like every other picture (issue 36): decoded by libwebp in
 * WebAssembly (src/node/images/webp-decode.ts), scaled to 1568 px a side and re-encoded within
 * 4 MB — from the sources and from the bundles esbuild-config.mjs makes (the codec is an ES
 * module; the extension and the CLI are CommonJS, so the bundled path is run here too).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import Module from 'node:module';
import * as os from 'node:os';
import * as path from 'node:path';
import * as esbuild from 'esbuild';
import { imageSize } from 'image-size';
import { ImageError, prepareImage } from '../../../src/node/images/prepare-image';
import { IMAGE_LIMITS } from '../../../src/core/images/image-limits';
import type { ImagePart } from '../../../src/core/llm/llm-client';
import { pixelOf, webpImage } from './webp-fixtures';

const projectRoot = path.resolve(__dirname, '..', '..', '..');
/** Loads a built bundle by its path, as the extension host loads the extension's files. */
const loadBundle = Module.createRequire(__filename);

function bytesOf(image: ImagePart): Buffer {
  return Buffer.from(image.data, 'base64');
}

/** What a prepared image must be: within every limit, and its bytes the size and type it says. */
function assertWithinLimits(image: ImagePart): void {
  const bytes = bytesOf(image);
  assert.ok(Math.max(image.width, image.height) <= IMAGE_LIMITS.maxLongSide, `${image.width}×${image.height}`);
  assert.ok(bytes.length <= IMAGE_LIMITS.maxBytes, `${bytes.length} bytes`);
  const probed = imageSize(bytes);
  assert.deepEqual([probed.width, probed.height], [image.width, image.height]);
  assert.equal(`image/${probed.type === 'jpg' ? 'jpeg' : probed.type}`, image.mediaType);
}

describe('WebP images are scaled like the others', function () {
  this.timeout(180_000);

  it('a 4000×3000 WebP is scaled to 1568×1176 and sent as PNG, its colours kept', async () => {
    const webp = await webpImage(4000, 3000);
    const image = await prepareImage(webp, { name: 'wide.webp' });
    assert.deepEqual([image.width, image.height], [1568, 1176]);
    assert.equal(image.mediaType, 'image/png');
    assertWithinLimits(image);
    // Top half red, bottom half blue, as drawn (lossy: close, not exact).
    const top = await pixelOf(bytesOf(image), 10, 10);
    const bottom = await pixelOf(bytesOf(image), 10, 1160);
    assert.ok(top >>> 24 > 150 && ((bottom >>> 8) & 0xff) > 150, `${top.toString(16)} ${bottom.toString(16)}`);
  });

  it('a WebP of photographic detail over 4 MB as PNG ends within 4 MB (as JPEG)', async () => {
    const webp = await webpImage(3000, 2000, { noise: true, quality: 100 });
    assert.ok(webp.length > IMAGE_LIMITS.maxBytes, `the fixture is ${webp.length} bytes`);
    const image = await prepareImage(webp, { name: 'photo.webp' });
    assert.equal(image.mediaType, 'image/jpeg');
    assertWithinLimits(image);
  });

  it('a small WebP is decoded and re-encoded too: whole, and without what it carried besides pixels', async () => {
    const image = await prepareImage(await webpImage(120, 90, { lossless: true }), { name: 'small.webp' });
    assert.deepEqual([image.width, image.height, image.mediaType], [120, 90, 'image/png']);
    assert.equal(await pixelOf(bytesOf(image), 0, 0), 0xc82828ff);
  });

  it('a WebP header followed by garbage is refused, not passed through to break every later request', async () => {
    const webp = await webpImage(64, 64);
    const forged = Buffer.concat([webp.subarray(0, 30), Buffer.alloc(200, 0x5a)]);
    forged.writeUInt32LE(forged.length - 8, 4);
    await assert.rejects(prepareImage(forged, { name: 'forged.webp' }), (error: unknown) => {
      assert.ok(error instanceof ImageError);
      assert.match(error.message, /forged\.webp could not be decoded/);
      return true;
    });
  });

  it('an animated WebP is refused in words', async () => {
    const webp = await webpImage(32, 32);
    // The extended header (VP8X) with its animation flag set, before the still frame's chunk.
    const vp8x = Buffer.alloc(18);
    vp8x.write('VP8X', 0, 'latin1');
    vp8x.writeUInt32LE(10, 4);
    vp8x[8] = 0x02;
    vp8x.writeUIntLE(31, 12, 3);
    vp8x.writeUIntLE(31, 15, 3);
    const riff = Buffer.concat([webp.subarray(0, 12), vp8x, webp.subarray(12)]);
    riff.writeUInt32LE(riff.length - 8, 4);
    await assert.rejects(prepareImage(riff, { name: 'moving.webp' }), /moving\.webp is an animated WebP/);
  });

  describe('from the bundles the .vsix ships', () => {
    let outdir: string;

    before(async () => {
      const config = (await import(path.join(projectRoot, 'esbuild-config.mjs'))) as {
        extensionBuild(common: esbuild.BuildOptions): esbuild.BuildOptions;
      };
      outdir = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-webp-bundle-'));
      const options = config.extensionBuild({ bundle: true, minify: true, legalComments: 'none', logLevel: 'error' });
      // The extension's own bundles, plus an entry for prepare-image itself so the test can call it:
      // it reaches jimp, image-size and the WebP decoder through their lazy files, as the runtime does.
      const entryPoints = {
        ...(options.entryPoints as Record<string, string>),
        'prepare-image': 'src/node/images/prepare-image.ts',
      };
      await esbuild.build({ ...options, entryPoints, absWorkingDir: projectRoot, outdir });
      // What esbuild.mjs copies beside the bundles.
      fs.copyFileSync(
        path.join(projectRoot, 'node_modules', '@jsquash', 'webp', 'codec', 'dec', 'webp_dec.wasm'),
        path.join(outdir, 'webp_dec.wasm'),
      );
    });

    after(() => fs.rmSync(outdir, { recursive: true, force: true }));

    it('lazy-webp.js is CommonJS that needs nothing from node_modules, and scales a large WebP', async () => {
      const webpBundle = fs.readFileSync(path.join(outdir, 'lazy-webp.js'), 'utf8');
      assert.doesNotMatch(webpBundle, /\bimport\(|\bimport\s*\{/, 'no ES-module syntax left for a CommonJS loader');
      const bundled = loadBundle(path.join(outdir, 'prepare-image.js')) as { prepareImage: typeof prepareImage };
      const decoder = loadBundle(path.join(outdir, 'lazy-webp.js')) as { webpWasmPath(): string };
      assert.equal(decoder.webpWasmPath(), path.join(outdir, 'webp_dec.wasm'));
      const image = await bundled.prepareImage(await webpImage(4000, 3000), { name: 'bundled.webp' });
      assert.deepEqual([image.width, image.height, image.mediaType], [1568, 1176, 'image/png']);
      assertWithinLimits(image);
    });
  });
});
