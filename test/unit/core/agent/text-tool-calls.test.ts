/**
 * Tool calls a server left in the answer's text, recovered in a real conversation: the fake
 * model server streams them as plain text (no tool call of its own) over both wire formats,
 * through the real SDK clients, and the loop runs them through every gate and goes on — or,
 * when a call cannot be used, tells the model what was wrong and the format that works.
 */
import assert from 'node:assert/strict';
import type { AgentEvent } from '../../../../src/core/events/events';
import type { ApprovalGate, ApprovalRequest } from '../../../../src/core/policy/approval';
import { loadScenario } from '../../../fixtures/fake-model-server/scenario';
import {
  answerText,
  eventTrace,
  PROTOCOLS,
  startHarness,
  toolCallIdsIn,
  toolResultsIn,
  writes,
  type Harness,
  type Protocol,
} from './loop-harness';

function approveAll(): ApprovalGate & { requests: ApprovalRequest[] } {
  const requests: ApprovalRequest[] = [];
  return {
    requests,
    async request(request) {
      requests.push(request);
      return { approved: true, source: 'user' };
    },
  };
}

function toolCallEvents(events: AgentEvent[]): Array<Extract<AgentEvent, { type: 'tool_call' }>> {
  return events.filter((event): event is Extract<AgentEvent, { type: 'tool_call' }> => event.type === 'tool_call');
}

/** The text of the assistant messages a request carried back to the model. */
function assistantTextIn(protocol: Protocol, body: Record<string, unknown>): string {
  const messages = body.messages as Array<{ role: string; content: unknown }>;
  return messages
    .filter((message) => message.role === 'assistant')
    .map((message) =>
      typeof message.content === 'string'
        ? message.content
        : Array.isArray(message.content)
          ? (message.content as Array<{ type: string; text?: string }>)
              .filter((block) => block.type === 'text')
              .map((block) => block.text ?? '')
              .join('')
          : '',
    )
    .join('\n');
}

const RUN_THEN_ANSWER = [
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
];

