/**
 * The rule for reading tool calls out of an answer's text, fed as a stream in deltas of every
 * size: what becomes a call, what stays text, what becomes a message for the model — and that
 * text is held back only while it may still turn out to be a call.
 */
import assert from 'node:assert/strict';
import type { LlmStreamPart, StopReason } from '../../../../../src/core/llm/llm-client';
import { TextToolCallRecovery } from '../../../../../src/core/llm/text-tool-calls/text-tool-call-recovery';

const OFFERED = [
  {
    name: 'read_file',
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, offset: { type: 'integer' } } },
  },
  {
    name: 'write_file',
    inputSchema: { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } } },
  },
];

type Summary =
  | { text: string }
  | { call: string; input: unknown; format: string | undefined; repaired: boolean | undefined }
  | { invalid: string; error: string };

/** Feeds `text` in deltas of `size` characters and summarises every part, text joined. */
function recover(text: string, size: number, stopReason: StopReason = 'end_turn'): Summary[] {
  let count = 0;
  const recovery = new TextToolCallRecovery(OFFERED, () => `call_${++count}`);
  const parts: LlmStreamPart[] = [];
  for (let index = 0; index < text.length; index += size) parts.push(...recovery.text(text.slice(index, index + size)));
  parts.push(...recovery.end(stopReason));
  const summary: Summary[] = [];
  for (const part of parts) {
    const previous = summary.at(-1);
    if (part.type === 'text_delta') {
      if (previous && 'text' in previous) previous.text += part.text;
      else summary.push({ text: part.text });
    } else if (part.type === 'tool_call') {
      summary.push({
        call: part.name,
        input: part.input,
        format: part.fromText?.format,
        repaired: part.fromText?.repaired,
      });
    } else if (part.type === 'tool_call_invalid') {
      summary.push({ invalid: part.name, error: part.error });
    }
  }
  return summary;
}

/** Every delta size gives the same result. */
function recoverAll(text: string, stopReason?: StopReason): Summary[] {
  const whole = recover(text, text.length || 1, stopReason);
  for (const size of [1, 2, 3, 7, 16]) assert.deepEqual(recover(text, size, stopReason), whole, `deltas of ${size}`);
  return whole;
}

const readCall = (format: string, repaired = false) => ({
  call: 'read_file',
  input: { path: 'a.ts' },
  format,
  repaired,
});

