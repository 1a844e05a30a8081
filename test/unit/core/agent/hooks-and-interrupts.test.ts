import assert from 'node:assert/strict';
import { Hooks } from '../../../../src/core/agent/hooks';
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

for (const protocol of PROTOCOLS) {
  describe(`hooks (${protocol})`, () => {
    let harness: Harness;
    afterEach(() => harness?.close());

    it('UserPromptSubmit can rewrite the prompt the model receives', async () => {
      const hooks = new Hooks();
      hooks.add('UserPromptSubmit', ({ prompt }) => ({ prompt: `${prompt} (answer in French)` }));
      harness = await startHarness(protocol, { name: 'p', turns: [{ text: 'Bonjour' }] }, { hooks });
      await harness.conversation.submit('hello');
      assert.match(JSON.stringify(harness.bodies()[0]!.messages), /hello \(answer in French\)/);
      const user = harness.events[0];
      assert.equal(user?.type === 'user_message' && user.text, 'hello (answer in French)');
    });

    it('UserPromptSubmit can block a prompt: nothing is sent', async () => {
      const hooks = new Hooks();
      hooks.add('UserPromptSubmit', () => null);
      hooks.add('UserPromptSubmit', ({ prompt }) =>
        prompt.includes('secret') ? { block: 'mentions a secret' } : undefined,
      );
      hooks.add('UserPromptSubmit', () => ({ prompt: 'never reached' }));
      harness = await startHarness(protocol, { name: 'p', turns: [{ text: 'x' }] }, { hooks });
      await harness.conversation.submit('tell me the secret');
      assert.equal(harness.bodies().length, 0);
      const last = harness.events.at(-1);
      assert.equal(last?.type === 'error' && last.kind, 'hook');
      assert.match(last?.type === 'error' ? last.message : '', /mentions a secret/);
    });

    it('PreToolUse can block a call (the model is told) or rewrite its input', async () => {
      const hooks = new Hooks();
      hooks.add('PreToolUse', ({ toolName, input }) => {
        if (toolName === 'write_file') return { block: 'no writes today' };
        if (toolName === 'read_file') return { input: { ...(input as object), path: 'src/app.ts' } };
        return undefined;
      });
      harness = await startHarness(
        protocol,
        {
          name: 't',
          turns: [
            {
              toolCalls: [
                { id: 'w', name: 'write_file', arguments: { path: 'x', content: 'y' } },
                { id: 'r', name: 'read_file', arguments: { path: 'elsewhere.ts' } },
              ],
            },
            { text: 'ok' },
          ],
        },
        { hooks },
      );
      await harness.conversation.submit('go');
      const results = toolResultsIn(protocol, harness.bodies()[1]!);
      assert.match(results[0]!.content, /Blocked by a hook: no writes today/);
      assert.equal(results[1]!.content, 'export const answer = 42;\n');
      assert.deepEqual(writes, []);
    });

    it('PostToolUse observes every result', async () => {
      const hooks = new Hooks();
      const seen: string[] = [];
      hooks.add('PostToolUse', ({ toolName, output, isError }) => {
        seen.push(`${toolName}:${isError}:${output.length}`);
      });
      harness = await startHarness(
        protocol,
        { name: 't', turns: [{ toolCalls: [readCall] }, { text: 'ok' }] },
        { hooks },
      );
      await harness.conversation.submit('go');
      assert.deepEqual(seen, ['read_file:false:26']);
    });

    it('a throwing hook aborts the turn with an error event and leaves a valid history', async () => {
      const hooks = new Hooks();
      hooks.add('PreToolUse', () => {
        throw new Error('hook crashed');
      });
      harness = await startHarness(
        protocol,
        { name: 't', turns: [{ text: 'Let me read.', toolCalls: [readCall] }, { text: 'fine' }] },
        { hooks },
      );
      await harness.conversation.submit('go');
      const last = harness.events.at(-1);
      assert.equal(last?.type === 'error' && last.kind, 'hook');
      assert.match(last?.type === 'error' ? last.message : '', /PreToolUse hook failed: hook crashed/);
      await harness.conversation.submit('next');
      assert.deepEqual(
        toolCallIdsIn(protocol, harness.bodies()[1]!),
        [],
        'the call that never ran is not left orphaned',
      );
      assert.match(JSON.stringify(harness.bodies()[1]!.messages), /Let me read\./);
    });

    it('a removed hook no longer runs', async () => {
      const hooks = new Hooks();
      const remove = hooks.add('UserPromptSubmit', () => ({ block: 'x' }));
      remove();
      harness = await startHarness(protocol, { name: 'p', turns: [{ text: 'ok' }] }, { hooks });
      await harness.conversation.submit('hi');
      assert.equal(harness.events.at(-1)?.type, 'done');
    });
  });

  describe(`interrupt and cancel (${protocol})`, () => {
    let harness: Harness;
    afterEach(() => harness?.close());

    it('stop() ends the stream at once, keeps the partial answer, and is idempotent', async () => {
      harness = await startHarness(protocol, {
        name: 's',
        turns: [{ text: 'word '.repeat(300), chunkSize: 5, delayMs: 20 }],
      });
      harness.conversation.subscribe((event) => {
        if (event.type === 'text_delta' && event.seq === 4) {
          harness.conversation.stop();
          harness.conversation.stop();
        }
      });
      const started = Date.now();
      await harness.conversation.submit('talk');
      assert.ok(Date.now() - started < 2_000, 'the 6-second answer was cut short');
      assert.equal(harness.events.at(-1)?.type, 'interrupted');
      const history = harness.conversation.messages;
      assert.equal(history.length, 2);
      assert.equal(history[1]?.role, 'assistant');
      harness.conversation.stop();
    });

    it('interrupt with feedback keeps the partial text, injects the feedback and continues', async () => {
      harness = await startHarness(protocol, {
        name: 'redirect',
        turns: [
          { text: 'I will refactor everything '.repeat(40), chunkSize: 6, delayMs: 15 },
          { match: 'only the tests', text: 'OK, only the tests.' },
        ],
      });
      let interrupted = false;
      harness.conversation.subscribe((event) => {
        if (event.type === 'text_delta' && !interrupted && event.seq > 5) {
          interrupted = true;
          void harness.conversation.interrupt('Stop. Change only the tests.');
        }
      });
      await harness.conversation.submit('improve the code');
      const trace = eventTrace(harness.events);
      assert.deepEqual(trace.slice(0, 4), ['user_message', 'model_call:waiting', 'model_call:answering', 'text_delta']);
      assert.ok(trace.includes('interrupted'));
      assert.deepEqual(trace.slice(-7), [
        'user_message',
        'model_call:waiting',
        'model_call:answering',
        'text_delta',
        'usage:call',
        'usage:turn',
        'done:end_turn',
      ]);
      const interruptedEvent = harness.events.find((event) => event.type === 'interrupted');
      assert.equal(
        interruptedEvent?.type === 'interrupted' && interruptedEvent.feedback,
        'Stop. Change only the tests.',
      );
      const roles = harness.conversation.messages.map((message) => message.role);
      assert.deepEqual(roles, ['user', 'assistant', 'user', 'assistant']);
      assert.match(JSON.stringify(harness.bodies()[1]!.messages), /I will refactor.*Change only the tests/s);
      assert.match(answerText(harness.events), /OK, only the tests\.$/);
    });

    it('interrupting a running tool drops the unfinished call and keeps the history valid', async () => {
      harness = await startHarness(protocol, {
        name: 'tool-interrupt',
        turns: [
          { text: 'Running the slow thing.', toolCalls: [{ id: 'slow', name: 'slow_tool', arguments: {} }] },
          { text: 'Fine, skipping it.' },
        ],
      });
      harness.conversation.subscribe((event) => {
        if (event.type === 'tool_call') setTimeout(() => void harness.conversation.interrupt('Skip that.'), 50);
      });
      await harness.conversation.submit('go');
      assert.equal(harness.events.at(-1)?.type, 'done');
      const second = harness.bodies()[1]!;
      assert.deepEqual(toolCallIdsIn(protocol, second), []);
      assert.deepEqual(toolResultsIn(protocol, second), []);
      assert.match(JSON.stringify(second.messages), /Running the slow thing\..*Skip that\./s);
    });

    it('interrupt without a run is simply a prompt', async () => {
      harness = await startHarness(protocol, { name: 'idle', turns: [{ text: 'Hi.' }] });
      await harness.conversation.interrupt('hello');
      assert.equal(harness.events.at(-1)?.type, 'done');
    });
  });
}
