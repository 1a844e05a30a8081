import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fitForSummary } from '../../../../src/core/agent/context/compaction';
import { microCompact } from '../../../../src/core/agent/context/micro-compact';
import { capToolOutput } from '../../../../src/core/agent/context/tool-output';
import type { ModelMessage } from '../../../../src/core/llm/llm-client';
import { FileTranscriptSink } from '../../../../src/node/file-transcript-sink';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { clientFor, PROTOCOLS, startHarness, toolResultsIn, type Harness } from './loop-harness';

function resultMessage(index: number, output: string): ModelMessage {
  return {
    role: 'user',
    content: [{ type: 'tool_result', toolCallId: `c${index}`, toolName: `tool_${index}`, output, isError: false }],
  };
}

describe('micro-compaction', () => {
  it('replaces old long tool results, keeping the last three and short ones', () => {
    const long = 'x'.repeat(150);
    const messages = [
      resultMessage(1, long),
      resultMessage(2, 'short'),
      resultMessage(3, long),
      resultMessage(4, long),
      resultMessage(5, long),
      resultMessage(6, long),
    ];
    const outcome = microCompact(messages);
    const outputs = messages.map((message) =>
      message.content[0]?.type === 'tool_result' ? message.content[0].output : '',
    );
    assert.deepEqual(outputs, ['[Previous: used tool_1]', 'short', '[Previous: used tool_3]', long, long, long]);
    assert.equal(outcome.replaced, 2);
    assert.deepEqual(microCompact(messages), { replaced: 0, charsSaved: 0 }, 'compacting twice changes nothing');
  });
});

describe('tool output cap', () => {
  it('stays within the limit, note included, so capping again changes nothing (a replayed result)', () => {
    for (const max of [1, 20, 120, 500, 3_000, 30_000])
      for (const size of [max, max + 1, max * 3, 1_000_000]) {
        const output = Array.from({ length: size }, (_, index) => String.fromCharCode(97 + (index % 26))).join('');
        const capped = capToolOutput(output, max);
        assert.ok(capped.length <= max, `${size} characters capped at ${max}: ${capped.length}`);
        assert.equal(capToolOutput(capped, max), capped, `capping twice at ${max} (${size})`);
      }
  });

  it('keeps head and tail of a huge single line and says how much is gone', () => {
    const line = `START${'m'.repeat(10_000_000)}END`;
    const capped = capToolOutput(line, 1_000);
    assert.ok(capped.startsWith('START'));
    assert.ok(capped.endsWith('END'));
    assert.ok(capped.length < 1_200);
    assert.match(capped, /characters omitted/);
  });
});

describe('FileTranscriptSink', () => {
  it('writes one JSON message per line and returns the path', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'transcripts-'));
    const file = await new FileTranscriptSink(dir, () => 0).save('conv/../1', [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: 'b' },
    ]);
    assert.equal(path.dirname(file), dir, 'the id cannot escape the folder');
    assert.deepEqual(
      fs
        .readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line)),
      [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
      ],
    );
  });
});

