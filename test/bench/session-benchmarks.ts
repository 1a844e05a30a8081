/**
 * Sessions side by side (issue 33): (a) the event-loop delay while 4 sessions of one window
 * stream at once, each a long answer in 8-character deltas, through the session registry as
 * the editor composes them (every event folded into the session list); (b) the memory each
 * extra idle session costs (a session composed and listed, with one finished conversation).
 * The fake model server runs in a child process, so only this side is measured.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { ConversationSession } from '../../src/core/session/conversation-session';
import { SessionRegistry } from '../../src/core/session/session-registry';
import type { WorkPlace } from '../../src/core/session/work-place';
import type { ScenarioInput } from '../fixtures/fake-model-server/scenario';
import { RemoteFakeServer } from './remote-fake-server';

export const STREAMING_SESSIONS = 4;
const ANSWER = 'The quick brown fox jumps over the lazy dog. '.repeat(2_000);
const IDLE_SESSIONS = 40;

function registryOn(server: RemoteFakeServer): SessionRegistry {
  let ids = 0;
  const compose = () =>
    new ConversationSession({
      readSettings: () => ({ provider: 'anthropic', model: 'fake-model', baseUrl: server.anthropicBaseUrl }),
      secrets: { getApiKey: async () => 'bench' },
      clock: { now: Date.now },
      systemPrompt: () => 'You are a benchmark.',
      newId: () => `conversation-${++ids}`,
    });
  return new SessionRegistry(
    { compose, workspace: '/bench', exists: async () => true, newId: () => `session-${++ids}` },
    { session: compose(), root: '/bench' },
  );
}

const place = (index: number): WorkPlace => ({
  kind: 'worktree',
  root: `/bench/trees/${index}`,
  worktree: {
    name: `bench ${index}`,
    root: `/bench/trees/${index}`,
    branch: `openagent/bench-${index}`,
    base: { commit: 'HEAD' },
    gitDir: '/bench/.git',
    worktreeGitDir: `/bench/.git/worktrees/${index}`,
    workspaceRoot: '/bench',
  },
});

async function runToEnd(session: ConversationSession, prompt: string): Promise<void> {
  const ended = new Promise<void>((resolve, reject) => {
    const stop = session.onEvent((event) => {
      if (event.type === 'error') reject(new Error(`the benchmark session failed: ${event.message}`));
      if (event.type === 'done' || event.type === 'error') stop();
      if (event.type === 'done') resolve();
    });
  });
  const problem = await session.submit(prompt);
  if (problem) throw new Error(problem.message);
  await ended;
}

export interface SessionsResult {
  sessions: number;
  deltasEach: number;
  p99Ms: number;
  maxMs: number;
  /** The same answer streamed by one session alone, for comparison. */
  aloneP99Ms: number;
}

/** (a) Event-loop delay while 4 sessions stream at once, and one alone. */
export async function measureSessionsStreaming(): Promise<SessionsResult> {
  const server = await RemoteFakeServer.start();
  try {
    const scenario: ScenarioInput = { name: 'long-answers', turns: [], whenExhausted: 'echo' };
    await server.setScenario({ ...scenario, turns: [{ text: ANSWER, chunkSize: 8 }] });
    const alone = registryOn(server);
    const aloneHistogram = monitorEventLoopDelay({ resolution: 1 });
    aloneHistogram.enable();
    await runToEnd(alone.create('alone', place(0)).session, 'Answer at length.');
    aloneHistogram.disable();

    await server.setScenario({
      ...scenario,
      turns: Array.from({ length: STREAMING_SESSIONS }, () => ({ text: ANSWER, chunkSize: 8 })),
    });
    const registry = registryOn(server);
    const entries = Array.from({ length: STREAMING_SESSIONS }, (_, index) =>
      registry.create(`session ${index}`, place(index)),
    );
    let listed = 0;
    registry.onDidChange(() => {
      // What the session list view does on each change: read every row.
      listed += registry.list().length;
    });
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    histogram.enable();
    await Promise.all(entries.map((entry, index) => runToEnd(entry.session, `Answer at length, ${index}.`)));
    histogram.disable();
    if (listed === 0) throw new Error('the session list never changed');
    return {
      sessions: STREAMING_SESSIONS,
      deltasEach: Math.ceil(ANSWER.length / 8),
      p99Ms: histogram.percentile(99) / 1e6,
      maxMs: histogram.max / 1e6,
      aloneP99Ms: aloneHistogram.percentile(99) / 1e6,
    };
  } finally {
    server.stop();
  }
}

/** (b) Heap per extra idle session: composed, listed, one short conversation done. */
export async function measureIdleSessionMemory(): Promise<{ sessions: number; perSessionMb: number }> {
  v8.setFlagsFromString('--expose-gc');
  const gc = vm.runInNewContext('gc') as () => void;
  const server = await RemoteFakeServer.start();
  try {
    await server.setScenario({ name: 'short', turns: [], whenExhausted: 'echo' });
    const registry = registryOn(server);
    // One first, so what every session shares (modules, the SDK) is loaded before measuring.
    await runToEnd(registry.create('warm-up', place(0)).session, 'Hello.');
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let index = 1; index <= IDLE_SESSIONS; index++)
      await runToEnd(registry.create(`idle ${index}`, place(index)).session, `Hello ${index}.`);
    gc();
    const after = process.memoryUsage().heapUsed;
    if (registry.list().length !== IDLE_SESSIONS + 2) throw new Error('sessions went missing');
    return { sessions: IDLE_SESSIONS, perSessionMb: (after - before) / IDLE_SESSIONS / 1024 / 1024 };
  } finally {
    server.stop();
  }
}
