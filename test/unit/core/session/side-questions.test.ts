/**
 * Side questions (`/btw`) on the fake model server: answered while a turn streams or a tool
 * runs, from a snapshot of the conversation and without tools; the running turn's stream,
 * requests and history untouched; the next main request without the question or its answer;
 * the call counted in the store's usage, the audit trail (marked) and the budgets; a spent
 * budget refuses it; the main Stop and the side Stop are each their own.
 */
import assert from 'node:assert/strict';
import { z } from 'zod';
import type { AgentEvent } from '../../../../src/core/events/events';
import { BudgetGuard } from '../../../../src/core/policy/budget';
import { defineTool } from '../../../../src/core/tools/tool';
import { FakeModelServer, type RecordedRequest } from '../../../fixtures/fake-model-server/server';
import { waitUntil } from '../../../harness/patience';
import { openStore, tempDir } from '../../store/store-helpers';
import { sessionOn } from './session-harness';

const STORY =
  'Once upon a time there was a long story that went on, sentence after sentence, past rivers and villages, ' +
  'so that a question could be asked while it streamed. And that was the end.';
/** A few seconds of streaming, however fast the machine. */
const SLOW = { chunkSize: 3, delayMs: 25 };
const SIDE_ANSWER = 'Beside the story: the config lives in config.ts.';

function bodyOf(request: RecordedRequest | undefined): {
  system?: unknown;
  tools?: unknown[];
  tool_choice?: unknown;
  messages: Array<{ role: string; content: unknown }>;
} {
  return (request?.body ?? { messages: [] }) as ReturnType<typeof bodyOf>;
}

const sideRequests = (server: FakeModelServer) =>
  server.modelCalls.filter((request) => JSON.stringify(request.body).includes('A side question from the user'));
const mainRequests = (server: FakeModelServer) =>
  server.modelCalls.filter((request) => !JSON.stringify(request.body).includes('A side question from the user'));

function textOfEvents(events: readonly AgentEvent[]): string {
  return events.map((event) => (event.type === 'text_delta' ? event.text : '')).join('');
}

function firstEvent(events: AgentEvent[], type: AgentEvent['type']) {
  return waitUntil(() => events.find((event) => event.type === type), `a ${type} event`);
}

