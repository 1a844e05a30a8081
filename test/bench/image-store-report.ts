/**
 * Images in the store (issue 36), printed by `npm run bench`: keeping a 4 MB image (the largest
 * a prepared image may be) in the sql.js store — its first put (the bytes through the journal),
 * a second conversation's use of it (a small entry), and reading it back after reopening — and
 * what the store's files hold per image byte.
 */
import { createHash, randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { table } from './bench-table';
import { SqlJsStore } from '../../src/store/sqljs-store';
import { redactValue } from '../../src/core/llm/redact';
import { IMAGE_LIMITS } from '../../src/core/images/image-limits';
import type { ImagePart } from '../../src/core/llm/llm-client';

const WASM = path.resolve(__dirname, '..', '..', 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm');

async function timed<T>(work: () => Promise<T>): Promise<[T, number]> {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
}

export async function printImageStoreBenchmarks(): Promise<void> {
  console.log('\nImages in the store: one 4 MB image kept, used again, read back after reopening\n');
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-bench-images-'));
  const open = async () => (await SqlJsStore.open({ directory, wasmPath: WASM, redact: redactValue })).store;
  // Random bytes: what compresses worst, so no file format flatters the figures.
  const bytes = randomBytes(IMAGE_LIMITS.maxBytes);
  const image: ImagePart = {
    type: 'image',
    mediaType: 'image/png',
    data: bytes.toString('base64'),
    width: 1568,
    height: 1176,
    sha256: createHash('sha256').update(bytes).digest('hex'),
    name: 'bench.png',
  };
  const store = await open();
  const [, firstMs] = await timed(() => store.images.put(image, 'a'));
  const [, againMs] = await timed(() => store.images.put(image, 'b'));
  await store.close();
  const again = await open();
  const [read, readMs] = await timed(() => again.images.get(image.sha256));
  const files = fs.readdirSync(directory).reduce((sum, file) => sum + fs.statSync(path.join(directory, file)).size, 0);
  await again.close();
  fs.rmSync(directory, { recursive: true, force: true });
  console.log(
    table(
      ['step', 'time', 'note'],
      [
        ['first put (4 MB)', `${firstMs.toFixed(0)} ms`, 'bytes checked against sha256, journaled as base64'],
        [
          'same image, 2nd conversation',
          `${againMs.toFixed(1)} ms`,
          `${(firstMs / Math.max(againMs, 0.01)).toFixed(0)}× faster: a use entry only`,
        ],
        ['get after reopen', `${readMs.toFixed(0)} ms`, read?.data === image.data ? 'bytes identical' : 'BYTES DIFFER'],
        ['store files / image bytes', `${(files / bytes.length).toFixed(2)}×`, 'journal (base64) + snapshot'],
      ],
    ),
  );
}
