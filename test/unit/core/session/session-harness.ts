/**
 * A ConversationSession on the fake model server for unit tests: anthropic wire format, a key,
 * a fixed system prompt, every event collected, and `run(prompt)` that resolves when that
 * prompt's run is done.
 */
import { ConversationSession, type ConversationSessionDeps } from '../../../../src/core/session/conversation-session';
import type { AgentEvent } from '../../../../src/core/events/events';
import type { FakeModelServer } from '../../../fixtures/fake-model-server/server';

export function sessionOn(server: FakeModelServer, deps: Partial<ConversationSessionDeps> = {}) {
  const events: AgentEvent[] = [];
  const session = new ConversationSession({
    readSettings: () => ({ provider: 'anthropic', model: 'fake-model', baseUrl: server.anthropicBaseUrl }),
    secrets: { getApiKey: async () => 'k' },
    clock: { now: () => 0 },
    systemPrompt: () => 'sys',
    newId: () => 'c1',
    ...deps,
  });
  session.onEvent((event) => events.push(event));
  const doneCount = () => events.filter((event) => event.type === 'done').length;
  /** Waits until `count` runs have finished. */
  const waitDone = async (count: number) => {
    while (doneCount() < count) await new Promise((resolve) => setTimeout(resolve, 10));
  };
  /** Sends a prompt (through `send`, default submit) and waits for its run to finish. */
  const run = async (prompt: string, send: (prompt: string) => Promise<unknown> = (text) => session.submit(text)) => {
    const before = doneCount();
    await send(prompt);
    await waitDone(before + 1);
  };
  return { session, events, run, waitDone };
}