describe('reading tool calls out of the text', () => {
  it('reads a Hermes/Qwen <tool_call> and keeps the text around it', () => {
    assert.deepEqual(
      recoverAll('Let me look.\n<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n</tool_call>\nOK'),
      [{ text: 'Let me look.\n' }, readCall('tool_call_tag'), { text: '\nOK' }],
    );
  });

  it('reads several <tool_call> blocks in one answer as several calls', () => {
    const one = '<tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call>';
    assert.deepEqual(recoverAll(`${one}\n${one}`), [
      readCall('tool_call_tag'),
      { text: '\n' },
      readCall('tool_call_tag'),
    ]);
  });

  it('accepts "parameters" for "arguments", and arguments given as a JSON string', () => {
    assert.deepEqual(recoverAll('<tool_call>{"name": "read_file", "parameters": {"path": "a.ts"}}</tool_call>'), [
      readCall('tool_call_tag'),
    ]);
    assert.deepEqual(
      recoverAll('<tool_call>{"name": "read_file", "arguments": "{\\"path\\": \\"a.ts\\"}"}</tool_call>'),
      [readCall('tool_call_tag')],
    );
  });

  it('reads a Llama-style <function=name> call', () => {
    assert.deepEqual(recoverAll('Reading <function=read_file>{"path": "a.ts"}</function>'), [
      { text: 'Reading ' },
      readCall('function_tag'),
    ]);
  });

  it('reads a fenced JSON call that ends the answer, trailing whitespace and all', () => {
    assert.deepEqual(
      recoverAll('I will read it.\n\n```json\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n```\n\n'),
      [{ text: 'I will read it.\n\n' }, readCall('fenced_json')],
    );
    assert.deepEqual(recoverAll('```\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n```'), [
      readCall('fenced_json'),
    ]);
  });

  it("reads Qwen3-Coder's <parameter=…> arguments, typed by the tool's schema", () => {
    assert.deepEqual(
      recoverAll(
        '<tool_call>\n<function=read_file>\n<parameter=path>\na.ts\n</parameter>\n' +
          '<parameter=offset>\n3\n</parameter>\n</function>\n</tool_call>',
      ),
      [{ call: 'read_file', input: { path: 'a.ts', offset: 3 }, format: 'tool_call_tag', repaired: false }],
    );
    // Alone, and with text values that look like numbers or hold blank lines and markup.
    assert.deepEqual(
      recoverAll(
        '<function=write_file>\n<parameter=path>\n42\n</parameter>\n' +
          '<parameter=content>\n<p>one</p>\n\ntwo\n</parameter>\n</function>',
      ),
      [
        {
          call: 'write_file',
          input: { path: '42', content: '<p>one</p>\n\ntwo' },
          format: 'function_tag',
          repaired: false,
        },
      ],
    );
  });

  it('keeps a parameter named __proto__ an ordinary property', () => {
    const [part] = recoverAll('<function=read_file><parameter=__proto__>{"polluted": true}</parameter></function>');
    assert.ok(part && 'call' in part);
    assert.ok(Object.hasOwn(part.input as object, '__proto__'));
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
  });

  it('refuses <parameter=…> arguments with stray text between them', () => {
    const [part] = recoverAll('<function=read_file><parameter=path>a.ts</parameter> and b.ts</function>');
    assert.ok(part && 'invalid' in part);
    assert.match(part.error, /text outside the <parameter=…> blocks: and b\.ts/);
  });

  it('repairs single quotes and trailing commas, and says it did', () => {
    assert.deepEqual(recoverAll("<tool_call>{'name': 'read_file', 'arguments': {'path': 'a.ts',},}</tool_call>"), [
      readCall('tool_call_tag', true),
    ]);
    assert.deepEqual(recoverAll('<function=read_file>{path: "a.ts"}</function>'), [readCall('function_tag', true)]);
  });

  it('reads a <tool_call> the answer ended without closing, when its JSON is whole', () => {
    assert.deepEqual(recoverAll('<tool_call>\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n'), [
      readCall('tool_call_tag'),
    ]);
  });

  it('never repairs a call the answer ended inside: cut-off content must not be written', () => {
    const [part] = recoverAll('<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "abc');
    assert.ok(part && 'invalid' in part);
    assert.equal(part.invalid, 'write_file');
    assert.match(part.error, /could not be read \(the answer ended before the closing tag\)/);
  });

  it('says a call was cut off by the output limit', () => {
    const [part] = recoverAll(
      '<tool_call>{"name": "write_file", "arguments": {"path": "a", "content": "ab',
      'max_tokens',
    );
    assert.ok(part && 'invalid' in part);
    assert.match(part.error, /cut off by the output limit/);
  });

  it('turns an unknown tool, an empty block and unreadable JSON into messages for the model', () => {
    const messages = [
      '<tool_call>{"name": "readFile", "arguments": {"path": "a.ts"}}</tool_call>',
      '<function=delete_everything>{}</function>',
      '<tool_call></tool_call>',
      '<tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}} plus words</tool_call>',
      '<tool_call>{"arguments": {"path": "a.ts"}}</tool_call>',
      '<tool_call>{"name": "read_file", "arguments": [1, 2]}</tool_call>',
    ].map((text) => recoverAll(text));
    const errors = messages.map((parts) => {
      assert.equal(parts.length, 1);
      const [part] = parts;
      assert.ok(part && 'invalid' in part);
      assert.match(part.error, /Nothing was run\. To call a tool, use the tool-calling interface/);
      return part.error;
    });
    assert.match(errors[0]!, /no tool named "readFile"\. Available tools: read_file, write_file\./);
    assert.match(errors[1]!, /no tool named "delete_everything"/);
    assert.match(errors[2]!, /the <tool_call> block is empty/);
    assert.match(errors[3]!, /the JSON in <tool_call> could not be read/);
    assert.match(errors[4]!, /has no "name"/);
    assert.match(errors[5]!, /"arguments" in <tool_call> are not a JSON object/);
  });

  it('gives a broken call a name every API accepts back', () => {
    const [part] = recoverAll('<tool_call>{"name": "read file!", "arguments": {}}</tool_call>');
    assert.ok(part && 'invalid' in part);
    assert.equal(part.invalid, 'unknown_tool');
  });

  it('leaves calls shown in code as text', () => {
    for (const text of [
      'Write `<tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call>` to call it.',
      'Like ``<function=read_file>{"path": "a.ts"}</function>``.',
      '```xml\n<tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call>\n```\n',
      '~~~\n<function=read_file>{"path": "a.ts"}</function>\n~~~',
      '```json\n<tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call>\n```',
    ])
      assert.deepEqual(recoverAll(text), [{ text }], text);
  });

  it('takes a fenced block for an example when prose follows it or introduces it as one', () => {
    const call = '```json\n{"name": "read_file", "arguments": {"path": "a.ts"}}\n```\n';
    for (const text of [
      `${call}This reads the file.`,
      `For example:\n\n${call}`,
      `Here is an example call:\n${call}`,
      `A call looks like this, e.g.\n${call}`,
    ])
      assert.deepEqual(recoverAll(text), [{ text }], text);
  });

  it('leaves JSON that is not shaped like a call as text', () => {
    for (const text of [
      '```json\n{"name": "my-package", "version": "1.0.0"}\n```',
      '```json\n{"name": "read_file", "arguments": {"path": "a.ts"}, "why": "to see"}\n```',
      '```json\n[{"name": "read_file", "arguments": {}}]\n```',
      '```\n{"name": "read_file", "arguments": "path=a.ts"}\n```',
    ])
      assert.deepEqual(recoverAll(text), [{ text }], text);
  });

  it('refuses to guess between two fenced blocks shaped like calls', () => {
    const block = (path: string) => `\`\`\`json\n{"name": "read_file", "arguments": {"path": "${path}"}}\n\`\`\`\n`;
    const parts = recoverAll(`Either\n${block('a.ts')}or\n${block('b.ts')}`);
    assert.deepEqual(parts[0], { text: `Either\n${block('a.ts')}or\n` });
    const last = parts[1];
    assert.ok(last && 'invalid' in last);
    assert.match(last.error, /2 JSON blocks shaped like tool calls/);
  });

  it('takes no fenced block for a call when the answer already made one', () => {
    const fenced = '```json\n{"name": "read_file", "arguments": {"path": "b.ts"}}\n```';
    assert.deepEqual(recoverAll(`<function=read_file>{"path": "a.ts"}</function>\n${fenced}`), [
      readCall('function_tag'),
      { text: `\n${fenced}` },
    ]);
  });

  it('passes text that only looks like the start of a call', () => {
    for (const text of [
      'a < b, <div> and <tool_calls> and <function> and <function=> here',
      '<tool_cal',
      'x <function=read_file',
      '```json',
      '``not a fence`` and ```inline```',
      '```python\nprint("<tool_call>")\n```\n```json\n{"a": 1}\n```\nok',
    ])
      assert.deepEqual(recoverAll(text), [{ text }], text);
  });

  it('releases text at once, holding back only what may still be a call', () => {
    const recovery = new TextToolCallRecovery(OFFERED);
    const texts = (parts: LlmStreamPart[]) => parts.map((part) => (part.type === 'text_delta' ? part.text : part.type));
    assert.deepEqual(texts(recovery.text('Hello <b>world</b>. ')), ['Hello <b>world</b>. ']);
    assert.deepEqual(texts(recovery.text('\n```python\nx = 1\n')), ['\n```python\nx = 1\n']);
    assert.deepEqual(texts(recovery.text('```\n```json\n["a"')), ['```\n```json\n["a"']);
    assert.deepEqual(texts(recovery.text(']\n```\nNow <tool')), [']\n```\nNow ']);
    assert.deepEqual(texts(recovery.text('_call>{"name": "read_file", ')), []);
    // Whether the span is code may hang on what follows (a code span's closing backticks):
    // from here on the answer is read whole, when it ends.
    assert.deepEqual(texts(recovery.text('"arguments": {"path": "a.ts"}}</tool_call> done')), []);
    assert.deepEqual(texts(recovery.end('end_turn')), ['tool_call', ' done']);
  });

  it('gives back what it held, as text, when the answer fails midway', () => {
    const recovery = new TextToolCallRecovery(OFFERED);
    assert.deepEqual(recovery.text('Reading <tool_call>{"name": "read_fi'), [{ type: 'text_delta', text: 'Reading ' }]);
    assert.deepEqual(recovery.abandon(), [{ type: 'text_delta', text: '<tool_call>{"name": "read_fi' }]);
  });

  it('reads a 400 KB argument streamed in 8-character deltas', () => {
    const content = 'x'.repeat(400_000);
    const text = `<tool_call>{"name": "write_file", "arguments": {"path": "big.txt", "content": "${content}"}}</tool_call>`;
    const parts = recover(text, 8);
    assert.equal(parts.length, 1);
    const [part] = parts;
    assert.ok(part && 'call' in part);
    assert.deepEqual(part.input, { path: 'big.txt', content });
  });

  it('handles CRLF line endings in fences', () => {
    assert.deepEqual(
      recoverAll('Reading.\r\n```json\r\n{"name": "read_file", "arguments": {"path": "a.ts"}}\r\n```\r\n'),
      [{ text: 'Reading.\r\n' }, readCall('fenced_json')],
    );
  });
});
