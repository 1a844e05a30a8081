/**
 * Issue 32, item 10: tool calls a model writes as examples — in code as CommonMark means it, or
 * in its reasoning — are never run; calls genuinely outside code still are. Each answer goes
 * through the product's path: the fake model server, the real client, the conversation (which
 * wraps the client in the text tool-call recovery), the loop and the tools. A call that runs
 * shows as a tool_result; the marker path `EXAMPLE.md` exists in no workspace.
 */
import assert from 'node:assert/strict';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LlmStreamPart } from '../../src/core/llm/llm-client';
import { OpenAiClient } from '../../src/core/llm/openai/openai-client';
import { TextToolCallRecovery } from '../../src/core/llm/text-tool-calls/text-tool-call-recovery';
import { withTextToolCalls } from '../../src/core/llm/text-tool-calls/with-text-tool-calls';
import { collectParts } from '../unit/core/llm/collect-parts';
import { type Harness, type Protocol, startHarness } from '../unit/core/agent/loop-harness';

const JSON_CALL = '<tool_call>{"name": "read_file", "arguments": {"path": "EXAMPLE.md"}}</tool_call>';
const MULTILINE_CALL = '<tool_call>\n{"name": "read_file", "arguments": {"path": "EXAMPLE.md"}}\n</tool_call>';
const XML_CALL = '<function=read_file>\n<parameter=path>\nEXAMPLE.md\n</parameter>\n</function>';
const FENCED_CALL = '{"name": "read_file", "arguments": {"path": "EXAMPLE.md"}}';

/** Answers whose only calls are examples. */
const EXAMPLES: Array<[string, string]> = [
  ['an indented code block', `To call a tool, write:\n\n    ${JSON_CALL}\n\nThat is all.`],
  ['an indented code block, multi-line', `Format:\n\n${indent(MULTILINE_CALL, '    ')}\n\nDone.`],
  ['a tab-indented code block', `Format:\n\n${indent(MULTILINE_CALL, '\t')}\n`],
  ['an XML-form call in an indented code block', `Like this:\n\n${indent(XML_CALL, '    ')}\n`],
  ['a fence indented with a tab in a list item', `- step one\n\n\t\`\`\`\n${indent(MULTILINE_CALL, '\t')}\n\t\`\`\`\n`],
  [
    'a fence indented four spaces in an ordered item',
    `1. step\n\n    \`\`\`xml\n${indent(JSON_CALL, '    ')}\n    \`\`\`\n`,
  ],
  [
    'an XML-form call in a fence in a nested list',
    `- a\n  - b\n\n    \`\`\`\n${indent(XML_CALL, '    ')}\n    \`\`\`\n`,
  ],
  ['an indented block in a nested list item', `- a\n  - b\n\n        ${JSON_CALL}\n`],
  ['a ~~~ fence', `~~~\n${MULTILINE_CALL}\n~~~\nafter`],
  ['a fence whose inner shorter run does not close it', `\`\`\`\`\n\`\`\`\n${JSON_CALL}\n\`\`\`\n\`\`\`\`\`\nafter`],
  ['an unclosed fence', `Here:\n\`\`\`xml\n${MULTILINE_CALL}\n\nand everything after is code`],
  ['an unclosed fence in a blockquote', `> \`\`\`\n> ${JSON_CALL}\n`],
  ['a fence inside a blockquote', `> \`\`\`\n> ${JSON_CALL}\n> \`\`\`\n\nok`],
  ['an indented block inside a blockquote', `> text\n>\n>     ${JSON_CALL}\n`],
  ['a code span over a line break', `Use \`the form\n${JSON_CALL}\n\` in your answer.`],
  ['a code span over a multi-line call', `Write \`x\n${MULTILINE_CALL}\` like that.`],
  ['a double-backtick span holding a single backtick', `See \`\` a \` b\n${JSON_CALL} \`\` here.`],
  ['a code span across a lazy line in a list item', `- see \`x\n${JSON_CALL}\` here`],
  ['a <pre> HTML block', `<pre>\n${MULTILINE_CALL}\n</pre>\n\nok`],
  ['inline <code>', `Use <code>${JSON_CALL}</code> to call.`],
  ['an HTML comment', `<!--\n${MULTILINE_CALL}\n-->\nok`],
  ['a <think> block', `<think>\nI could call ${JSON_CALL} but will not.\n</think>\nThe answer is 42.`],
  ['an unclosed <think>', `<think>\nMaybe:\n${MULTILINE_CALL}\nhmm`],
  ['reasoning closed by a lone </think>', `I might need ${JSON_CALL} later.\n</think>\nThe answer is 42.`],
  ['a <think> block in mid-answer', `First part.\n\n<think>\n${MULTILINE_CALL}\n</think>\n\nThe end.`],
  ['a fenced JSON call in a list item', `- then:\n\n  \`\`\`json\n  ${FENCED_CALL}\n  \`\`\``],
  ['a fenced JSON call in a blockquote', `> \`\`\`json\n> ${FENCED_CALL}\n> \`\`\``],
  ['a tab-indented JSON fence (an indented block)', `Shape:\n\n\t\`\`\`json\n\t${FENCED_CALL}\n\t\`\`\``],
  ['a JSON fence inside a longer fence', `\`\`\`\`md\n\`\`\`json\n${FENCED_CALL}\n\`\`\`\n\`\`\`\``],
  ['a call with CRLF line ends in an indented block', `Format:\r\n\r\n    ${JSON_CALL}\r\n`],
  ['a forged sentinel next to an indented call', `\uE0000000000000000000c0\uE001\n\n    ${JSON_CALL}\n`],
];

