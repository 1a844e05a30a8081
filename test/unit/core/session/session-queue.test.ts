/**
 * Messages sent while the agent works, through a real session on the fake model server: they
 * queue, go out in order as new user turns after a normal end, wait after a stop or a failure,
 * never answer an approval, and survive edits and removals racing with the run's end.
 */
import assert from 'node:assert/strict';
import type { AgentEvent } from '../../../../src/core/events/events';
import type { RunEnd } from '../../../../src/core/session/conversation-session';
import type { ApprovalDecision } from '../../../../src/core/policy/approval';
import { MAX_QUEUED_PROMPT_CHARS } from '../../../../src/core/session/prompt-queue';
import type { ScenarioTurnInput } from '../../../fixtures/fake-model-server/scenario';
import { FakeModelServer, type RecordedRequest } from '../../../fixtures/fake-model-server/server';
import { lastUserText as lastUserTextOf } from '../../../fixtures/fake-model-server/wire-writer';
import { waitUntil } from '../../../harness/patience';
import { writeFileTool } from '../agent/loop-harness';
import { sessionOn } from './session-harness';

/** Streams for at least 40 × 50 ms: time enough to queue after its first words on any machine. */
const SLOW: ScenarioTurnInput = { text: 'A slow answer, streamed one letter at a time.', chunkSize: 1, delayMs: 50 };

/** The text of the last user message of a request the model received. */
function lastUserText(request: RecordedRequest | undefined): string {
  return lastUserTextOf(request?.body as Parameters<typeof lastUserTextOf>[0]);
}

function shown(events: readonly AgentEvent[]): string[] {
  return events.flatMap((event) =>
    event.type === 'user_message'
      ? [`user:${event.text}`]
      : event.type === 'done' || event.type === 'error' || event.type === 'interrupted'
        ? [event.type]
        : [],
  );
}

