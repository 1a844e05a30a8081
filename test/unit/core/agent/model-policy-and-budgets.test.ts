import assert from 'node:assert/strict';
import type { AgentEvent } from '../../../../src/core/events/events';
import { BudgetGuard } from '../../../../src/core/policy/budget';
import { routeModel, type ModelPolicy } from '../../../../src/core/policy/model-routes';
import { storeLedger } from '../../../../src/core/policy/store-ledger';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import type { ScenarioTurn } from '../../../fixtures/fake-model-server/scenario';
import { openStore, tempDir } from '../../store/store-helpers';
import { sessionOn } from '../session/session-harness';

const eventsOf = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((event): event is Extract<AgentEvent, { type: T }> => event.type === type);

const modelsCalled = (server: FakeModelServer) =>
  server.modelCalls.map((request) => (request.body as { model: string }).model);

/** A turn that thinks (a tool call, so the loop goes on) and reports the given usage. */
const thinking = (id: string, input = 1_000, output = 100): Partial<ScenarioTurn> => ({
  toolCalls: [{ id, name: 'think', arguments: { thought: `step ${id}` } }],
  usage: { input, output },
});

describe('model policy: routes by kind of work', () => {
  let server: FakeModelServer;
  beforeEach(async () => {
    server = await FakeModelServer.start();
  });
  afterEach(() => server.close());

  it('routeModel: a route wins over the default, the default over the settings; servers follow the provider', () => {
    const settings = { provider: 'anthropic', model: 'claude-sonnet-4-5', baseUrl: 'http://proxy/anthropic' };
    const policy: ModelPolicy = {
      default: 'anthropic/claude-opus-4-5',
      routes: [
        { match: { task: 'compaction' }, model: 'anthropic/claude-haiku-4-5' },
        { match: { task: 'subagent' }, model: 'ollama/qwen3-coder' },
      ],
    };
    assert.deepEqual(routeModel('chat', settings, undefined), { settings, source: 'settings' });
    assert.deepEqual(routeModel('chat', settings, policy), {
      settings: { provider: 'anthropic', model: 'claude-opus-4-5', baseUrl: 'http://proxy/anthropic' },
      source: 'policy_default',
    });
    assert.deepEqual(routeModel('compaction', settings, policy).settings.model, 'claude-haiku-4-5');
    // Another provider: its own address from providerBaseUrls, else its default (empty).
    assert.deepEqual(routeModel('subagent', settings, policy).settings, {
      provider: 'ollama',
      model: 'qwen3-coder',
      baseUrl: '',
    });
    assert.equal(
      routeModel('subagent', settings, policy, { ollama: 'http://gpu:11434/v1' }).settings.baseUrl,
      'http://gpu:11434/v1',
    );
  });

  it('sends chat, code, sub-agent, compaction and final-summary work to the models the policy names', async () => {
    server.setScenario({
      name: 'routes',
      turns: [
        {
          toolCalls: [
            { id: 't1', name: 'task', arguments: { kind: 'explore', description: 'Look', prompt: 'Look around.' } },
          ],
        },
        { text: 'Nothing there.' },
        { text: 'The sub-agent saw nothing.' },
        { text: 'Compacted summary.' },
        { text: 'Explained.' },
        thinking('a'),
        { text: 'Final summary after the turn limit.' },
      ],
    });
    const policy: ModelPolicy = {
      routes: [
        { match: { task: 'chat' }, model: 'anthropic/fake-chat' },
        { match: { task: 'code' }, model: 'anthropic/fake-code' },
        { match: { task: 'subagent' }, model: 'anthropic/fake-sub' },
        { match: { task: 'compaction' }, model: 'anthropic/fake-small' },
        { match: { task: 'final_summary' }, model: 'anthropic/fake-summary' },
      ],
    };
    let maxTurns = 50;
    const { session, events, run } = sessionOn(server, {
      modelPolicy: () => policy,
      readLimits: () => ({ maxTurns }),
    });
    await run('Look around with a sub-agent.');
    assert.deepEqual(modelsCalled(server), ['fake-chat', 'fake-sub', 'fake-chat']);
    await session.compact();
    assert.equal(modelsCalled(server).at(-1), 'fake-small');
    await run('Explain this code.', (prompt) => session.submit(prompt, 'code'));
    assert.equal(modelsCalled(server).at(-1), 'fake-code');
    maxTurns = 1;
    await run('One step only.');
    assert.deepEqual(modelsCalled(server).slice(-2), ['fake-chat', 'fake-summary']);

    // Each call's usage event says which provider, model and kind of work served it.
    const calls = eventsOf(events, 'usage').filter((event) => event.scope === 'call');
    assert.deepEqual(
      calls.map((event) => `${event.provider}/${event.model}:${event.work}`),
      [
        'anthropic/fake-chat:chat',
        'anthropic/fake-sub:subagent',
        'anthropic/fake-chat:chat',
        'anthropic/fake-small:compaction',
        'anthropic/fake-code:code',
        'anthropic/fake-chat:chat',
        'anthropic/fake-summary:final_summary',
      ],
    );
    assert.ok(calls.every((event) => typeof event.durationMs === 'number'));
  });

  it('names the route when its provider cannot be set up (no key), and sends nothing', async () => {
    const { session } = sessionOn(server, {
      secrets: { getApiKey: async (provider) => (provider === 'anthropic' ? 'k' : undefined) },
      modelPolicy: () => ({ routes: [{ match: { task: 'subagent' as const }, model: 'openai/gpt-4.1' }] }),
    });
    const problem = await session.submit('hello');
    assert.equal(problem?.reason, 'missing_api_key');
    assert.match(problem!.message, /The model policy sends subagent work to openai\/gpt-4\.1: .*OpenAI API key/);
    assert.equal(server.modelCalls.length, 0);
  });
});