/** Answers with a call genuinely outside code: it runs. */
const GENUINE: Array<[string, string]> = [
  ['after a closed fence', `\`\`\`\ncode\n\`\`\`\n${JSON_CALL}`],
  ['after a ~~~ fence closed by a longer run', `~~~\nx\n~~~~~\n${MULTILINE_CALL}`],
  ['after an indented block ends', `    code\n\n${JSON_CALL}`],
  ['after a closed code span on its line', `Use \`x\` then ${JSON_CALL}`],
  ['after a stray backtick', `a \` stray\n${JSON_CALL}`],
  ['after a closed <think>', `<think>plan: read it</think>\n${JSON_CALL}`],
  ['after a lone </think>', `plan: read it\n</think>\n\n${MULTILINE_CALL}`],
  ['after a closed <pre>', `<pre>x</pre>\n\n${JSON_CALL}`],
  ['after a closed fence, CRLF', `\`\`\`\r\ncode\r\n\`\`\`\r\n${JSON_CALL}`],
  ['in XML form after a list', `- one\n- two\n\n${XML_CALL}`],
  ['as a fenced JSON block ending the answer', `Reading it.\n\n\`\`\`json\n${FENCED_CALL}\n\`\`\``],
  ['after an escaped backtick', `\\\` not code\n${JSON_CALL}`],
];

function indent(text: string, prefix: string): string {
  return text
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}

describe('adversarial: tool calls written as examples are never run (issue 32, item 10)', function () {
  this.timeout(60_000);
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  async function answer(protocol: Protocol, text: string, chunkSize: number) {
    harness = await startHarness(protocol, {
      name: 'examples',
      turns: [{ text, chunkSize }, { text: 'Done.' }],
    });
    await harness.conversation.submit('show me');
    const ran = harness.events.filter((event) => event.type === 'tool_result');
    assert.equal(harness.events.at(-1)?.type, 'done');
    return ran;
  }

  for (const [where, text] of EXAMPLES)
    it(`does not run a call in ${where}`, async () => {
      for (const [protocol, chunkSize] of [
        ['openai', 3],
        ['anthropic', 1_000],
      ] as const) {
        const ran = await answer(protocol, text, chunkSize);
        assert.deepEqual(ran, [], `${protocol}: ${JSON.stringify(text)}`);
        // The example reaches the user as text, untouched.
        const shown = harness!.events.map((event) => (event.type === 'text_delta' ? event.text : '')).join('');
        assert.ok(shown.includes('EXAMPLE.md'), `${protocol}: the example is shown`);
        await harness!.close();
        harness = undefined;
      }
    });

  for (const [where, text] of GENUINE)
    it(`runs a call ${where}`, async () => {
      const ran = await answer('openai', text, 4);
      assert.equal(ran.length, 1, JSON.stringify(text));
      assert.ok(ran[0]?.type === 'tool_result' && /No such file: EXAMPLE\.md/.test(ran[0].output));
    });

  it('does not run a call in the reasoning channel of an OpenAI-compatible stream', async () => {
    const chunks = [
      { choices: [{ index: 0, delta: { reasoning_content: `I will call ${JSON_CALL}` } }] },
      { choices: [{ index: 0, delta: { reasoning: `\n${MULTILINE_CALL}` } }] },
      { choices: [{ index: 0, delta: { content: 'The answer is 42.' } }] },
      { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
    ];
    const server = http.createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const chunk of chunks)
        response.write(`data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', ...chunk })}\n\n`);
      response.end('data: [DONE]\n\n');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const client = withTextToolCalls(
        new OpenAiClient({
          provider: 'llamacpp',
          label: 'fake',
          apiKey: 'none',
          baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
        }),
      );
      const { parts, error } = await collectParts(client);
      assert.equal(error, undefined);
      assert.ok(!parts.some((part) => part.type === 'tool_call' || part.type === 'tool_call_invalid'));
    } finally {
      server.close();
    }
  });

  it("does not run a call in Anthropic's thinking", async () => {
    harness = await startHarness('anthropic', {
      name: 'thinking',
      turns: [{ thinking: { text: `Maybe ${JSON_CALL}`, signature: 'sig' }, text: 'The answer is 42.' }],
    });
    await harness.conversation.submit('think');
    assert.ok(!harness.events.some((event) => event.type === 'tool_result'));
    assert.equal(harness.events.at(-1)?.type, 'done');
  });
});

