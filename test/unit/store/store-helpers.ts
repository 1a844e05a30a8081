import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { StoredMessage } from '../../../src/core/ports';
import { redactValue } from '../../../src/core/llm/redact';
import { SqlJsStore, type SqlJsStoreOptions } from '../../../src/store/sqljs-store';

export const WASM = path.resolve(__dirname, '..', '..', '..', 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm');

export function tempDir(): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-store-'));
}

export async function openStore(directory: string, options: Partial<SqlJsStoreOptions> = {}) {
  return SqlJsStore.open({ directory, wasmPath: WASM, redact: redactValue, ...options });
}

export function message(
  conversationId: string,
  seq: number,
  text: string,
  role: StoredMessage['role'] = 'user',
): StoredMessage {
  return {
    id: `${conversationId}-m${seq}`,
    conversationId,
    seq,
    role,
    content: { role, content: [{ type: 'text', text }] },
    createdAt: 1_000 + seq,
  };
}
