/**
 * Store benchmarks (issue 4): the cost of persisting one message at 1 MB versus 100 MB of
 * history, bytes written per message byte (folds included), and the time to list 10,000
 * conversations and to load a 5,000-message conversation.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { StoredMessage } from '../../src/core/ports';
import { redactValue } from '../../src/core/llm/redact';
import { SqlJsStore } from '../../src/store/sqljs-store';
import { nodeStoreFiles, type StoreFiles } from '../../src/store/store-files';

const WASM = path.resolve(__dirname, '..', '..', 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm');

/** Counts every byte the store writes to disk, journal and snapshots alike. */
function countingFiles(): StoreFiles & { written: number } {
  const files = {
    ...nodeStoreFiles,
    written: 0,
    async appendDurable(file: string, data: string) {
      files.written += Buffer.byteLength(data);
      return nodeStoreFiles.appendDurable(file, data);
    },
    async writeAtomic(file: string, data: Uint8Array) {
      files.written += data.length;
      return nodeStoreFiles.writeAtomic(file, data);
    },
  };
  return files;
}

function message(conversationId: string, seq: number, text: string): StoredMessage {
  return {
    id: `${conversationId}-${seq}`,
    conversationId,
    seq,
    role: seq % 2 ? 'assistant' : 'user',
    content: text,
    createdAt: seq,
  };
}

async function storeWithHistory(historyBytes: number, files: StoreFiles): Promise<SqlJsStore> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-store-bench-'));
  const { store } = await SqlJsStore.open({ directory, wasmPath: WASM, redact: redactValue, files });
  const chunk = 'h'.repeat(50_000);
  for (let seq = 0; seq * chunk.length < historyBytes; seq++) await store.putMessage(message('history', seq, chunk));
  return store;
}

export interface PersistResult {
  historyMb: number;
  msPerMessage: number;
  amplification: number;
}

/**
 * Average cost of saving 2 KB messages, over enough messages that at least one fold (a rewrite
 * of the whole snapshot) happens at either size: its cost is amortised into the figures.
 */
export async function measurePersist(historyMb: number): Promise<PersistResult> {
  const files = countingFiles();
  const store = await storeWithHistory(historyMb * 1024 * 1024, files);
  const text = 'm'.repeat(2_048);
  const count = Math.max(2_000, Math.ceil((historyMb * 1024 * 1024 * 0.3) / text.length));
  files.written = 0;
  const started = performance.now();
  for (let index = 0; index < count; index++) await store.putMessage(message('new', index, text));
  const elapsed = performance.now() - started;
  await store.close();
  return { historyMb, msPerMessage: elapsed / count, amplification: files.written / (count * text.length) };
}

export async function measureListAndLoad(): Promise<{
  listMs: number;
  loadMs: number;
  conversations: number;
  messages: number;
}> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-store-bench-'));
  const { store } = await SqlJsStore.open({ directory, wasmPath: WASM, redact: redactValue });
  for (let index = 0; index < 10_000; index++) {
    await store.saveConversation({
      id: `c${index}`,
      title: `Conversation ${index}`,
      createdAt: index,
      updatedAt: index,
      settings: { model: 'fake-model' },
    });
  }
  for (let seq = 0; seq < 5_000; seq++) await store.putMessage(message('long', seq, `message ${seq} `.repeat(20)));
  await store.close();
  const { store: reopened } = await SqlJsStore.open({ directory, wasmPath: WASM, redact: redactValue });
  let started = performance.now();
  const conversations = await reopened.listConversations();
  const listMs = performance.now() - started;
  started = performance.now();
  const messages = await reopened.listMessages('long');
  const loadMs = performance.now() - started;
  await reopened.close();
  return { listMs, loadMs, conversations: conversations.length, messages: messages.length };
}
