/**
 * Class 6 of the adversarial suite (part): hostile sizes and shapes. Arguments nested thousands
 * deep or tens of megabytes long get a clear error the model can read, the turn goes on and
 * nothing is lost; policy patterns that make backtracking regexes explode are matched at once.
 */
import assert from 'node:assert/strict';
import { MAX_ARGUMENT_DEPTH, nestingDepth, ToolCallAccumulator } from '../../src/core/llm/tool-call-accumulator';
import { matchesPattern } from '../../src/core/policy/rule-patterns';
import { type Harness, startHarness } from '../unit/core/agent/loop-harness';

function nested(depth: number): unknown {
  let value: unknown = 'bottom';
  for (let level = 0; level < depth; level++) value = level % 2 ? [value] : { deeper: value };
  return value;
}

describe('adversarial: hostile sizes and shapes', function () {
  this.timeout(60_000);
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  for (const depth of [MAX_ARGUMENT_DEPTH + 1, 3_000]) {
    it(`arguments nested ${depth} deep: the model is told, the turn goes on, nothing is lost`, async () => {
      harness = await startHarness('openai', {
        name: 'deep',
        turns: [
          {
            toolCalls: [
              { id: 'call_deep', name: 'read_file', arguments: { path: 'src/app.ts', extra: nested(depth) } },
            ],
          },
          { text: 'Recovered.' },
        ],
      });
      await harness.conversation.submit('read it');
      const result = harness.events.find((event) => event.type === 'tool_result');
      assert.ok(result?.type === 'tool_result' && result.isError);
      assert.match(result.output, new RegExp(`nested more than ${MAX_ARGUMENT_DEPTH} levels deep`));
      assert.equal(harness.events.at(-1)?.type, 'done');
      assert.ok(!harness.events.some((event) => event.type === 'error'));
      assert.match(JSON.stringify(harness.bodies()[1]), /nested more than/);
    });
  }

  it('arguments of 12 million characters: refused without keeping them, the turn goes on', async () => {
    harness = await startHarness('openai', {
      name: 'huge',
      turns: [
        {
          toolCalls: [
            { id: 'call_huge', name: 'write_file', arguments: { path: 'big.txt', content: 'x'.repeat(12_000_000) } },
          ],
          chunkSize: 1_000_000,
        },
        { text: 'Recovered.' },
      ],
    });
    await harness.conversation.submit('write it');
    const result = harness.events.find((event) => event.type === 'tool_result');
    assert.ok(result?.type === 'tool_result' && result.isError);
    assert.match(result.output, /12\.0 million characters; at most 1 million are accepted/);
    assert.equal(harness.events.at(-1)?.type, 'done');
    // The history sent back does not carry the 12 MB.
    assert.ok(JSON.stringify(harness.bodies()[1]).length < 1_000_000);
  });

  it('900,000 characters of broken JSON: the chat, panel and store get a preview, the history nothing', async () => {
    harness = await startHarness('openai', {
      name: 'broken',
      turns: [
        {
          toolCalls: [
            { id: 'call_broken', name: 'write_file', rawArguments: `{"path": "a", "content": "${'z'.repeat(900_000)}` },
          ],
          // In a few large parts: a server sending far more parts than the tokens it was asked
          // for is ended as a broken stream (the idle watchdog's amount cap, attack-watchdog).
          chunkSize: 100_000,
        },
        { text: 'Recovered.' },
      ],
    });
    await harness.conversation.submit('write it');
    const call = harness.events.find((event) => event.type === 'tool_call');
    assert.ok(call?.type === 'tool_call' && typeof call.input === 'string');
    assert.ok(call.input.length < 2_100, `the event carries a preview (${call.input.length} characters)`);
    assert.match(call.input, /more characters\]$/);
    assert.equal(harness.events.at(-1)?.type, 'done');
    assert.ok(JSON.stringify(harness.bodies()[1]).length < 100_000, 'the history sent back does not carry it');
  });

  it('measures nesting without recursion, stopping early', () => {
    assert.equal(nestingDepth({ a: [1, { b: 2 }] }, 64), 3);
    assert.equal(nestingDepth('flat', 64), 0);
    assert.equal(nestingDepth(nested(100_000), 64), 65);
  });

  it('keeps nothing past the size cap while a call streams', () => {
    const calls = new ToolCallAccumulator();
    calls.start(0, 'c', 'write_file');
    for (let index = 0; index < 12; index++) calls.append(0, 'y'.repeat(1_000_000));
    const part = calls.finish(0);
    assert.ok(part?.type === 'tool_call_invalid');
    assert.equal(part.rawArguments, '');
  });

  const EXPLOSIVE: Array<[string, string, boolean]> = [
    ['*a*a*a*a*a*a*a*a*a*b', 'a'.repeat(90), false],
    ['*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*c', 'a'.repeat(5_000), false],
    ['*'.repeat(500) + 'z', 'y'.repeat(20_000), false],
    ['git *', 'git status', true],
    ['*status', 'git status', true],
    ['git*st*us', 'git status', true],
    ['', '', true],
    ['*', '', true],
    ['a', '', false],
  ];
  for (const [pattern, value, expected] of EXPLOSIVE) {
    it(`matches "${pattern.slice(0, 30)}" against ${value.length} characters at once (${expected})`, () => {
      assert.equal(matchesPattern(pattern, value), expected);
    });
  }
});