for (const protocol of PROTOCOLS) {
  describe(`compaction in the loop (${protocol})`, () => {
    let harness: Harness;
    afterEach(() => harness?.close());
    const saved: Array<{ id: string; count: number }> = [];
    const transcripts = {
      async save(id: string, messages: readonly unknown[]) {
        saved.push({ id, count: messages.length });
        return `/transcripts/${id}.jsonl`;
      },
    };
    beforeEach(() => {
      saved.length = 0;
    });

    it('micro-compacts old tool results in the requests and says so', async () => {
      const read = (index: number) => ({ toolCalls: [{ id: `r${index}`, name: 'huge_output', arguments: {} }] });
      harness = await startHarness(
        protocol,
        { name: 'micro', turns: [read(1), read(2), read(3), read(4), read(5), { text: 'done' }] },
        { limits: { maxToolOutputChars: 500, contextWindow: 1_000_000 } },
      );
      await harness.conversation.submit('go');
      const results = toolResultsIn(protocol, harness.bodies()[5]!);
      assert.deepEqual(
        results.map((result) => result.content.startsWith('[Previous: used huge_output]')),
        [true, true, false, false, false],
      );
      assert.ok(harness.events.some((event) => event.type === 'compact' && event.kind === 'micro'));
    });

    it('auto-compacts past the threshold: transcript first, then the compaction model, then continues', async () => {
      harness = await startHarness(
        protocol,
        {
          name: 'auto',
          turns: [
            { toolCalls: [{ id: 'h1', name: 'huge_output', arguments: {} }] },
            {
              match: 'Summarise the conversation above',
              text: 'SUMMARY: the user asked for output; a tool produced 3000 x.',
            },
            { text: 'Continuing from the summary.' },
          ],
        },
        { transcripts, limits: { maxToolOutputChars: 3_000, contextWindow: 1_000, compactThreshold: 0.7 } },
      );
      await harness.conversation.submit('go');
      assert.deepEqual(saved, [{ id: 'conv-test', count: 3 }]);
      const compact = harness.events.find((event) => event.type === 'compact' && event.kind === 'auto');
      assert.equal(compact?.type === 'compact' && compact.transcript, '/transcripts/conv-test.jsonl');
      assert.ok(compact?.type === 'compact' && compact.tokensAfter < compact.tokensBefore);
      const afterCompaction = JSON.stringify(harness.bodies()[2]!.messages);
      assert.match(afterCompaction, /SUMMARY: the user asked for output/);
      assert.doesNotMatch(afterCompaction, /xxxxxxxxxx/);
      assert.equal(harness.events.at(-1)?.type, 'done');
    });

    it('compacts with a focus when the agent calls the compact tool', async () => {
      harness = await startHarness(
        protocol,
        {
          name: 'manual',
          turns: [
            { toolCalls: [{ id: 'c', name: 'compact', arguments: { focus: 'the failing test' } }] },
            { match: 'Focus the summary on: the failing test', text: 'SUMMARY focused.' },
            { text: 'Back to work.' },
          ],
        },
        { transcripts },
      );
      await harness.conversation.submit('go');
      assert.equal(saved.length, 1);
      assert.ok(harness.events.some((event) => event.type === 'compact' && event.kind === 'manual'));
      assert.equal(harness.conversation.messages[0]?.role, 'user');
      assert.match(JSON.stringify(harness.conversation.messages[0]), /SUMMARY focused/);
    });

    it('names the traces of every model it uses apart: main and compaction never share a request id', async () => {
      const server = await FakeModelServer.start({
        scenario: { name: 'summariser', turns: [{ text: 'SUMMARY: one exchange.' }] },
      });
      try {
        harness = await startHarness(
          protocol,
          { name: 'main', turns: [{ text: 'First answer.' }, { text: 'Second answer.' }] },
          {
            compactionModel: { llm: clientFor(protocol, server), model: 'summariser' },
            tracing: { enabled: () => true },
          },
        );
        await harness.conversation.submit('first');
        await harness.conversation.compact();
        await harness.conversation.submit('second');
        const requests = harness.events.filter((event) => event.type === 'llm_request');
        const main = requests[0]?.type === 'llm_request' ? requests[0].model : '';
        assert.deepEqual(
          requests.map((event) => event.type === 'llm_request' && event.model),
          [main, 'summariser', main],
        );
        const ids = requests.map((event) => event.type === 'llm_request' && event.requestId);
        assert.equal(new Set(ids).size, 3, ids.join(', '));
        const responses = harness.events.filter((event) => event.type === 'llm_response');
        assert.deepEqual(
          responses.map((event) => event.type === 'llm_response' && event.requestId),
          ids,
          'each response pairs with its request',
        );
      } finally {
        await server.close();
      }
    });

    it('compacts on command between prompts, keeping the conversation usable', async () => {
      harness = await startHarness(
        protocol,
        {
          name: 'command',
          turns: [
            { text: 'First answer.' },
            { match: 'Summarise', text: 'SUMMARY: one exchange.' },
            { match: 'next', text: 'Second answer.' },
          ],
        },
        { transcripts },
      );
      await harness.conversation.submit('first');
      await harness.conversation.compact();
      assert.equal(harness.conversation.messages.length, 1);
      await harness.conversation.submit('next');
      assert.match(JSON.stringify(harness.bodies()[2]!.messages), /SUMMARY: one exchange.*next/s);
    });
  });
}

describe('the history a summariser reads', () => {
  it('fits its window: the beginning and the end are kept, what was left out is said', () => {
    const text = `GOAL: fix the build\n${'middle '.repeat(5_000)}\nLAST: tests pass`;
    const fitted = fitForSummary(text, 4_000);
    assert.ok(fitted.length < 4_100);
    assert.match(fitted, /^GOAL: fix the build/);
    assert.match(fitted, /LAST: tests pass$/);
    assert.match(fitted, /\[… 31,03\d characters of the conversation left out …\]/);
    assert.equal(fitForSummary('short', 4_000), 'short');
  });
});
