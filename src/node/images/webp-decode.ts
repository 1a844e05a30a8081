/**
 * WebP decoded to RGBA (issue 36), so a WebP is checked, scaled and re-encoded like every other
 * picture instead of passed through as it came (or refused when over the limits).
 *
 * The decoder is libwebp compiled to WebAssembly (@jsquash/webp).
 * Its glue is an ES module that would fetch its .wasm from `import.meta.url`; the extension and
 * the CLI are CommonJS bundles. So this file is bundled on its own (dist/lazy-webp.js, listed in
 * esbuild-config.mjs: esbuild turns the ES module into CommonJS) and hands the glue a module it
 * compiled itself from webp_dec.wasm — next to the bundle in dist/ (copied by esbuild.mjs, shipped
 * in the .vsix), or in node_modules when run from the sources. Nothing is fetched.
 *
 * Each decode gets a fresh instance of the compiled module: a WebAssembly memory only grows, and
 * one kept for the life of the window would keep the largest picture ever decoded (up to 200 MB
 * for 50 megapixels). Instantiating a compiled module costs about a millisecond.
 */
import { existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import decodeWebp, { init as initWebp } from '@jsquash/webp/decode.js';

export interface DecodedWebp {
  /** RGBA, 4 bytes a pixel. */
  data: Buffer;
  width: number;
  height: number;
}

const WASM_FILE = 'webp_dec.wasm';
let compiled: Promise<WebAssembly.Module> | undefined;

/** Where webp_dec.wasm is: beside the bundle (dist/), else the package in node_modules. */
export function webpWasmPath(): string {
  const beside = path.join(__dirname, WASM_FILE);
  if (existsSync(beside)) return beside;
  return require.resolve(`@jsquash/webp/codec/dec/${WASM_FILE}`);
}

function compiledModule(): Promise<WebAssembly.Module> {
  compiled ??= fs.readFile(webpWasmPath()).then(
    (bytes) => WebAssembly.compile(bytes),
    (error: unknown) => {
      compiled = undefined;
      throw error;
    },
  );
  return compiled;
}

/** The picture's pixels; throws when the bytes are not a whole, still WebP (an animation is refused). */
export async function decodeWebpPixels(bytes: Uint8Array): Promise<DecodedWebp> {
  const module = await compiledModule();
  // The glue's own `init(module)` spelling, through the overrides its types declare.
  await initWebp({
    instantiateWasm: (imports: WebAssembly.Imports, ready: (instance: WebAssembly.Instance) => void) => {
      const instance = new WebAssembly.Instance(module, imports);
      ready(instance);
      return instance.exports;
    },
  } as unknown as Parameters<typeof initWebp>[0]);
  const copy = new Uint8Array(bytes.byteLength);
  copy.set(bytes);
  const image = await decodeWebp(copy.buffer);
  return {
    data: Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength),
    width: image.width,
    height: image.height,
  };
}
