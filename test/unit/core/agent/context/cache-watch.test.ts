import assert from 'node:assert/strict';
import { CACHE_BREAK_RULES, CacheWatch, type CallShape } from '../../../../../src/core/agent/context/cache-watch';
import type { ModelMessage, TokenUsage, ToolDefinition } from '../../../../../src/core/llm/llm-client';

const tools: ToolDefinition[] = [{ name: 'read_file', description: 'Read a file.', inputSchema: { type: 'object' } }];

function usage(input: number, cacheRead = 0, cacheWrite = 0): TokenUsage {
  return { inputTokens: input, outputTokens: 50, cacheReadTokens: cacheRead, cacheWriteTokens: cacheWrite };
}

/** A conversation that grows by one exchange per call, as the agent loop's history does. */
class Calls {
  readonly history: ModelMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'Fix the bug.' }] }];
  shape: Omit<CallShape, 'messages' | 'startedAt'> = {
    provider: 'anthropic',
    model: 'claude-sonnet-4-5',
    system: 'You are a coding agent.',
    tools,
  };
  time = 1_000_000;

  next(change: Partial<Omit<CallShape, 'messages'>> = {}): CallShape {
    this.history.push(
      { role: 'assistant', content: [{ type: 'text', text: `step ${this.history.length}` }] },
      { role: 'user', content: [{ type: 'text', text: 'go on' }] },
    );
    this.time += 10_000;
    return { ...this.shape, messages: this.history.slice(), startedAt: this.time, ...change };
  }
}