describe('queued messages in a session', function () {
  this.timeout(60_000);
  let server: FakeModelServer;

  afterEach(() => server?.close());

  async function start(turns: ScenarioTurnInput[], deps: Parameters<typeof sessionOn>[1] = {}) {
    server = await FakeModelServer.start({ scenario: { name: 'queue', turns, whenExhausted: 'echo' } });
    const harness = sessionOn(server, deps);
    const ends: RunEnd[] = [];
    harness.session.queue.onRunEnd((end) => ends.push(end));
    const firstWords = (count = 1) =>
      waitUntil(
        () => harness.events.filter((event) => event.type === 'text_delta').length >= count,
        'the answer to start streaming',
      );
    return { ...harness, ends, firstWords };
  }

  it('queues a message sent mid-run and sends it as a new user turn after the run ends', async () => {
    const { session, events, waitDone, firstWords, ends } = await start([SLOW, { match: 'also', text: 'Also done.' }]);
    await session.submit('first question');
    await firstWords();
    assert.equal(await session.submit('and also this'), undefined);
    assert.deepEqual(
      session.queue.state.items.map((item) => item.text),
      ['and also this'],
    );
    assert.equal(server.modelCalls.length, 1, 'the running answer was not interrupted');
    await waitDone(2);
    assert.deepEqual(shown(events), ['user:first question', 'done', 'user:and also this', 'done']);
    assert.equal(server.modelCalls.length, 2);
    assert.equal(lastUserText(server.modelCalls[1]), 'and also this');
    // The model got the first answer complete before the queued question.
    const messages = (server.modelCalls[1]!.body as { messages: Array<{ role: string }> }).messages;
    assert.deepEqual(
      messages.map((message) => message.role),
      ['user', 'assistant', 'user'],
    );
    assert.equal(ends[0]?.outcome, 'done');
    assert.equal(ends[0]?.next?.text, 'and also this');
    assert.equal(session.queue.length, 0);
  });

  it('sends several queued messages one run after another, in order, with edits and removals applied', async () => {
    const { session, events, waitDone, firstWords } = await start([SLOW]);
    await session.submit('start');
    await firstWords();
    await session.submit('one');
    await session.submit('two');
    await session.submit('three');
    const [one, two, three] = session.queue.state.items;
    assert.equal(session.queue.edit(one!.id, 'one, edited'), 'edited');
    assert.equal(session.queue.remove(two!.id), true);
    assert.equal(three!.text, 'three');
    await waitDone(3);
    assert.deepEqual(
      shown(events).filter((line) => line.startsWith('user:')),
      ['user:start', 'user:one, edited', 'user:three'],
    );
    assert.deepEqual(
      server.modelCalls.map((call) => lastUserText(call)),
      ['start', 'one, edited', 'three'],
    );
  });

  it('holds the queue when the run fails: nothing is sent into it until the user resumes', async () => {
    const { session, events, waitDone, firstWords, ends } = await start([
      { ...SLOW, fault: { type: 'cut_mid_text' } },
      { match: 'after the error', text: 'Sent once resumed.' },
    ]);
    await session.submit('this will fail');
    await firstWords();
    await session.submit('after the error');
    await waitUntil(() => events.some((event) => event.type === 'error'), 'the run to fail');
    await waitUntil(() => session.queue.state.held !== undefined, 'the queue to be held');
    assert.equal(session.queue.state.held?.kind, 'failed');
    assert.ok(session.queue.state.held?.reason, 'the hold says what failed');
    assert.equal(ends.at(-1)?.outcome, 'failed');
    assert.equal(server.modelCalls.length, 1, 'the queued message was not sent into the failed run');
    assert.equal(session.queue.resume(), true);
    await waitDone(1);
    assert.equal(lastUserText(server.modelCalls.at(-1)), 'after the error');
    assert.equal(session.queue.length, 0);
  });

  it('holds the queue after Stop; a prompt sent while it stops goes out once the run has ended', async () => {
    const { session, events, waitDone, firstWords } = await start([
      { ...SLOW, text: SLOW.text!.repeat(20) },
      { match: 'right after stopping', text: 'Answered after the stop.' },
    ]);
    await session.submit('a long one');
    await firstWords();
    await session.submit('queued before the stop');
    session.stop();
    // Typed while the run is still stopping: not queued behind the held message, but sent.
    const sending = session.submit('right after stopping');
    assert.equal(await sending, undefined);
    await waitDone(1);
    assert.deepEqual(shown(events), ['user:a long one', 'interrupted', 'user:right after stopping', 'done']);
    assert.equal(lastUserText(server.modelCalls.at(-1)), 'right after stopping');
    assert.deepEqual(
      session.queue.state.items.map((item) => item.text),
      ['queued before the stop'],
    );
    assert.equal(session.queue.state.held?.kind, 'stopped', 'still held after the next run: the user resumes it');
  });

  it('never sends a queued message while the run waits for an approval', async () => {
    let approve: (decision: ApprovalDecision) => void = () => undefined;
    const { session, events, waitDone } = await start(
      [
        { toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'notes.txt', content: 'hi' } }] },
        { text: 'Written.' },
        { match: 'queued while asking', text: 'Now this.' },
      ],
      {
        tools: () => [writeFileTool],
        approvals: { request: () => new Promise((resolve) => (approve = resolve)) },
      },
    );
    await session.submit('write the notes');
    await waitUntil(() => events.some((event) => event.type === 'tool_approval_request'), 'the approval request');
    await session.submit('queued while asking');
    assert.equal(session.queue.length, 1);
    assert.equal(server.modelCalls.length, 1, 'the queued message is no answer to the approval');
    approve({ approved: true, source: 'user' });
    await waitDone(2);
    assert.deepEqual(
      server.modelCalls.map((call) => lastUserText(call)),
      ['write the notes', '', 'queued while asking'],
    );
  });

  it('"Send now" interrupts and redirects the run; what was queued still waits its turn', async () => {
    const { session, events, waitDone, firstWords } = await start([
      SLOW,
      { match: 'change of plan', text: 'Redirected.' },
      { match: 'later', text: 'Later, as queued.' },
    ]);
    await session.submit('first');
    await firstWords();
    await session.submit('later');
    await session.sendNow('change of plan');
    await waitDone(2);
    assert.ok(events.some((event) => event.type === 'interrupted' && event.feedback === 'change of plan'));
    assert.deepEqual(
      server.modelCalls.map((call) => lastUserText(call)),
      ['first', 'change of plan', 'later'],
    );
  });

  it('sends a queued message now, from the queue: the run is redirected with it', async () => {
    const { session, events, waitDone, firstWords } = await start([SLOW, { match: 'urgent', text: 'On it.' }]);
    await session.submit('first');
    await firstWords();
    await session.submit('not urgent');
    await session.submit('urgent');
    const urgent = session.queue.state.items[1]!;
    assert.equal(await session.queue.sendQueuedNow(urgent.id), undefined);
    assert.equal(await session.queue.sendQueuedNow(urgent.id), 'gone', 'a second click finds it gone');
    await waitDone(2);
    assert.ok(events.some((event) => event.type === 'interrupted' && event.feedback === 'urgent'));
    assert.equal(lastUserText(server.modelCalls[1]), 'urgent');
    assert.equal(lastUserText(server.modelCalls[2]), 'not urgent');
  });

  it('refuses a huge message mid-run with a clear reason, and the run and queue go on untouched', async () => {
    const { session, waitDone, firstWords } = await start([SLOW, { match: 'small', text: 'Small one answered.' }]);
    await session.submit('first');
    await firstWords();
    const refused = await session.submit('h'.repeat(MAX_QUEUED_PROMPT_CHARS + 10));
    assert.equal(refused?.reason, 'too_long');
    assert.match(refused!.message, /at most 200,000 can be queued/);
    await session.submit('small');
    await waitDone(2);
    assert.deepEqual(
      server.modelCalls.map((call) => lastUserText(call)),
      ['first', 'small'],
    );
  });

  it('settles edits and removals that race with the end of the run: before it they apply, after it they are refused', async () => {
    const { session, events, waitDone, firstWords, ends } = await start([SLOW]);
    await session.submit('first');
    await firstWords();
    await session.submit('edit me at the last moment');
    await session.submit('removed while the next one runs');
    const [edited, removed] = session.queue.state.items;
    // The last event of the run: the edit lands just before the run's end is handled.
    const stop = session.onEvent((event) => {
      if (event.type === 'done') assert.equal(session.queue.edit(edited!.id, 'edited at the last moment'), 'edited');
    });
    const results: Array<boolean | string> = [];
    // Right after the end was handled and the first message taken out to be sent.
    session.queue.onRunEnd((end) => {
      if (end.next?.id !== edited!.id) return;
      results.push(session.queue.edit(edited!.id, 'too late') as string);
      results.push(session.queue.remove(edited!.id));
      // The other one is removed while the second run goes: it is never sent.
      results.push(session.queue.remove(removed!.id));
    });
    await waitDone(2);
    stop();
    assert.deepEqual(results, ['gone', false, true]);
    assert.equal(ends[0]?.next?.text, 'edited at the last moment');
    await waitUntil(() => !session.isBusy && ends.length === 2, 'the session to be idle');
    assert.deepEqual(
      server.modelCalls.map((call) => lastUserText(call)),
      ['first', 'edited at the last moment'],
    );
    assert.equal(events.filter((event) => event.type === 'user_message').length, 2);
  });

  it('waits for a message being edited when the run ends, and sends it once the edit is saved', async () => {
    const { session, waitDone, firstWords, ends } = await start([SLOW]);
    await session.submit('first');
    await firstWords();
    await session.submit('draft of a follow-up');
    const item = session.queue.state.items[0]!;
    session.queue.setEditing(item.id);
    await waitDone(1);
    await waitUntil(() => ends.length === 1, 'the run end to be handled');
    assert.equal(ends[0]?.next, undefined, 'nothing is sent half-edited');
    assert.equal(server.modelCalls.length, 1);
    assert.equal(session.queue.edit(item.id, 'the follow-up, finished'), 'edited');
    await waitDone(2);
    assert.equal(lastUserText(server.modelCalls[1]), 'the follow-up, finished');
  });

  it('forgets the queue with a new chat, and the old run ending sends nothing into the new one', async () => {
    const { session, events, firstWords } = await start([{ ...SLOW, text: SLOW.text!.repeat(5) }]);
    await session.submit('old chat');
    await firstWords();
    await session.submit('follow-up to the old chat');
    session.reset();
    assert.equal(session.queue.length, 0);
    await waitUntil(() => !session.isBusy, 'the old run to end');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(server.modelCalls.length, 1);
    assert.equal(events.filter((event) => event.type === 'user_message').length, 1);
  });

  it('does not cut a compaction short: a message sent now during it goes right after it', async () => {
    const { session, waitDone, run } = await start([
      { match: 'first', text: 'The first answer.' },
      { text: 'Summary of the conversation so far.', chunkSize: 1, delayMs: 30 },
    ]);
    await run('first');
    const compacting = session.compact();
    await waitUntil(() => session.isBusy, 'the compaction to start');
    assert.equal(await session.sendNow('right after the compaction'), undefined);
    assert.equal(session.queue.length, 1);
    assert.equal(await compacting, true);
    await waitDone(2);
    // After the summary the compaction left, as the next prompt.
    assert.match(
      lastUserText(server.modelCalls.at(-1)),
      /Summary of the conversation so far\.\s*right after the compaction$/,
    );
    assert.equal(server.modelCalls.length, 3);
  });

  it('puts a queued message back, held with the reason, when it cannot start (the key went away)', async () => {
    let key: string | undefined = 'k';
    const { session, waitDone, firstWords, ends } = await start([SLOW], {
      secrets: { getApiKey: async () => key },
    });
    await session.submit('first');
    await firstWords();
    await session.submit('needs the key');
    key = undefined;
    await waitDone(1);
    await waitUntil(() => ends.some((end) => end.outcome === 'failed'), 'the queued message to fail to start');
    assert.deepEqual(
      session.queue.state.items.map((item) => item.text),
      ['needs the key'],
    );
    assert.equal(session.queue.state.held?.kind, 'failed');
    assert.match(session.queue.state.held?.reason ?? '', /API key/);
    key = 'k';
    // "Set API Key" sends a prompt that waited for the key; this one waits in the queue, so it
    // is not sent from there as well.
    assert.equal(await session.retry(), undefined);
    assert.equal(server.modelCalls.length, 1);
    session.queue.resume();
    await waitDone(2);
    assert.equal(lastUserText(server.modelCalls[1]), 'needs the key');
    await waitUntil(() => !session.isBusy, 'the session to be idle');
    assert.equal(server.modelCalls.length, 2, 'sent once');
  });
});