describe('side questions (/btw)', function () {
  this.timeout(120_000);
  let server: FakeModelServer;
  afterEach(() => server.close());

  it('answers while a turn streams, and the turn, its history and the next request never see it', async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'btw-streaming',
        turns: [
          { match: 'where is the config', text: SIDE_ANSWER, usage: { input: 1_234, output: 56 } },
          { match: 'Tell the story', text: STORY, ...SLOW, usage: { input: 100, output: 50 } },
          { match: 'next please', text: 'Next answer.', usage: { input: 200, output: 10 } },
        ],
      },
    });
    const { store } = await openStore(tempDir());
    const budget = new BudgetGuard({ policy: () => ({ per_conversation_tokens: 1_000_000 }), now: () => Date.now() });
    const { session, events, waitDone, run } = sessionOn(server, {
      store: async () => store,
      budget,
      clock: { now: () => Date.now() },
    });
    await session.submit('Tell the story');
    await firstEvent(events, 'text_delta');
    assert.equal(session.isRunning, true, 'asked while the turn streams');
    const answer = await session.sideQuestions.ask('where is the config?');
    assert.equal(answer.status, 'answered', answer.note);
    assert.equal(answer.text, SIDE_ANSWER);
    assert.deepEqual(answer.usage, { inputTokens: 1_234, outputTokens: 56, costUsd: 0, model: 'fake-model' });
    await waitDone(1);

    // The turn streamed its own answer whole, and nothing of the side question reached its events.
    assert.equal(textOfEvents(events), STORY);
    const shown = JSON.stringify(events);
    assert.ok(!shown.includes('where is the config') && !shown.includes(SIDE_ANSWER));

    // The side request: the conversation so far, the system prompt, no tools.
    const [side] = sideRequests(server);
    const sideBody = bodyOf(side);
    assert.match(JSON.stringify(sideBody.system), /"sys"/);
    assert.ok(sideBody.tools === undefined || sideBody.tools.length === 0, 'no tools offered');
    assert.equal(sideBody.tool_choice, undefined);
    assert.ok(JSON.stringify(sideBody.messages).includes('Tell the story'));

    // The next main request carries the conversation without the side exchange.
    await run('next please');
    const next = bodyOf(mainRequests(server).at(-1));
    const nextText = JSON.stringify(next);
    assert.ok(!nextText.includes('where is the config') && !nextText.includes(SIDE_ANSWER));
    assert.deepEqual(
      next.messages.map((message) => message.role),
      ['user', 'assistant', 'user'],
    );
    assert.ok(JSON.stringify(next.messages[1]).includes('And that was the end.'));

    // Counted: the store's usage, the audit trail (marked) and the budget; not in the messages.
    await session.flush();
    const totals = await store.usageTotals({ conversationId: 'c1' });
    assert.equal(totals.calls, 3);
    assert.equal(totals.inputTokens, 100 + 1_234 + 200);
    const audit = await store.listAudit({ conversationId: 'c1', kind: 'model_call' });
    const marked = audit.filter((record) => record.data.sideQuestion === true);
    assert.equal(marked.length, 1);
    assert.equal(marked[0]!.data.inputTokens, 1_234);
    assert.equal(audit.length, 3);
    assert.equal((await budget.spent('conversation', 'c1')).tokens, 150 + 1_290 + 210);
    const stored = JSON.stringify(await store.listMessages('c1'));
    assert.ok(!stored.includes('where is the config') && !stored.includes(SIDE_ANSWER));
    await session.dispose();
  });

  it('answers while a tool runs: the call, its result and the next request are the turn’s own', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let runs = 0;
    const waitTool = defineTool({
      name: 'wait_here',
      description: 'Waits.',
      inputSchema: z.object({ why: z.string() }),
      readOnly: true,
      needsApproval: false,
      async execute() {
        runs++;
        await gate;
        return 'waited';
      },
    });
    server = await FakeModelServer.start({
      scenario: {
        name: 'btw-tool',
        turns: [
          { match: 'what are you waiting for', text: 'For the gate.' },
          { match: 'Wait for it', toolCalls: [{ id: 'w1', name: 'wait_here', arguments: { why: 'gate' } }] },
          { text: 'Done waiting.' },
        ],
      },
    });
    const { session, events, waitDone } = sessionOn(server, { tools: () => [waitTool] });
    await session.submit('Wait for it');
    await firstEvent(events, 'tool_call');
    const answer = await session.sideQuestions.ask('what are you waiting for?');
    assert.equal(answer.status, 'answered', answer.note);
    assert.equal(answer.text, 'For the gate.');
    // The snapshot held a call without its result: it went as text, never as a tool block.
    const sideText = JSON.stringify(bodyOf(sideRequests(server)[0]).messages);
    assert.ok(sideText.includes('[called wait_here with {\\"why\\":\\"gate\\"}]'), sideText);
    assert.ok(!sideText.includes('tool_use') && !sideText.includes('tool_result'));
    release();
    await waitDone(1);
    assert.equal(runs, 1);
    const after = bodyOf(mainRequests(server).at(-1));
    const afterText = JSON.stringify(after);
    assert.ok(afterText.includes('tool_use') && afterText.includes('tool_result') && afterText.includes('waited'));
    assert.ok(!afterText.includes('waiting for') && !afterText.includes('For the gate.'));
    assert.equal(textOfEvents(events), 'Done waiting.');
  });

  it('goes on when the main turn is stopped, and stopping it leaves the turn running', async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'btw-stops',
        turns: [
          { match: 'first side', text: SIDE_ANSWER, ...SLOW },
          { match: 'second side', text: SIDE_ANSWER, ...SLOW },
          { match: 'Tell the story', text: STORY, ...SLOW },
          { match: 'Again the story', text: STORY, ...SLOW },
        ],
      },
    });
    const { session, events, waitDone } = sessionOn(server);
    await session.submit('Tell the story');
    await firstEvent(events, 'text_delta');
    const updates: string[] = [];
    session.sideQuestions.onUpdate((update) => updates.push(`${update.id}:${update.status}:${update.text.length}`));
    const first = session.sideQuestions.ask('first side question');
    await waitUntil(() => updates.some((update) => /:answering:[1-9]/.test(update)), 'the side answer streaming');
    session.stop();
    await firstEvent(events, 'interrupted');
    const answered = await first;
    assert.equal(answered.status, 'answered', answered.note);
    assert.equal(answered.text, SIDE_ANSWER);

    const doneBefore = events.filter((event) => event.type === 'done').length;
    await session.submit('Again the story');
    await waitUntil(
      () => events.filter((event) => event.type === 'text_delta').length > 3,
      'the second turn streaming',
    );
    const second = session.sideQuestions.ask('second side question');
    await waitUntil(() => sideRequests(server).length === 2, 'the second side request');
    session.sideQuestions.stop();
    assert.equal((await second).status, 'stopped');
    await waitDone(doneBefore + 1);
    assert.ok(textOfEvents(events).endsWith('And that was the end.'));
  });

  it('is refused with the usual message once a budget is used up, and sends nothing', async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'btw-budget',
        turns: [
          { match: 'hello', text: 'Hi.', usage: { input: 1_000, output: 100 } },
          { match: 'cheap side', text: 'Cheap.', usage: { input: 300, output: 20 } },
          { match: 'costly side', text: 'Never sent.' },
        ],
      },
    });
    let limit = 100_000;
    const budget = new BudgetGuard({
      policy: () => ({ per_conversation_tokens: limit, on_exceeded: 'block' }),
      now: () => Date.now(),
    });
    const { session, run } = sessionOn(server, { budget });
    await run('hello');
    assert.equal((await session.sideQuestions.ask('cheap side question')).status, 'answered');
    assert.equal((await budget.spent('conversation', 'c1')).tokens, 1_100 + 320);
    limit = 1_400;
    const refused = await session.sideQuestions.ask('costly side question');
    assert.equal(refused.status, 'refused');
    assert.match(
      refused.note ?? '',
      /this conversation's token budget of 1,400 tokens is used up \(1,420 tokens spent\)/,
    );
    assert.match(refused.note ?? '', /budget\.per_conversation_tokens/);
    assert.equal(sideRequests(server).length, 1);
  });

  it('answers from a reopened conversation before it is continued', async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'btw-reopened',
        turns: [
          { match: 'remember blue', text: 'Blue it is.' },
          { match: 'which colour', text: 'You said blue.' },
        ],
      },
    });
    const { store } = await openStore(tempDir());
    const first = sessionOn(server, { store: async () => store });
    await first.run('remember blue');
    await first.session.flush();
    const second = sessionOn(server, { store: async () => store });
    assert.equal(await second.session.open('c1'), true);
    const answer = await second.session.sideQuestions.ask('which colour did I name?');
    assert.equal(answer.text, 'You said blue.');
    assert.ok(JSON.stringify(bodyOf(sideRequests(server)[0]).messages).includes('Blue it is.'));
    await second.session.flush();
    assert.ok(!JSON.stringify(await store.listMessages('c1')).includes('which colour'));
  });
});