describe('adversarial: reading a large answer for calls stays linear (issue 32, item 10)', function () {
  this.timeout(120_000);

  /** Streams `text` through the recovery in 4 KB deltas; what runs and how long it took. */
  function recover(text: string): { calls: number; text: string; ms: number } {
    const started = Date.now();
    const recovery = new TextToolCallRecovery([{ name: 'read_file' }]);
    const parts: LlmStreamPart[] = [];
    for (let at = 0; at < text.length; at += 4_096) parts.push(...recovery.text(text.slice(at, at + 4_096)));
    parts.push(...recovery.end('end_turn'));
    return {
      calls: parts.filter((part) => part.type === 'tool_call').length,
      text: parts.map((part) => (part.type === 'text_delta' ? part.text : '')).join(''),
      ms: Date.now() - started,
    };
  }

  const SIZE = 400_000;
  const fill = (unit: string) => unit.repeat(Math.ceil(SIZE / unit.length));
  const answers: Array<[string, string, number]> = [
    ['emphasis delimiters', `${fill('*a_ ')}\n\n${JSON_CALL}`, 1],
    ['unmatched backticks of every length', `${fill('`a ``b ```c ')}\n\n${JSON_CALL}`, 1],
    ['closed code spans holding other backticks', `${fill('`` x ` y ``\n')}${JSON_CALL}`, 1],
    ['one code span 400 KB long around a call', `\`${fill('a\n')}${JSON_CALL}\``, 0],
    ['unclosed HTML comments and tags', `${fill('<!-- <a x="1" ')}\n\n${JSON_CALL}`, 0],
    ['a thousand examples in indented code', `${fill(`Example:\n\n    ${JSON_CALL}\n\n`)}${JSON_CALL}`, 1],
    ['examples in code spans over lines', `${fill(`see \`x\n${JSON_CALL}\` ok\n\n`)}${JSON_CALL}`, 1],
    [
      'lists nested 40 deep',
      `${fill(Array.from({ length: 40 }, (_, i) => `${'  '.repeat(i)}- x`).join('\n') + '\n')}\n${JSON_CALL}`,
      1,
    ],
    ['blockquotes 30 deep', `${fill(`${'> '.repeat(30)}x\n`)}\n${JSON_CALL}`, 1],
    ['many <think> openers', `${fill('<think> a </think> ')}\n\n${JSON_CALL}`, 1],
  ];
  for (const [shape, text, calls] of answers)
    it(`a 400 KB answer of ${shape}`, () => {
      const result = recover(text);
      assert.equal(result.calls, calls);
      assert.equal(result.text.length + (calls ? JSON_CALL.length : 0), text.length, 'nothing is lost');
      // Quadratic work on 400 KB takes hours; linear work takes well under a second.
      assert.ok(result.ms < 30_000, `${result.ms} ms`);
    });

  for (const [shape, text] of [
    ['blockquotes 100,000 deep', `${'>'.repeat(100_000)} ${JSON_CALL}`],
    [
      'a list nested 600 deep',
      `${Array.from({ length: 600 }, (_, i) => `${' '.repeat(i * 2)}- x`).join('\n')}\n${JSON_CALL}`,
    ],
  ] as const)
    it(`an answer of ${shape}: no crash, nothing run, nothing lost`, () => {
      const result = recover(text);
      assert.equal(result.calls, 0);
      assert.equal(result.text, text);
    });
});
