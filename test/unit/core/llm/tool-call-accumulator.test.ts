import assert from 'node:assert/strict';
import { ToolCallAccumulator } from '../../../../src/core/llm/tool-call-accumulator';

describe('ToolCallAccumulator', () => {
  it('joins fragments and parses the arguments once at the end', () => {
    const calls = new ToolCallAccumulator();
    calls.start(0, 'call_1', 'edit_file');
    for (const fragment of ['{"pa', 'th": "a', '.ts", "n": ', '1}']) calls.append(0, fragment);
    assert.deepEqual(calls.finish(0), {
      type: 'tool_call',
      id: 'call_1',
      name: 'edit_file',
      input: { path: 'a.ts', n: 1 },
    });
  });

  it('treats empty arguments as an empty input', () => {
    const calls = new ToolCallAccumulator();
    calls.start('x', 'call_2', 'list_files');
    assert.deepEqual(calls.finish('x'), { type: 'tool_call', id: 'call_2', name: 'list_files', input: {} });
  });

  it('reports unparseable arguments with the raw text and the reason', () => {
    const calls = new ToolCallAccumulator();
    calls.start(0, 'call_3', 'read_file');
    calls.append(0, "{'path': 1}");
    const part = calls.finish(0);
    assert.equal(part?.type, 'tool_call_invalid');
    assert.equal(part?.type === 'tool_call_invalid' && part.rawArguments, "{'path': 1}");
  });

  it('assembles 400 KB of arguments streamed in 8-character deltas', () => {
    const content = 'y'.repeat(400 * 1024);
    const json = JSON.stringify({ path: 'big.txt', content });
    const calls = new ToolCallAccumulator();
    calls.start(0, 'call_big', 'write_file');
    for (let index = 0; index < json.length; index += 8) calls.append(0, json.slice(index, index + 8));
    const part = calls.finish(0);
    assert.equal(part?.type === 'tool_call' && (part.input as { content: string }).content.length, content.length);
  });

  it('finishes every open call in start order', () => {
    const calls = new ToolCallAccumulator();
    calls.start(1, 'b', 'second');
    calls.start(0, 'a', 'first');
    assert.deepEqual(
      calls.finishAll().map((part) => part.type === 'tool_call' && part.id),
      ['b', 'a'],
    );
    assert.equal(calls.has(0), false);
  });
});
