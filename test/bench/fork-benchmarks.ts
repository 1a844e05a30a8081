/**
 * Fork benchmark (SPEC 5b): "Fork from here" on a 1,000-message conversation until the new
 * session is usable — the fork written to the store, reopened, its events and model history
 * ready for the next prompt — against the 100 ms target, and next to a plain reopening of the
 * same conversation (the part of the cost a fork cannot avoid). Medians; nothing fails on speed.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { redactValue } from '../../src/core/llm/redact';
import { ConversationSession } from '../../src/core/session/conversation-session';
import { SqlJsStore } from '../../src/store/sqljs-store';
import { longConversation } from '../fixtures/long-conversation';
import { median } from './stats';
import { table } from './bench-table';

const WASM = path.resolve(__dirname, '..', '..', 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm');
export const FORK_TARGET_MS = 100;

export interface ForkResult {
  messages: number;
  runs: number;
  forkMs: number;
  reopenMs: number;
}

export async function measureFork(messages = 1_000, runs = 9): Promise<ForkResult> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-fork-bench-'));
  const { store } = await SqlJsStore.open({ directory, wasmPath: WASM, redact: redactValue });
  await store.saveConversation({ id: 'long', title: 'long', createdAt: 0, updatedAt: 0, settings: {} });
  // About 300 characters a message: prompts, answers and tool results of a working session.
  for (const message of longConversation('long', messages / 5, ' lorem ipsum'.repeat(25)))
    await store.putMessage(message);
  let next = 0;
  const session = new ConversationSession({
    readSettings: () => ({ provider: 'anthropic', model: 'fake-model', baseUrl: '' }),
    secrets: { getApiKey: async () => undefined },
    clock: { now: () => Date.now() },
    systemPrompt: () => 'sys',
    newId: () => `fork-${next++}`,
    store: async () => store,
  });
  const fork: number[] = [];
  const reopen: number[] = [];
  for (let run = 0; run < runs; run++) {
    await session.open('long');
    let started = performance.now();
    const forked = await session.forks.fork(undefined, { open: true });
    if (forked.status !== 'forked' || session.history.length < messages) throw new Error('the fork did not open');
    fork.push(performance.now() - started);
    started = performance.now();
    await session.open('long');
    reopen.push(performance.now() - started);
  }
  await session.dispose();
  await store.close();
  fs.rmSync(directory, { recursive: true, force: true });
  return { messages, runs, forkMs: median(fork), reopenMs: median(reopen) };
}

/** Fork of a long conversation to a usable new session (SPEC 5b). */
export async function printForkBenchmark(): Promise<void> {
  const result = await measureFork();
  console.log(
    `Fork from here: a ${result.messages.toLocaleString('en-US')}-message conversation to a usable new session (median of ${result.runs})\n`,
  );
  console.log(
    table(
      ['messages', 'fork + reopen (ms)', 'target (ms)', 'of target', 'plain reopen (ms)', 'fork / reopen'],
      [
        [
          result.messages.toLocaleString('en-US'),
          result.forkMs.toFixed(1),
          String(FORK_TARGET_MS),
          (result.forkMs / FORK_TARGET_MS).toFixed(2),
          result.reopenMs.toFixed(1),
          (result.forkMs / result.reopenMs).toFixed(2),
        ],
      ],
    ),
  );
  console.log('');
}
