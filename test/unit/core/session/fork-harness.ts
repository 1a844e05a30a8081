/**
 * What the fork and rewind tests share: a session on the fake model server with a real store and
 * a real workspace folder whose file tools are checkpointed, approving every call; and a check
 * that a model history is one a provider accepts (every tool call answered right after it).
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { ModelMessage } from '../../../../src/core/llm/llm-client';
import type { ConversationStore } from '../../../../src/core/ports';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import type { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { sessionOn } from './session-harness';

export function tempWorkspace(files: Record<string, string | Uint8Array> = {}): string {
  const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-fork-ws-')));
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, name)), { recursive: true });
    fs.writeFileSync(path.join(root, name), content);
  }
  return root;
}

let ids = 0;

/** A session whose conversations are saved in `store` and whose file tools write in `root`. */
export function forkSession(server: FakeModelServer, store: ConversationStore, root: string) {
  const workspace = new NodeWorkspace(root);
  const harness = sessionOn(server, {
    clock: { now: () => Date.now() },
    newId: () => `conv-${++ids}-${process.pid}`,
    store: async () => store,
    workspace: () => workspace,
    tools: (tracked) => createFileTools(tracked ?? workspace),
    approvals: { request: async () => ({ approved: true, source: 'user' as const }) },
  });
  const run = async (prompt: string) => {
    await harness.run(prompt);
    await harness.session.flush();
  };
  return { ...harness, run };
}

/**
 * Fails unless `history` could be sent: it starts with the user, and each answer's tool calls
 * are all answered by the results in the very next message, which answers nothing else.
 */
export function assertValidHistory(history: readonly ModelMessage[], where: string): void {
  if (history.length === 0) return;
  assert.equal(history[0]!.role, 'user', `${where}: the history starts with an answer`);
  history.forEach((message, index) => {
    const previous = history[index - 1];
    if (previous) assert.notEqual(previous.role, message.role, `${where}: two ${message.role} messages in a row`);
    const results = message.content.flatMap((part) => (part.type === 'tool_result' ? [part.toolCallId] : []));
    const calls =
      previous?.role === 'assistant'
        ? previous.content.flatMap((part) => (part.type === 'tool_call' ? [part.id] : []))
        : [];
    if (message.role === 'user') assert.deepEqual(results.sort(), calls.sort(), `${where}: calls and results differ`);
    if (message.role === 'assistant' && message.content.some((part) => part.type === 'tool_call'))
      assert.ok(history[index + 1], `${where}: the history ends with calls that have no results`);
  });
}