for (const protocol of PROTOCOLS) {
  describe(`tool calls left in the text (${protocol} wire format)`, () => {
    let harness: Harness;
    afterEach(() => harness?.close());

    it('runs a Hermes/Qwen <tool_call> from the text and continues with its result', async () => {
      harness = await startHarness(protocol, loadScenario('text-tool-call-hermes'));
      await harness.conversation.submit('what is in app.ts?');
      assert.deepEqual(eventTrace(harness.events), RUN_THEN_ANSWER);
      // The call is shown as a call, not as text.
      assert.equal(answerText(harness.events), 'Let me look at the file.\nThe file exports answer = 42.');
      const [call] = toolCallEvents(harness.events);
      assert.deepEqual(call?.input, { path: 'src/app.ts' });
      assert.deepEqual(call?.fromText, { format: 'tool_call_tag', repaired: false });
      // The next request carries it as a real tool call with its result, and no tag in the text.
      const second = harness.bodies()[1]!;
      assert.deepEqual(toolCallIdsIn(protocol, second), [call!.toolCallId]);
      const [result] = toolResultsIn(protocol, second);
      assert.equal(result?.id, call!.toolCallId);
      assert.equal(result?.content, 'export const answer = 42;\n');
      assert.doesNotMatch(assistantTextIn(protocol, second), /tool_call/);
    });

    it("runs a Qwen3-Coder <parameter=…> call from the text, arguments typed by the tool's schema", async () => {
      harness = await startHarness(protocol, loadScenario('text-tool-call-qwen3-coder'));
      await harness.conversation.submit('what is in app.ts?');
      const [call] = toolCallEvents(harness.events);
      assert.deepEqual(call?.input, { path: 'src/app.ts', offset: 1 });
      assert.equal(answerText(harness.events), 'It exports answer = 42.');
      const [result] = toolResultsIn(protocol, harness.bodies()[1]!);
      assert.equal(result?.content, 'export const answer = 42;\n');
    });

    it('asks approval for a Llama-style <function=…> write from the text, then writes', async () => {
      const approvals = approveAll();
      harness = await startHarness(protocol, loadScenario('text-tool-call-llama'), { approvals });
      await harness.conversation.submit('write hi to out.txt');
      assert.deepEqual(eventTrace(harness.events).slice(3, 9), [
        'text_delta',
        'tool_call:write_file',
        'usage:call',
        'tool_approval_request',
        'tool_approval_result',
        'tool_result:write_file',
      ]);
      assert.equal(approvals.requests.length, 1);
      assert.equal(approvals.requests[0]?.summary, 'Write out.txt');
      assert.deepEqual(approvals.requests[0]?.input, { path: 'out.txt', content: 'hi' });
      assert.deepEqual(writes, [{ path: 'out.txt', content: 'hi' }]);
      assert.equal(answerText(harness.events), 'I will write the file. Written.');
      assert.deepEqual(toolCallEvents(harness.events)[0]?.fromText, { format: 'function_tag', repaired: false });
    });

    it('runs a call written as a fenced JSON block that ends the answer', async () => {
      harness = await startHarness(protocol, loadScenario('text-tool-call-fenced'));
      await harness.conversation.submit('what is in app.ts?');
      assert.deepEqual(eventTrace(harness.events), RUN_THEN_ANSWER);
      assert.equal(answerText(harness.events), 'I need to read the file first.\n\nIt exports answer = 42.');
      assert.deepEqual(toolCallEvents(harness.events)[0]?.fromText, { format: 'fenced_json', repaired: false });
      const [result] = toolResultsIn(protocol, harness.bodies()[1]!);
      assert.equal(result?.content, 'export const answer = 42;\n');
    });

    it('repairs broken JSON in a call, runs it, and says so in the LLM trace', async () => {
      harness = await startHarness(protocol, loadScenario('text-tool-call-repaired'), {
        tracing: { enabled: () => true },
      });
      await harness.conversation.submit('read app.ts');
      const [call] = toolCallEvents(harness.events);
      assert.deepEqual(call?.input, { path: 'src/app.ts' });
      assert.deepEqual(call?.fromText, { format: 'tool_call_tag', repaired: true });
      const [result] = toolResultsIn(protocol, harness.bodies()[1]!);
      assert.equal(result?.content, 'export const answer = 42;\n');
      const trace = harness.events.find((event) => event.type === 'llm_response');
      const payload = (trace?.type === 'llm_response' ? trace.payload : undefined) as {
        text: string;
        toolCalls: Array<{ name: string; fromText?: { format: string; repaired: boolean; source: string } }>;
      };
      assert.equal(payload.toolCalls[0]?.name, 'read_file');
      assert.equal(payload.toolCalls[0]?.fromText?.repaired, true);
      assert.equal(
        payload.toolCalls[0]?.fromText?.source,
        "<tool_call>{'name': 'read_file', 'arguments': {'path': 'src/app.ts',},}</tool_call>",
      );
      assert.equal(payload.text, '');
    });

    /** Runs one answer whose text holds an unusable call; returns what the model was told. */
    async function unusable(text: string, toolName: string): Promise<string> {
      harness = await startHarness(protocol, {
        name: 'unusable',
        turns: [{ text, stopReason: 'end_turn' }, { text: 'Sorry, trying again later.' }],
      });
      await harness.conversation.submit('go');
      assert.ok(
        eventTrace(harness.events).includes(`tool_result:${toolName}:error`),
        eventTrace(harness.events).join(),
      );
      assert.equal(harness.calls().length, 2);
      assert.equal(harness.events.at(-1)?.type, 'done');
      const [result] = toolResultsIn(protocol, harness.bodies()[1]!);
      if (protocol === 'anthropic') assert.equal(result?.isError, true);
      const told = result?.content ?? '';
      assert.match(told, /Nothing was run/);
      assert.match(told, /<tool_call>\{"name": "tool_name", "arguments": \{\.\.\.\}\}<\/tool_call>/);
      return told;
    }

    it('tells the model when a call in the text names a tool that does not exist', async () => {
      const told = await unusable(
        '<tool_call>{"name": "read_files", "arguments": {"path": "src/app.ts"}}</tool_call>',
        'read_files',
      );
      assert.match(told, /there is no tool named "read_files"\. Available tools: [a-z_, ]*read_file, write_file/);
    });

    it('tells the model when the JSON of a call cannot be repaired', async () => {
      const told = await unusable(
        '<tool_call>{"name": "read_file", "arguments": {"path": "src/app.ts"}} and then some words</tool_call>',
        'read_file',
      );
      assert.match(told, /the JSON in <tool_call> could not be read/);
    });

    it('tells the model when two fenced blocks look like calls and which one is meant is unclear', async () => {
      const told = await unusable(
        'Either\n```json\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n```\nor\n' +
          '```json\n{"name": "read_file", "arguments": {"path": "b.ts"}}\n```',
        'read_file',
      );
      assert.match(told, /2 JSON blocks shaped like tool calls/);
    });

    it('never runs a call the stream was cut in the middle of, and keeps its text', async () => {
      harness = await startHarness(protocol, {
        name: 'cut',
        turns: [
          {
            text: 'Reading. <tool_call>{"name": "read_file", "arguments": {"path": "src/app.ts"}}</tool_call>',
            chunkSize: 4,
            fault: { type: 'cut_mid_text' },
          },
        ],
      });
      await harness.conversation.submit('read it').catch(() => undefined);
      assert.equal(toolCallEvents(harness.events).length, 0);
      assert.ok(!harness.events.some((event) => event.type === 'tool_result'));
      assert.match(answerText(harness.events), /^Reading\. <tool_call>\{"name"/);
      assert.equal(harness.events.at(-1)?.type, 'error');
      // The history keeps what was shown, so the next prompt sees the same answer the user saw.
      await harness.conversation.submit('again').catch(() => undefined);
      assert.match(assistantTextIn(protocol, harness.bodies()[1] ?? {}), /^Reading\. <tool_call>/);
    });

    it('leaves a call shown as an example in code as text, and runs nothing', async () => {
      const text =
        'You call it as `<tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call>`, or:\n' +
        '```xml\n<function=read_file>{"path": "a.ts"}</function>\n```\n' +
        'For example:\n\n```json\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n```\n';
      harness = await startHarness(protocol, { name: 'example', turns: [{ text, chunkSize: 3 }] });
      await harness.conversation.submit('how do I call read_file?');
      assert.equal(answerText(harness.events), text);
      assert.equal(toolCallEvents(harness.events).length, 0);
      assert.equal(harness.calls().length, 1);
      assert.deepEqual(eventTrace(harness.events).slice(-1), ['done:end_turn']);
    });
  });
}