describe('prompt cache breaks', () => {
  let watch: CacheWatch;
  let calls: Calls;
  beforeEach(() => {
    watch = new CacheWatch();
    calls = new Calls();
  });

  it('reports a call that read almost nothing from the cache after one that read most of its input', () => {
    assert.equal(watch.observe('main', calls.next(), usage(500, 0, 9_500)), undefined, 'the first call writes it');
    assert.equal(watch.observe('main', calls.next(), usage(300, 9_500, 200)), undefined, 'the second reads it');
    const broke = watch.observe('main', calls.next(), usage(9_900, 100, 0));
    assert.ok(broke);
    assert.equal(broke.previousShare, 9_500 / 10_000);
    assert.equal(broke.share, 100 / 10_000);
    // What the previous call left in the cache (read + written) that this one did not read.
    assert.equal(broke.missedTokens, 9_700 - 100);
    assert.deepEqual(broke.reasons, [], 'nothing OpenAgent sent changed: the provider dropped it');
    assert.equal(broke.secondsSinceLastCall, 10);
  });

  it('holds to its thresholds: a previous share of one half, a fall below half of it, 1,024 tokens missed', () => {
    const { minPreviousShare, dropFactor, minMissedTokens } = CACHE_BREAK_RULES;
    assert.deepEqual([minPreviousShare, dropFactor, minMissedTokens], [0.5, 0.5, 1_024]);
    const pairs: Array<[TokenUsage, TokenUsage, boolean, string]> = [
      [usage(5_000, 5_000), usage(8_000, 2_000), true, 'share 0.5 then 0.2'],
      [usage(5_100, 4_900), usage(9_000, 1_000), false, 'share 0.49 before: never a cache to lose'],
      [usage(5_000, 5_000), usage(7_500, 2_500), false, 'share 0.25 is exactly half of 0.5: not below it'],
      [usage(5_000, 5_000), usage(7_600, 2_400), true, 'share 0.24: below half'],
      [usage(100, 1_900), usage(1_900, 100), true, '1,800 tokens missed'],
      [usage(100, 1_000), usage(1_000, 100), false, 'only 900 tokens missed: too small to matter'],
      [usage(1_000, 9_000), usage(10_000, 9_000), false, 'the same tokens read again, more added: no break'],
    ];
    for (const [first, second, breaks, why] of pairs) {
      const local = new CacheWatch();
      const shapes = new Calls();
      local.observe('main', shapes.next(), first);
      assert.equal(local.observe('main', shapes.next(), second) !== undefined, breaks, why);
    }
  });

  it('names what changed: the model, the system prompt, the tools, earlier messages, a pause past the cache life', () => {
    const cases: Array<[string, (shape: CallShape) => CallShape]> = [
      ['model_switched', (shape) => ({ ...shape, model: 'claude-opus-4-5' })],
      ['model_switched', (shape) => ({ ...shape, provider: 'openai' })],
      ['system_prompt_changed', (shape) => ({ ...shape, system: `${shape.system}\nMemory: tabs.` })],
      ['tools_changed', (shape) => ({ ...shape, tools: [...tools, { ...tools[0]!, name: 'write_file' }] })],
      [
        'history_rewritten',
        (shape) => {
          // Micro-compaction replaces an old message's content.
          calls.history[1]!.content = [{ type: 'text', text: '[Previous: used read_file]' }];
          return { ...shape, messages: calls.history.slice() };
        },
      ],
      ['cache_expired', (shape) => ({ ...shape, startedAt: shape.startedAt + CACHE_BREAK_RULES.ttlMs })],
    ];
    for (const [reason, change] of cases) {
      watch = new CacheWatch();
      calls = new Calls();
      watch.observe('main', calls.next(), usage(200, 9_800));
      const broke = watch.observe('main', change(calls.next()), usage(9_800, 200));
      assert.deepEqual(broke?.reasons, [reason], reason);
    }
    // The same tool definitions in a new array (a new prompt's offer) are no change.
    watch = new CacheWatch();
    watch.observe('main', calls.next(), usage(200, 9_800));
    assert.deepEqual(
      watch.observe('main', { ...calls.next(), tools: structuredClone(tools) }, usage(9_800, 200))?.reasons,
      [],
    );
  });

  it('says nothing for zero tokens or missing usage, and compares the next call with nothing', () => {
    watch.observe('main', calls.next(), usage(200, 9_800));
    assert.equal(watch.observe('main', calls.next(), usage(0, 0, 0)), undefined);
    assert.equal(watch.observe('main', calls.next(), usage(9_800, 200)), undefined, 'no baseline after zeros');
    watch.observe('main', calls.next(), usage(200, 9_800));
    assert.equal(watch.observe('main', calls.next(), undefined), undefined, 'the server reported no usage');
    assert.equal(watch.observe('main', calls.next(), usage(9_800, 200)), undefined, 'no baseline after no usage');
  });

  it('never warns about a provider that never reports the cache', () => {
    for (let call = 0; call < 50; call++)
      assert.equal(watch.observe('main', calls.next(), usage(1_000 + ((call * 7_919) % 90_000))), undefined);
  });

  it('ignores counts no server can mean: infinite, beyond exact integers, negative, sums that overflow', () => {
    const hostile: TokenUsage[] = [
      usage(JSON.parse('1e400') as number, 100),
      usage(100, Number.MAX_SAFE_INTEGER + 2),
      usage(-9_000, 9_000),
      usage(Number.NaN, 9_000),
      usage(Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER),
    ];
    for (const bad of hostile) {
      watch = new CacheWatch();
      calls = new Calls();
      watch.observe('main', calls.next(), usage(200, 9_800));
      assert.equal(watch.observe('main', calls.next(), bad), undefined, JSON.stringify(bad));
      assert.equal(watch.observe('main', calls.next(), usage(9_800, 200)), undefined, 'and leaves no baseline');
    }
    // Huge but believable counts work.
    watch = new CacheWatch();
    watch.observe('main', calls.next(), usage(1e9, 9e12));
    const broke = watch.observe('main', calls.next(), usage(9e12, 1e9));
    assert.ok(broke && broke.missedTokens > 8e12);
  });

  it('starts afresh for another conversation on the thread (a new sub-agent, a compacted history)', () => {
    watch.observe('subagent', calls.next(), usage(200, 9_800));
    const other = new Calls();
    assert.equal(watch.observe('subagent', other.next(), usage(9_800, 200)), undefined);
    // Threads are apart: the main thread's calls are not compared with a sub-agent's.
    watch.observe('main', calls.next(), usage(200, 9_800));
    assert.equal(watch.observe('subagent', other.next(), usage(200, 9_800)), undefined);
  });

  it('expects the cache to hold what the last call left in it, unless what empties it changed', () => {
    watch.observe('main', calls.next(), usage(500, 8_000, 1_500));
    const next = calls.next();
    assert.equal(watch.expectedCachedTokens('main', next, 12_000), 9_500);
    assert.equal(watch.expectedCachedTokens('main', next, 4_000), 4_000, 'never more than the call sends');
    assert.equal(watch.expectedCachedTokens('main', { ...next, model: 'claude-opus-4-5' }, 12_000), 0);
    assert.equal(watch.expectedCachedTokens('main', { ...next, startedAt: next.startedAt + 400_000 }, 12_000), 0);
    assert.equal(watch.expectedCachedTokens('subagent', next, 12_000), 0, 'a thread with no calls yet');
    // A provider that reads but never writes (OpenAI caches the whole prompt by itself).
    watch.observe('main', calls.next(), usage(2_000, 8_000, 0));
    assert.equal(watch.expectedCachedTokens('main', calls.next(), 12_000), 10_000);
  });
});
