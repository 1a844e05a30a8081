/**
 * One process of the team audit throughput benchmark (team-benchmarks.ts): as one member, with
 * a store of its own, it writes audit records stamped for the team into the embedded store (the
 * recorder's path: each lands in the outbox too), says how long that took, waits for the word to
 * go (so every process sends at once), then sends the outbox to PostgreSQL through the team
 * plane's drain, as the product does, and says when it started and finished.
 *
 *   tsx team-audit-worker.ts <url> <member> <store directory> <records>
 */
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { redactValue } from '../../src/core/llm/redact';
import type { AuditRecord } from '../../src/core/ports';
import { TeamPlane } from '../../src/core/team/team-plane';
import { SqlJsStore } from '../../src/store/sqljs-store';
import { PgTeamStore } from '../../src/team/pg-team-store';

const WASM = path.resolve(__dirname, '..', '..', 'node_modules', 'sql.js', 'dist', 'sql-wasm.wasm');

export interface WorkerReport {
  phase: 'written' | 'sent';
  start: number;
  end: number;
  /** Records still in the outbox after sending (0 when all arrived). */
  left?: number;
}

function say(report: WorkerReport): void {
  process.stdout.write(`${JSON.stringify(report)}\n`);
}

/** A tool call's audit record as the recorder writes it (arguments redacted), about 400 bytes. */
function toolCall(member: string, conversationId: string, seq: number): AuditRecord {
  return {
    id: `${conversationId}-audit-${seq}`,
    conversationId,
    time: Date.now(),
    kind: 'tool_call',
    data: {
      agentId: 'main',
      toolCallId: `call_${seq}`,
      tool: 'bash',
      input: { command: `npm test -- --grep "case ${seq}"`, description: 'Run the tests for the changed case' },
      approval: { approved: true, source: 'policy', rule: 'approvals.auto_approve: bash(npm test*)' },
      isError: false,
      resultChars: 1834,
      durationMs: 2412,
    },
    team: { member, repository: 'github.com/acme/app' },
  };
}

async function main(): Promise<void> {
  const [url, member, directory, countText] = process.argv.slice(2);
  if (!url || !member || !directory || !countText) throw new Error('usage: <url> <member> <store> <records>');
  const count = Number(countText);
  const { store } = await SqlJsStore.open({ directory, wasmPath: WASM, redact: redactValue });
  const conversationId = randomUUID();

  let start = Date.now();
  for (let seq = 0; seq < count; seq++) await store.recordAudit(toolCall(member, conversationId, seq));
  say({ phase: 'written', start, end: Date.now() });

  // Every process sends at once, on the word.
  const lines = readline.createInterface({ input: process.stdin });
  await new Promise<void>((resolve) => lines.once('line', () => resolve()));
  lines.close();

  const plane = new TeamPlane({
    store: new PgTeamStore(url),
    identity: { member },
    cache: { read: () => Promise.resolve(undefined), write: () => Promise.resolve() },
    outbox: () => Promise.resolve(store),
    now: () => Date.now(),
    newId: randomUUID,
    onPolicyMistakes: () => undefined,
  });
  start = Date.now();
  plane.kick();
  await plane.settled();
  const end = Date.now();
  const left = (await store.teamOutbox(count)).length;
  say({ phase: 'sent', start, end, left });
  await plane.dispose();
  await store.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
