/**
 * The agent loop against the fake model server, in both wire formats: exact event sequences,
 * tool execution through every gate, limits, continuation, and every stream fault.
 */
import assert from 'node:assert/strict';
import type { ApprovalGate, ApprovalRequest } from '../../../../src/core/policy/approval';
import {
  answerText,
  eventTrace,
  PROTOCOLS,
  readCall,
  startHarness,
  toolCallIdsIn,
  toolResultsIn,
  writes,
  type Harness,
} from './loop-harness';

const writeCall = { id: 'call_write', name: 'write_file', arguments: { path: 'out.txt', content: 'hi' } };

function gate(answer: (request: ApprovalRequest) => boolean): ApprovalGate & { requests: ApprovalRequest[] } {
  const requests: ApprovalRequest[] = [];
  return {
    requests,
    async request(request) {
      requests.push(request);
      return answer(request) ? { approved: true, source: 'user' } : { approved: false, source: 'user' };
    },
  };
}

for (const protocol of PROTOCOLS) {
  describe(`agent loop (${protocol} wire format)`, () => {
    let harness: Harness;
    afterEach(() => harness?.close());

    it('answers a plain prompt with the exact event sequence', async () => {
      harness = await startHarness(protocol, {
        name: 'plain',
        turns: [{ text: 'Just text.', usage: { input: 10, output: 3 } }],
      });
      await harness.conversation.submit('hi');
      assert.deepEqual(eventTrace(harness.events), [
        'user_message',
        'model_call:waiting',
        'model_call:answering',
        'text_delta',
        'usage:call',
        'usage:turn',
        'done:end_turn',
      ]);
      assert.equal(answerText(harness.events), 'Just text.');
      const done = harness.events.at(-1);
      assert.equal(done?.type === 'done' && done.turns, 1);
      harness.events.forEach((event, index) => assert.equal(event.seq, index));
    });

    it('runs a read-only tool without asking and feeds its result back', async () => {
      harness = await startHarness(protocol, {
        name: 'read',
        turns: [{ text: 'Reading.', toolCalls: [readCall] }, { text: 'It exports answer = 42.' }],
      });
      await harness.conversation.submit('what is in app.ts?');
      assert.deepEqual(eventTrace(harness.events), [
        'user_message',
        'model_call:waiting',
        'model_call:answering',
        'text_delta',
        'tool_call:read_file',
        'usage:call',
        'tool_result:read_file',
        'model_call:waiting',
        'model_call:answering',
        'text_delta',
        'usage:call',
        'usage:turn',
        'done:end_turn',
      ]);
      const [result] = toolResultsIn(protocol, harness.bodies()[1]!);
      assert.equal(result?.id, 'call_read');
      assert.equal(result?.content, 'export const answer = 42;\n');
    });

    it('asks the approval gate for a writing tool and runs it when approved', async () => {
      const approvals = gate(() => true);
      harness = await startHarness(
        protocol,
        { name: 'write', turns: [{ toolCalls: [writeCall] }, { text: 'Done.' }] },
        { approvals },
      );
      await harness.conversation.submit('write it');
      assert.deepEqual(eventTrace(harness.events).slice(3, 8), [
        'tool_call:write_file',
        'usage:call',
        'tool_approval_request',
        'tool_approval_result',
        'tool_result:write_file',
      ]);
      assert.equal(approvals.requests[0]?.toolCallId, 'call_write');
      assert.equal(approvals.requests[0]?.summary, 'Write out.txt');
      assert.match(approvals.requests[0]?.argumentsHash ?? '', /^[0-9a-f]{64}$/);
      assert.deepEqual(writes, [{ path: 'out.txt', content: 'hi' }]);
    });

    it('tells the model "User denied this tool call" and lets it adapt', async () => {
      harness = await startHarness(
        protocol,
        { name: 'deny', turns: [{ toolCalls: [writeCall] }, { text: 'Understood, I will not write it.' }] },
        { approvals: gate(() => false) },
      );
      await harness.conversation.submit('write it');
      assert.deepEqual(writes, []);
      const [result] = toolResultsIn(protocol, harness.bodies()[1]!);
      assert.match(result?.content ?? '', /User denied this tool call/);
      assert.equal(harness.events.at(-1)?.type, 'done');
      assert.match(answerText(harness.events), /will not write/);
    });

    it('denies a writing tool when no approval gate exists', async () => {
      harness = await startHarness(protocol, { name: 'no-gate', turns: [{ toolCalls: [writeCall] }, { text: 'ok' }] });
      await harness.conversation.submit('write it');
      const result = harness.events.find((event) => event.type === 'tool_approval_result');
      assert.equal(result?.type === 'tool_approval_result' && result.source, 'no_gate');
      assert.deepEqual(writes, []);
    });

    it('turns malformed tool JSON into a tool error the model sees, and goes on', async () => {
      harness = await startHarness(protocol, {
        name: 'bad-json',
        turns: [
          { toolCalls: [{ id: 'call_bad', name: 'read_file', rawArguments: '{"path": src/app.ts' }] },
          { text: 'Let me fix that.' },
        ],
      });
      await harness.conversation.submit('read');
      const [result] = toolResultsIn(protocol, harness.bodies()[1]!);
      assert.match(result?.content ?? '', /not valid JSON/);
      assert.equal(harness.events.at(-1)?.type, 'done');
    });

    it('reports unknown tools, invalid input and throwing tools as errors, not crashes', async () => {
      harness = await startHarness(protocol, {
        name: 'errors',
        turns: [
          {
            toolCalls: [
              { id: 'c1', name: 'no_such_tool', arguments: {} },
              { id: 'c2', name: 'read_file', arguments: { path: 42 } },
              { id: 'c3', name: 'failing_tool', arguments: {} },
            ],
          },
          { text: 'I see the errors.' },
        ],
      });
      await harness.conversation.submit('go');
      const results = toolResultsIn(protocol, harness.bodies()[1]!);
      assert.match(results[0]!.content, /no tool named "no_such_tool".*read_file/s);
      assert.match(results[1]!.content, /Invalid input for read_file: path/);
      assert.match(results[2]!.content, /failing_tool failed: disk on fire/);
      assert.equal(harness.events.at(-1)?.type, 'done');
    });

    it('caps a huge tool output before it enters the context', async () => {
      harness = await startHarness(
        protocol,
        { name: 'huge', turns: [{ toolCalls: [{ id: 'c1', name: 'huge_output', arguments: {} }] }, { text: 'ok' }] },
        { limits: { maxToolOutputChars: 5_000 } },
      );
      await harness.conversation.submit('go');
      const [result] = toolResultsIn(protocol, harness.bodies()[1]!);
      assert.ok(result!.content.length < 5_300);
      assert.match(result!.content, /characters omitted/);
    });

    it('stops after max turns with a forced, tool-less final summary and a wrap-up hint before it', async () => {
      const loop = { toolCalls: [readCall] };
      harness = await startHarness(
        protocol,
        { name: 'busy', turns: [loop, loop, loop, loop, { text: 'Summary: read app.ts four times.' }] },
        { limits: { maxTurns: 4 } },
      );
      await harness.conversation.submit('keep reading');
      const bodies = harness.bodies();
      assert.equal(bodies.length, 5);
      assert.doesNotMatch(JSON.stringify(bodies[0]), /turns? left before the turn limit/);
      assert.match(JSON.stringify(bodies[1]), /3 turns left before the turn limit/);
      assert.match(JSON.stringify(bodies[3]), /1 turn left before the turn limit/);
      const last = bodies[4]!;
      assert.match(JSON.stringify(last.messages), /reached the turn limit/);
      if (protocol === 'anthropic') assert.deepEqual(last.tool_choice, { type: 'none' });
      else assert.equal(last.tool_choice, 'none');
      const done = harness.events.at(-1);
      assert.equal(done?.type === 'done' && done.stopReason, 'max_turns');
      assert.match(answerText(harness.events), /Summary: read app.ts four times/);
    });

    it('continues an answer cut off by the output limit, at most three times', async () => {
      const cut = (text: string) => ({ text, stopReason: 'max_tokens' as const });
      harness = await startHarness(protocol, {
        name: 'long',
        turns: [cut('one '), cut('two '), cut('three '), cut('four '), { text: 'never' }],
      });
      await harness.conversation.submit('write a lot');
      assert.equal(harness.bodies().length, 4);
      assert.equal(answerText(harness.events), 'one two three four ');
      assert.match(JSON.stringify(harness.bodies()[1]), /Continue exactly where you stopped/);
      const done = harness.events.at(-1);
      assert.equal(done?.type === 'done' && done.stopReason, 'max_tokens');
    });

    it('fails cleanly when the stream is cut mid-tool-call: the partial call never runs', async () => {
      harness = await startHarness(
        protocol,
        {
          name: 'cut',
          turns: [
            {
              text: 'Writing now.',
              toolCalls: [{ id: 'c1', name: 'write_file', arguments: { path: 'a', content: 'x'.repeat(300) } }],
              fault: { type: 'cut_mid_tool_call' },
            },
            { text: 'Retrying.' },
          ],
        },
        { approvals: gate(() => true) },
      );
      await harness.conversation.submit('write');
      const last = harness.events.at(-1);
      // The server closed the socket mid-answer: a lost connection, named as such.
      assert.equal(last?.type === 'error' && last.kind, 'connection');
      assert.match(last?.type === 'error' ? last.message : '', /^The connection was lost with /);
      assert.deepEqual(writes, []);
      assert.ok(!harness.events.some((event) => event.type === 'tool_call'));
      // The history stays valid: the next prompt goes out with no orphan tool call.
      await harness.conversation.submit('try again');
      const next = harness.bodies()[1]!;
      assert.deepEqual(toolCallIdsIn(protocol, next), []);
      assert.match(JSON.stringify(next.messages), /Writing now\./);
    });

    it('keeps the partial text when the stream is cut mid-text, and reports the lost connection', async () => {
      harness = await startHarness(protocol, {
        name: 'cut-text',
        turns: [{ text: 'The answer is being written when ', chunkSize: 4, fault: { type: 'cut_mid_text' } }],
      });
      await harness.conversation.submit('hi');
      const last = harness.events.at(-1);
      assert.equal(last?.type === 'error' && last.kind, 'connection');
      const partial = answerText(harness.events);
      assert.ok(partial.length > 0 && 'The answer is being written when '.startsWith(partial));
      assert.deepEqual(
        harness.conversation.messages.map((message) => message.role),
        ['user', 'assistant'],
      );
    });

    it('retries a 429 with retry-after and a 500, then answers', async () => {
      harness = await startHarness(
        protocol,
        {
          name: 'flaky',
          turns: [
            { text: 'finally', fault: { type: 'http_error', status: 429, retryAfterSeconds: 0.2 } },
            { text: 'again', fault: { type: 'http_error', status: 500 } },
          ],
        },
        { retry: { baseDelayMs: 10 } },
      );
      await harness.conversation.submit('hi');
      await harness.conversation.submit('hi again');
      assert.equal(harness.calls().length, 4);
      assert.equal(answerText(harness.events), 'finallyagain');
    });

    it('reports 529 overloaded as a server error once retries are spent', async () => {
      harness = await startHarness(
        protocol,
        { name: 'down', turns: [{ text: 'x', fault: { type: 'http_error', status: 529, times: 9 } }] },
        { retry: { maxRetries: 2, baseDelayMs: 5 } },
      );
      await harness.conversation.submit('hi');
      assert.equal(harness.calls().length, 3);
      const last = harness.events.at(-1);
      assert.equal(last?.type === 'error' && last.kind, 'server');
      assert.equal(harness.conversation.messages.length, 0, 'an unanswered prompt leaves the history as it was');
    });

    it('streams slow deltas as they arrive', async () => {
      harness = await startHarness(protocol, {
        name: 'slow',
        turns: [{ text: 'abcdefghij', chunkSize: 2, delayMs: 40 }],
      });
      const arrivals: number[] = [];
      harness.conversation.subscribe((event) => {
        if (event.type === 'text_delta') arrivals.push(Date.now());
      });
      await harness.conversation.submit('hi');
      assert.equal(arrivals.length, 5);
      assert.ok(arrivals.at(-1)! - arrivals[0]! >= 4 * 40 * 0.8);
    });

    it('estimates usage when the server reports none, and marks it', async () => {
      harness = await startHarness(protocol, { name: 'no-usage', turns: [{ text: 'a'.repeat(80), usage: null }] });
      await harness.conversation.submit('hi');
      const call = harness.events.find((event) => event.type === 'usage' && event.scope === 'call');
      assert.equal(call?.type === 'usage' && call.reported, false);
      assert.ok(call?.type === 'usage' && call.usage.outputTokens >= 20);
    });

    it('drains inbox messages into the top of each turn', async () => {
      const inbox = ['[Background job 1 finished: npm test passed]'];
      harness = await startHarness(
        protocol,
        { name: 'inbox', turns: [{ toolCalls: [readCall] }, { text: 'Noted.' }] },
        { inboxes: [() => inbox.splice(0)] },
      );
      await harness.conversation.submit('hi');
      assert.match(JSON.stringify(harness.bodies()[0]), /Background job 1 finished/);
      assert.doesNotMatch(
        JSON.stringify(harness.bodies()[1]!.messages).split('Background job 1')[2] ?? '',
        /Background/,
      );
    });

    it('stops at the token budget before starting another model call', async () => {
      harness = await startHarness(
        protocol,
        { name: 'budget', turns: [{ toolCalls: [readCall], usage: { input: 900, output: 200 } }, { text: 'never' }] },
        { limits: { tokenBudget: 1_000 } },
      );
      await harness.conversation.submit('hi');
      assert.equal(harness.bodies().length, 1);
      const done = harness.events.at(-1);
      assert.equal(done?.type === 'done' && done.stopReason, 'token_budget');
    });
  });
}

