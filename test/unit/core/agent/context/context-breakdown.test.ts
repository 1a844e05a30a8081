import assert from 'node:assert/strict';
import {
  CONTEXT_PART_NAMES,
  measureRequest,
  scaleParts,
  sumParts,
  type ContextParts,
} from '../../../../../src/core/agent/context/context-breakdown';
import type { LlmRequest, ModelMessage, ToolDefinition } from '../../../../../src/core/llm/llm-client';

const RULES = '# Project rules\nAlways run the tests before saying you are done.\nUse tabs.';
const MEMORY = '# Memory\n- The user prefers short answers.';
const tools: ToolDefinition[] = [
  { name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object', properties: {} } },
];

function request(messages: ModelMessage[], system = `You are a coding agent.\n\n${RULES}\n\n${MEMORY}\n`): LlmRequest {
  return { model: 'm', system, messages, tools, maxOutputTokens: 100 };
}

const conversation: ModelMessage[] = [
  { role: 'user', content: [{ type: 'text', text: 'Read src/app.ts please.' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading it.' },
      { type: 'tool_call', id: 'c1', name: 'read_file', input: { path: 'src/app.ts' } },
    ],
  },
  {
    role: 'user',
    content: [
      { type: 'tool_result', toolCallId: 'c1', toolName: 'read_file', output: 'x'.repeat(4_000), isError: false },
    ],
  },
];

/** A little generator of repeatable numbers, so the property runs are the same every time. */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state / 2 ** 31;
  };
}

describe('context breakdown', () => {
  it('attributes the system prompt, tools, rules and memory, conversation and tool results', () => {
    const sent = request(conversation);
    const parts = measureRequest(sent, [RULES, MEMORY]);
    const knowledgeChars = RULES.length + MEMORY.length;
    assert.equal(parts.rulesAndMemory, Math.ceil(knowledgeChars / 4));
    assert.equal(
      parts.systemAndTools,
      Math.ceil((sent.system.length - knowledgeChars + JSON.stringify(tools).length) / 4),
    );
    const said =
      'Read src/app.ts please.'.length + 'Reading it.'.length + '{"path":"src/app.ts"}'.length + 'read_file'.length;
    assert.equal(parts.conversation, Math.ceil(said / 4));
    assert.equal(parts.toolResults, Math.ceil((4_000 + 'read_file'.length) / 4));
  });

  it('counts rules and memory only where they are in the prompt sent (a section trimmed, a section missing)', () => {
    const system = `Preset.\n${RULES.trim()}\n`;
    const parts = measureRequest(request([], system), [`\n${RULES}\n\n`, MEMORY]);
    assert.equal(parts.rulesAndMemory, Math.ceil(RULES.length / 4));
    assert.equal(measureRequest(request([], 'Another prompt.'), [RULES, MEMORY]).rulesAndMemory, 0);
    // Sections longer than the prompt, or an empty one, never count more than the prompt has.
    assert.equal(measureRequest(request([], ''), ['', '  ']).rulesAndMemory, 0);
  });

  it('measures an edited message again and an unchanged one from memory', () => {
    const messages = structuredClone(conversation);
    const before = measureRequest(request(messages), []);
    // History edits replace a content array (micro-compaction does): the new size is seen.
    messages[2]!.content = [
      {
        type: 'tool_result',
        toolCallId: 'c1',
        toolName: 'read_file',
        output: '[Previous: used read_file]',
        isError: false,
      },
    ];
    const after = measureRequest(request(messages), []);
    assert.ok(after.toolResults < before.toolResults / 10, `${after.toolResults} after ${before.toolResults}`);
    assert.equal(after.conversation, before.conversation);
  });

  it('scales the parts to the server count so they add up to it exactly, each within a token of its share', () => {
    const next = random(7);
    for (let run = 0; run < 2_000; run++) {
      const parts: ContextParts = {
        systemAndTools: Math.floor(next() * 20_000),
        rulesAndMemory: Math.floor(next() * 3_000),
        conversation: Math.floor(next() * 50_000),
        toolResults: Math.floor(next() * 100_000),
      };
      const estimated = sumParts(parts);
      if (estimated === 0) continue;
      const total = Math.floor(next() * 400_000);
      const scaled = scaleParts(parts, total);
      assert.equal(sumParts(scaled), total, `run ${run}`);
      for (const name of CONTEXT_PART_NAMES) {
        assert.ok(Number.isInteger(scaled[name]) && scaled[name] >= 0);
        assert.ok(Math.abs(scaled[name] - (parts[name] * total) / estimated) < 1, `${name} in run ${run}`);
      }
    }
  });

  it('handles hostile totals: zero, not a number, infinite, negative, beyond exact integers', () => {
    const parts: ContextParts = { systemAndTools: 100, rulesAndMemory: 10, conversation: 50, toolResults: 40 };
    assert.deepEqual(scaleParts(parts, 0), { systemAndTools: 0, rulesAndMemory: 0, conversation: 0, toolResults: 0 });
    for (const total of [Number.NaN, Infinity, -Infinity, -5, Number.MAX_SAFE_INTEGER + 2, JSON.parse('1e400')])
      assert.deepEqual(scaleParts(parts, total), parts, `total ${total}`);
    // The largest exact count still adds up exactly.
    const huge = scaleParts(parts, Number.MAX_SAFE_INTEGER);
    assert.equal(sumParts(huge), Number.MAX_SAFE_INTEGER);
    assert.ok(huge.systemAndTools > huge.conversation && huge.conversation > huge.toolResults);
    // A fraction from a server is rounded to whole tokens.
    assert.equal(sumParts(scaleParts(parts, 200.6)), 201);
  });

  it('puts what the server counted on the instructions when the estimate saw nothing', () => {
    const nothing: ContextParts = { systemAndTools: 0, rulesAndMemory: 0, conversation: 0, toolResults: 0 };
    assert.deepEqual(scaleParts(nothing, 37), {
      systemAndTools: 37,
      rulesAndMemory: 0,
      conversation: 0,
      toolResults: 0,
    });
  });
});