describe('budgets', () => {
  let server: FakeModelServer;
  beforeEach(async () => {
    server = await FakeModelServer.start();
  });
  afterEach(() => server.close());

  /**
   * claude-sonnet-4-6 costs $3 / $15 per million: a 100,000-in, 1,000-out call is $0.315. Calls
   * that size dwarf the estimate made before each call (the prompt and the tool schemas, a few
   * thousand tokens), so the tests can count calls exactly.
   */
  const model = 'claude-sonnet-4-6';
  const big = (id: string) => thinking(id, 100_000, 1_000);
  const CALL_USD = 0.315;

  it('block: warns at 80 %, and stops the run before the first call once the limit is used up', async () => {
    server.setScenario({ name: 'long', turns: ['1', '2', '3', '4', '5', '6'].map(big) });
    const guard = new BudgetGuard({ policy: () => ({ per_conversation_usd: 1, on_exceeded: 'block' }), now: () => 0 });
    const { session, events, run } = sessionOn(server, {
      budget: guard,
      readSettings: () => ({ provider: 'anthropic', model, baseUrl: server.anthropicBaseUrl }),
    });
    const runEnded = new Promise<void>((resolve) => session.onEvent((event) => event.type === 'error' && resolve()));
    void run('Work for a long time.').catch(() => undefined);
    await runEnded;
    // $0.315, $0.63, $0.945 (80 % passed: warning), $1.26 (the fourth call fitted before it was
    // made; what it really cost is only known after): the fifth is not made.
    assert.equal(server.modelCalls.length, 4);
    const budgetEvents = eventsOf(events, 'budget');
    assert.deepEqual(
      budgetEvents.map((event) => [event.level, event.action, event.scope, event.unit, event.limit]),
      [
        ['warning', 'block', 'conversation', 'usd', 1],
        ['exceeded', 'block', 'conversation', 'usd', 1],
      ],
    );
    assert.ok(Math.abs(budgetEvents[0]!.spent - 3 * CALL_USD) < 1e-9);
    assert.ok(Math.abs(budgetEvents[1]!.spent - 4 * CALL_USD) < 1e-9);
    const error = eventsOf(events, 'error').at(-1)!;
    assert.equal(error.kind, 'budget');
    assert.match(
      error.message,
      /this conversation's budget of \$1\.00 is used up \(\$1\.26 spent\).*per_conversation_usd/,
    );
    // The next prompt is refused at once as well: nothing more is sent.
    const before = server.modelCalls.length;
    await session.submit('Go on.');
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(server.modelCalls.length, before);
  });

  it('block: a call whose estimate alone would pass the limit is not made', async () => {
    server.setScenario({ name: 'one', turns: [big('1')] });
    // Any real request (a prompt and the tool schemas) is estimated at well over 100 tokens.
    const guard = new BudgetGuard({ policy: () => ({ per_conversation_tokens: 100 }), now: () => 0 });
    const { session, events, run } = sessionOn(server, { budget: guard });
    const runEnded = new Promise<void>((resolve) => session.onEvent((event) => event.type === 'error' && resolve()));
    void run('Hello.').catch(() => undefined);
    await runEnded;
    assert.equal(server.modelCalls.length, 0);
    assert.match(
      eventsOf(events, 'error').at(-1)!.message,
      /the next model call \(about [\d,]+ tokens\) would pass this conversation's token budget of 100 tokens/,
    );
  });

  it('counts tokens too, and sub-agents draw on the same budget as the conversation', async () => {
    server.setScenario({
      name: 'sub',
      turns: [
        {
          toolCalls: [
            { id: 't1', name: 'task', arguments: { kind: 'explore', description: 'Look', prompt: 'Look around.' } },
          ],
          usage: { input: 400, output: 100 },
        },
        thinking('child-1', 400, 100),
        thinking('child-2', 400, 100),
        thinking('child-3', 400, 100),
        { text: 'done', usage: { input: 400, output: 100 } },
      ],
    });
    const guard = new BudgetGuard({ policy: () => ({ per_conversation_tokens: 1_600 }), now: () => 0 });
    const { session, events, run } = sessionOn(server, { budget: guard });
    const runEnded = new Promise<void>((resolve) => session.onEvent((event) => event.type === 'error' && resolve()));
    void run('Delegate.').catch(() => undefined);
    await runEnded;
    // Parent 500 + child 500 + child 500 = 1,500: the child's next call would pass 1,600 and is
    // refused; the sub-agent fails and the parent's next call is refused too.
    assert.equal(server.modelCalls.length, 3);
    assert.deepEqual((await guard.spent('conversation', 'c1')).tokens, 1_500);
    const end = eventsOf(events, 'subagent_end')[0]!;
    assert.match(
      end.summary,
      /The sub-agent failed: Stopped: the next model call .* would pass this conversation's token budget/,
    );
    assert.equal(eventsOf(events, 'error').at(-1)?.kind, 'budget');
  });

  it('warn: the run goes on past the limit, and the user is told once at 80 % and once at 100 %', async () => {
    server.setScenario({ name: 'warn', turns: [big('1'), big('2'), big('3'), { text: 'Finished.' }] });
    const guard = new BudgetGuard({ policy: () => ({ per_conversation_usd: 0.7, on_exceeded: 'warn' }), now: () => 0 });
    const { events, run } = sessionOn(server, {
      budget: guard,
      readSettings: () => ({ provider: 'anthropic', model, baseUrl: server.anthropicBaseUrl }),
    });
    await run('Work.');
    // $0.315, $0.63 (90 %: warning), $0.945 (exceeded: told), then the answer: all four made.
    assert.equal(server.modelCalls.length, 4);
    assert.equal(eventsOf(events, 'done').length, 1);
    assert.deepEqual(
      eventsOf(events, 'budget').map((event) => [event.level, event.action]),
      [
        ['warning', 'warn'],
        ['exceeded', 'warn'],
      ],
    );
  });

  it('survives a restart: the day and month totals come from the store', async () => {
    const directory = tempDir();
    const now = () => Date.parse('2026-11-24T10:00:00Z');
    const settings = () => ({ provider: 'anthropic', model, baseUrl: server.anthropicBaseUrl });
    {
      const { store } = await openStore(directory);
      server.setScenario({
        name: 'first',
        turns: [big('1'), { text: 'ok', usage: { input: 100_000, output: 1_000 } }],
      });
      const { session, run } = sessionOn(server, { store: async () => store, clock: { now }, readSettings: settings });
      await run('Spend $0.63.');
      await session.flush();
      await store.close();
    }
    // A new window: a new guard, the same store. $0.63 of today's $0.9 is spent already.
    const { store } = await openStore(directory);
    const ledger = storeLedger(async () => store);
    assert.ok(Math.abs((await ledger.spent({ month: '2026-11' })).usd - 2 * CALL_USD) < 1e-9);
    assert.ok(Math.abs((await ledger.spent({ day: '2026-11-24' })).usd - 2 * CALL_USD) < 1e-9);
    assert.equal((await ledger.spent({ month: '2026-10' })).usd, 0);
    assert.equal((await ledger.spent({ day: '2026-11-23' })).usd, 0);
    const guard = new BudgetGuard({ policy: () => ({ daily_usd: 0.9 }), ledger, now });
    server.setScenario({ name: 'second', turns: [big('1'), big('2'), { text: 'ok' }] });
    const { session, events } = sessionOn(server, {
      budget: guard,
      newId: () => 'c2',
      clock: { now },
      readSettings: settings,
    });
    const before = server.modelCalls.length;
    const ended = new Promise<void>((resolve) => session.onEvent((event) => event.type === 'error' && resolve()));
    await session.submit('One more.');
    await ended;
    // The first call of the new session fits ($0.63 + its estimate); after it $0.945 is spent.
    assert.equal(server.modelCalls.length - before, 1);
    const exceeded = eventsOf(events, 'budget').find((event) => event.level === 'exceeded')!;
    assert.equal(exceeded.scope, 'daily');
    assert.ok(Math.abs(exceeded.spent - 3 * CALL_USD) < 1e-9);
    await store.close();
  });
});