describe('agent loop (Anthropic thinking)', () => {
  it('sends thinking blocks back unchanged on the next request', async () => {
    const harness = await startHarness('anthropic', {
      name: 'thinking',
      turns: [{ thinking: { text: 'Which file?', signature: 'sig-1' }, toolCalls: [readCall] }, { text: 'Done.' }],
    });
    try {
      await harness.conversation.submit('go');
      const assistant = (
        harness.bodies()[1]!.messages as Array<{ role: string; content: Array<{ type: string }> }>
      ).find((message) => message.role === 'assistant');
      assert.deepEqual(assistant?.content[0], { type: 'thinking', thinking: 'Which file?', signature: 'sig-1' });
    } finally {
      await harness.close();
    }
  });
});

describe('agent loop history caches', () => {
  for (const protocol of PROTOCOLS) {
    it(`sends the new prompt, not the failed one, after a failure (${protocol})`, async () => {
      const harness = await startHarness(protocol, {
        name: 'fail-then-new',
        turns: [{ text: 'x', fault: { type: 'http_error', status: 400 } }, { text: 'answer to the second' }],
      });
      try {
        await harness.conversation.submit('first prompt');
        await harness.conversation.submit('second prompt');
        const sent = JSON.stringify(harness.bodies()[1]!.messages);
        assert.match(sent, /second prompt/);
        assert.doesNotMatch(sent, /first prompt/);
      } finally {
        await harness.close();
      }
    });
  }
});
