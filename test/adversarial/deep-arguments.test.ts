/**
 * Issue 32, item 12: tool-call arguments nested 10,000 to 100,000 deep — deeper than any
 * recursive walk survives, and deeper than JSON.stringify copes with — in every way a model can
 * send them (the server's tool calls in both wire formats, calls written into the text as tags,
 * fenced JSON, XML parameters, broken JSON the repair pass reads, and a client that hands the
 * loop a parsed value directly): the model is told the arguments are too deep, the turn goes on
 * to its end, nothing crashes. And the argument hash used by approvals walks any depth.
 */
import assert from 'node:assert/strict';
import { Conversation } from '../../src/core/agent/conversation';
import type { AgentEvent } from '../../src/core/events/events';
import type { LlmClient, LlmStreamPart } from '../../src/core/llm/llm-client';
import { MAX_ARGUMENT_DEPTH } from '../../src/core/llm/tool-call-accumulator';
import { hashArguments } from '../../src/core/policy/approval';
import { type Harness, type Protocol, startHarness, TEST_TOOLS } from '../unit/core/agent/loop-harness';

/** `{"d":[{"d":[…"bottom"…]}]}` as text, `depth` levels, built without recursion. */
function deepJson(depth: number): string {
  const open: string[] = [];
  const close: string[] = [];
  for (let level = 0; level < depth; level++) {
    open.push(level % 2 ? '[' : '{"d":');
    close.push(level % 2 ? ']' : '}');
  }
  return `${open.join('')}"bottom"${close.reverse().join('')}`;
}

function deepValue(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level++) value = level % 2 ? [value] : { d: value };
  return value;
}

const DEPTHS = [10_000, 100_000];
const TOO_DEEP = new RegExp(`nested more than ${MAX_ARGUMENT_DEPTH} levels deep|could not be read|not a JSON object`);

describe('adversarial: arguments nested thousands deep (issue 32, item 12)', function () {
  this.timeout(120_000);
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  /** The turn ended normally, the model was told why its call was not run, and it answered. */
  function assertToldAndFinished(events: AgentEvent[], problem = TOO_DEEP) {
    const result = events.find((event) => event.type === 'tool_result');
    assert.ok(result?.type === 'tool_result' && result.isError, 'the call ended in an error result');
    assert.match(result.output, problem);
    assert.ok(!events.some((event) => event.type === 'error'), JSON.stringify(events.find((e) => e.type === 'error')));
    assert.equal(events.at(-1)?.type, 'done');
    const text = events.map((event) => (event.type === 'text_delta' ? event.text : '')).join('');
    assert.match(text, /Recovered\./);
  }

  for (const depth of DEPTHS) {
    for (const protocol of ['openai', 'anthropic'] as Protocol[])
      it(`the server's own tool call, ${depth} deep (${protocol})`, async () => {
        harness = await startHarness(protocol, {
          name: 'deep',
          turns: [
            {
              toolCalls: [
                {
                  id: 'call_deep',
                  name: 'write_file',
                  rawArguments: `{"path": "a.txt", "content": ${deepJson(depth)}}`,
                },
              ],
              chunkSize: 65_536,
            },
            { text: 'Recovered.' },
          ],
        });
        await harness.conversation.submit('go');
        assertToldAndFinished(harness.events);
      });

    const written: Array<[string, string]> = [
      [
        'a <tool_call> tag',
        `<tool_call>{"name": "read_file", "arguments": {"path": "src/app.ts", "x": ${deepJson(depth)}}}</tool_call>`,
      ],
      ['a <function=…> tag', `<function=read_file>{"path": "src/app.ts", "x": ${deepJson(depth)}}</function>`],
      [
        'a fenced JSON block',
        `\`\`\`json\n{"name": "read_file", "arguments": {"path": "src/app.ts", "x": ${deepJson(depth)}}}\n\`\`\``,
      ],
      [
        'XML parameters',
        `<function=read_file>\n<parameter=path>\nsrc/app.ts\n</parameter>\n<parameter=offset>\n${deepJson(depth)}\n</parameter>\n</function>`,
      ],
      [
        'broken JSON the repair pass reads',
        `<tool_call>{"name": "read_file", "arguments": {"path": "src/app.ts", "x": ${deepJson(depth).slice(0, -depth / 2)}}}</tool_call>`,
      ],
    ];
    for (const [form, text] of written)
      it(`a call written as ${form}, ${depth} deep`, async () => {
        harness = await startHarness('openai', {
          name: 'deep-text',
          turns: [{ text, chunkSize: 65_536 }, { text: 'Recovered.' }],
        });
        await harness.conversation.submit('go');
        assertToldAndFinished(harness.events, /nested more than|could not be read|not a JSON object|could not be used/);
      });

    it(`a client that hands the loop a parsed value ${depth} deep`, async () => {
      let turn = 0;
      const llm: LlmClient = {
        provider: 'custom',
        listModels: async () => ['m'],
        async *stream(): AsyncIterable<LlmStreamPart> {
          if (turn++ === 0) {
            yield {
              type: 'tool_call',
              id: 'call_parsed',
              name: 'write_file',
              input: { path: 'a.txt', content: deepValue(depth) },
            };
            yield { type: 'finish', stopReason: 'tool_use' };
          } else {
            yield { type: 'text_delta', text: 'Recovered.' };
            yield { type: 'finish', stopReason: 'end_turn' };
          }
        },
      };
      const events: AgentEvent[] = [];
      const conversation = new Conversation({
        id: 'conv-deep',
        model: { llm, model: 'm' },
        system: 'You are a test agent.',
        clock: { now: () => Date.now() },
        tools: TEST_TOOLS,
        retry: { maxRetries: 0 },
      });
      conversation.subscribe((event) => events.push(event));
      await conversation.submit('go');
      assertToldAndFinished(events);
    });

    it(`the approval hash of arguments ${depth} deep`, () => {
      const hash = hashArguments({ b: deepValue(depth), a: 1 });
      assert.match(hash, /^[0-9a-f]{64}$/);
      assert.equal(hashArguments({ a: 1, b: deepValue(depth) }), hash, 'key order does not matter');
      assert.notEqual(hashArguments({ a: 1, b: deepValue(depth + 1) }), hash);
    });
  }
});
