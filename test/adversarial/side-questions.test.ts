/**
 * Hostile side questions (`/btw`): a 1 MB question, control characters both ways, nothing
 * asked, twenty at once (two answered at a time, eight waiting, the rest refused), a question
 * before any conversation exists, and a model that answers with a tool call (ignored, said so,
 * never run). Each gets a clear outcome; the conversation and the server see nothing else.
 */
import assert from 'node:assert/strict';
import { z } from 'zod';
import { MAX_ANSWERING, MAX_WAITING, type SideAnswer } from '../../src/core/session/side-questions';
import { defineTool } from '../../src/core/tools/tool';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { sessionOn } from '../unit/core/session/session-harness';

const sideRequests = (server: FakeModelServer) =>
  server.modelCalls.filter((request) => JSON.stringify(request.body).includes('A side question from the user'));

describe('side questions: hostile input', function () {
  this.timeout(120_000);
  let server: FakeModelServer;
  afterEach(() => server.close());

  async function withConversation(turns: Parameters<typeof FakeModelServer.start>[0] = {}) {
    server = await FakeModelServer.start(turns);
    const harness = sessionOn(server);
    await harness.run('hello there');
    return harness;
  }

  it('refuses a 1 MB question with its size, sending nothing', async () => {
    const { session } = await withConversation({
      scenario: { name: 'huge', turns: [{ match: 'hello', text: 'Hi.' }] },
    });
    const answer = await session.sideQuestions.ask(`why ${'x'.repeat(1024 * 1024)}`);
    assert.equal(answer.status, 'refused');
    assert.match(answer.note ?? '', /too long \(1,048,580 characters; at most 20,000\)/);
    assert.ok(answer.question.length < 1_000, 'the question is not echoed whole');
    assert.equal(sideRequests(server).length, 0);
  });

  it('drops control characters from the question sent and from the answer shown', async () => {
    const { session } = await withConversation({
      scenario: {
        name: 'control',
        turns: [
          { match: 'hello', text: 'Hi.' },
          { match: 'colour', text: 'Plain \u001b[2J\u001b]0;owned\u0007text\u0000 here\r\nnext line.' },
        ],
      },
    });
    const answer = await session.sideQuestions.ask('\u001b[31mwhich colour\u0000\u0008 is it?\u001b[0m\r\nthanks');
    assert.equal(answer.status, 'answered', answer.note);
    const sent = JSON.stringify(sideRequests(server)[0]?.body);
    assert.ok(!/\\u001b|\\u0000|\\u0008|\\r/.test(sent), sent);
    assert.ok(sent.includes('[31mwhich colour is it?[0m\\nthanks'));
    assert.equal(answer.text, 'Plain [2J]0;ownedtext here\nnext line.');
  });

  it('says what to type when nothing is asked', async () => {
    const { session } = await withConversation({
      scenario: { name: 'empty', turns: [{ match: 'hello', text: 'Hi.' }] },
    });
    for (const nothing of ['', '   ', '\u0000\u001b\t\n']) {
      const answer = await session.sideQuestions.ask(nothing);
      assert.equal(answer.status, 'refused');
      assert.match(answer.note ?? '', /Nothing to ask: type the question after \/btw/);
    }
    assert.equal(sideRequests(server).length, 0);
  });

  it(`answers twenty at once ${MAX_ANSWERING} at a time, ${MAX_WAITING} waiting, and refuses the rest`, async () => {
    const { session, events } = await withConversation({
      scenario: {
        name: 'burst',
        turns: [{ match: 'hello', text: 'Hi.' }],
        whenExhausted: 'echo',
      },
    });
    const eventsBefore = events.length;
    const answering = new Set<string>();
    let mostAtOnce = 0;
    session.sideQuestions.onUpdate((update: SideAnswer) => {
      if (update.status === 'answering') answering.add(update.id);
      else answering.delete(update.id);
      mostAtOnce = Math.max(mostAtOnce, answering.size);
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, index) => session.sideQuestions.ask(`burst question ${index}`)),
    );
    const answered = answers.filter((answer) => answer.status === 'answered');
    const refused = answers.filter((answer) => answer.status === 'refused');
    assert.equal(answered.length, MAX_ANSWERING + MAX_WAITING);
    assert.equal(refused.length, 20 - MAX_ANSWERING - MAX_WAITING);
    assert.ok(refused.every((answer) => /Too many side questions at once/.test(answer.note ?? '')));
    assert.ok(mostAtOnce <= MAX_ANSWERING, `at most ${MAX_ANSWERING} at once, saw ${mostAtOnce}`);
    assert.equal(sideRequests(server).length, MAX_ANSWERING + MAX_WAITING);
    // Each answer is its own question's, in order.
    answered.forEach((answer, index) => assert.match(answer.text, new RegExp(`burst question ${index}\\b`)));
    assert.equal(events.length, eventsBefore, 'the conversation saw none of them');
    assert.equal(session.sideQuestions.active, 0);
  });

  it('refuses before any conversation exists, saying why', async () => {
    server = await FakeModelServer.start({ scenario: { name: 'none', turns: [], whenExhausted: 'echo' } });
    const { session } = sessionOn(server);
    const answer = await session.sideQuestions.ask('what are you doing?');
    assert.equal(answer.status, 'refused');
    assert.match(answer.note ?? '', /no conversation yet.*Send a prompt first/);
    assert.equal(server.modelCalls.length, 0);
    assert.equal(session.currentId, undefined, 'no conversation was started for it');
  });

  it('ignores a tool call in the answer, says so, and runs nothing', async () => {
    let runs = 0;
    const trap = defineTool({
      name: 'delete_everything',
      description: 'Deletes.',
      inputSchema: z.object({}),
      readOnly: false,
      needsApproval: false,
      async execute() {
        runs++;
        return 'deleted';
      },
    });
    server = await FakeModelServer.start({
      scenario: {
        name: 'tool-answer',
        turns: [
          { match: 'hello', text: 'Hi.' },
          {
            match: 'clean up',
            text: 'Let me do that.',
            toolCalls: [{ id: 't1', name: 'delete_everything', arguments: {} }],
          },
        ],
      },
    });
    const { session, run, events } = sessionOn(server, { tools: () => [trap] });
    await run('hello there');
    const eventsBefore = events.length;
    const answer = await session.sideQuestions.ask('could you clean up?');
    assert.equal(answer.status, 'answered');
    assert.equal(answer.text, 'Let me do that.');
    assert.match(answer.note ?? '', /tried to call a tool \(delete_everything\); side questions cannot use tools/);
    assert.equal(runs, 0);
    assert.equal(events.length, eventsBefore);
  });
});
