import type { ScenarioInput } from '../../../fixtures/fake-model-server/scenario';
/**
 * A recorded session for tests: a ConversationSession on the fake model server writing to a
 * real sql.js store in a temp folder, with recording on. `run` sends a prompt and waits until
 * its run and everything it recorded are in the store.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { ConversationSessionDeps } from '../../../../src/core/session/conversation-session';
import type { SqlJsStore } from '../../../../src/store/sqljs-store';
import type { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { sessionOn } from '../session/session-harness';

export const RECORDING = { product: '0.1.0-test', head: async () => ({ commit: 'abc123', branch: 'main' }) };

export function recordedSession(
  server: FakeModelServer,
  store: SqlJsStore,
  deps: Partial<ConversationSessionDeps> = {},
) {
  let now = 1_000;
  const harness = sessionOn(server, {
    clock: { now: () => (now += 1) },
    store: async () => store,
    recording: RECORDING,
    workspaceRoot: () => '/work/project',
    ...deps,
  });
  const run = async (prompt: string) => {
    await harness.run(prompt);
    await harness.session.flush();
  };
  return { ...harness, run };
}

/** Every byte of every file in the store's folder, as one latin1 string (to look for secrets in). */
export function storeBytes(directory: string): string {
  const parts: string[] = [];
  const walk = (folder: string) => {
    for (const entry of fs.readdirSync(folder, { withFileTypes: true })) {
      const full = path.join(folder, entry.name);
      if (entry.isDirectory()) walk(full);
      else parts.push(fs.readFileSync(full).toString('latin1'));
    }
  };
  walk(directory);
  return parts.join('\n');
}

/**
 * The run the recording tests record: a read (its first attempt a 500), an approved and a denied
 * write, an explore sub-agent, two answers, then a slow tool the test stops.
 */
export function recordedRunScenario(readPath: string): ScenarioInput {
  return {
    name: 'recorded',
    turns: [
      {
        fault: { type: 'http_error', status: 500, retryAfterSeconds: 0, times: 1 },
        text: 'Let me read it.',
        toolCalls: [{ id: 'r1', name: 'read_file', arguments: { path: readPath } }],
      },
      { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'ok.txt', content: 'fine\n' } }] },
      { toolCalls: [{ id: 'w2', name: 'write_file', arguments: { path: 'no.txt', content: 'nope\n' } }] },
      {
        toolCalls: [
          { id: 't1', name: 'task', arguments: { kind: 'explore', description: 'Look around', prompt: 'Find it.' } },
        ],
      },
      { text: 'Found it in ok.txt.' },
      { text: 'All done.' },
      { toolCalls: [{ id: 's1', name: 'slow_tool', arguments: {} }] },
    ],
  };
}
