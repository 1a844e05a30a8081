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
