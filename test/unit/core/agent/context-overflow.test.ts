import assert from 'node:assert/strict';
import { ContextMeasure } from '../../../../src/core/agent/context/context-measure';
import type { LlmClient } from '../../../../src/core/llm/llm-client';
import { type Harness, startHarness } from './loop-harness';

const OVERFLOW = 'request (9030 tokens) exceeds the available context size (8192 tokens), try increasing it';

describe('a request the server refuses as too long for its window', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('is compacted and sent once more; the answer arrives and nothing is lost from view', async () => {
    harness = await startHarness('openai', {
      name: 'overflow-once',
      turns: [
        { match: 'Summarise the conversation', text: 'Summary: the user wants the report.' },
        { text: 'Here is the report.', fault: { type: 'http_error', status: 400, message: OVERFLOW, times: 1 } },
      ],
    });
    await harness.conversation.submit('write the report');
    const types = harness.events.map((event) => event.type);
    assert.ok(!types.includes('error'), JSON.stringify(harness.events.filter((event) => event.type === 'error')));
    const compact = harness.events.find((event) => event.type === 'compact');
    assert.ok(compact?.type === 'compact' && compact.kind === 'auto');
    assert.equal(harness.events.at(-1)?.type, 'done');
    const answer = harness.events.flatMap((event) => (event.type === 'text_delta' ? [event.text] : [])).join('');
    assert.equal(answer, 'Here is the report.');
    // The retried request carries the summary and the prompt, word for word.
    const retried = JSON.stringify(harness.bodies()[2]);
    assert.match(retried, /Summary: the user wants the report\./);
    assert.match(retried, /write the report/);
  });

  it("a second refusal ends the run with what to do, in the server's words too", async () => {
    harness = await startHarness('openai', {
      name: 'overflow-twice',
      turns: [
        { match: 'Summarise the conversation', text: 'Summary.' },
        { text: 'never', fault: { type: 'http_error', status: 400, message: OVERFLOW, times: 2 } },
      ],
    });
    await harness.conversation.submit('write the report');
    const last = harness.events.at(-1);
    assert.ok(last?.type === 'error');
    assert.equal(last.kind, 'context_overflow');
    assert.match(
      last.message,
      /does not fit the model's context window \(8,192 tokens\) even after compacting it\. Start a new conversation/,
    );
    assert.match(last.message, /exceeds the available context size/);
    assert.equal(harness.calls().length, 3, 'one compaction, one retry: no loop');
  });
});

describe('a window that barely holds the instructions and tools', () => {
  let harness: Harness | undefined;
  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('does not summarise a short conversation before every call (the server says if it does not fit)', async () => {
    harness = await startHarness(
      'openai',
      { name: 'small-window', turns: [{ text: 'One.' }, { text: 'Two.' }] },
      // ~3,000 tokens of instructions in a 4,096-token window: over the 70 % mark before anyone speaks.
      { system: 'You are a careful agent. '.repeat(500), limits: { contextWindow: 4_096 } },
    );
    await harness.conversation.submit('first');
    await harness.conversation.submit('second');
    assert.ok(!harness.events.some((event) => event.type === 'compact'));
    assert.equal(harness.calls().length, 2, 'two answers, no summaries');
  });
});

describe('the context measure', () => {
  const binding = (window: number | undefined): { llm: LlmClient; model: string } => ({
    model: 'local-model',
    llm: {
      provider: 'ollama',
      stream: () => (async function* () {})(),
      listModels: async () => [],
      server: { contextWindow: async () => window, countInputTokens: async () => undefined },
    },
  });

  it('takes the setting over the server, the server over what it knows, and a refusal over all', async () => {
    let setting: number | undefined;
    const measure = new ContextMeasure(() => setting);
    assert.equal(await measure.window(binding(undefined)), 32_768);
    assert.equal(await measure.window(binding(4_096)), 4_096);
    setting = 65_536;
    assert.equal(await measure.window(binding(4_096)), 65_536);
    measure.learnWindow('ollama', 'local-model', 8_192);
    assert.equal(await measure.window(binding(4_096)), 8_192, 'the server refused at 8,192: the setting was wrong');
    setting = undefined;
    assert.equal(await measure.window(binding(4_096)), 4_096, 'the smaller of what the server says and the refusal');
    assert.equal(await measure.window(binding(undefined)), 8_192);
  });

  it('scales estimates by what the server counted, within sane bounds', () => {
    const measure = new ContextMeasure(() => undefined);
    assert.equal(measure.scale('p', 'm', 1_000), 1_000);
    measure.observe('p', 'm', 3_224, 3_734);
    assert.equal(measure.scale('p', 'm', 3_224), 3_734);
    assert.equal(measure.scale('p', 'other', 1_000), 1_000, 'per model');
    measure.observe('p', 'm', 10, 1_000_000);
    assert.equal(measure.scale('p', 'm', 100), 300, 'a nonsense count cannot blind it');
  });
});
