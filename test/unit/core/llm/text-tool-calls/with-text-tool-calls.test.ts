/**
 * The wrapper over real clients, against the fake model server in both wire formats: what comes
 * out of a stream whose text holds a call, and when text is left alone.
 */
import assert from 'node:assert/strict';
import type { LlmStreamPart } from '../../../../../src/core/llm/llm-client';
import { withTextToolCalls } from '../../../../../src/core/llm/text-tool-calls/with-text-tool-calls';
import { FakeModelServer } from '../../../../fixtures/fake-model-server/server';
import type { ScenarioTurnInput } from '../../../../fixtures/fake-model-server/scenario';
import { clientFor, PROTOCOLS } from '../../agent/loop-harness';
import { collectParts, textOf } from '../collect-parts';

const HERMES = 'Reading. <tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call>';

function kinds(parts: LlmStreamPart[]): string[] {
  const out: string[] = [];
  for (const part of parts) {
    const label = part.type === 'finish' ? `finish:${part.stopReason}` : part.type;
    if (label !== out.at(-1) || label !== 'text_delta') out.push(label);
  }
  return out;
}

for (const protocol of PROTOCOLS) {
  describe(`text tool calls over real clients (${protocol} wire format)`, () => {
    let server: FakeModelServer;
    afterEach(() => server?.close());

    async function stream(turn: ScenarioTurnInput, request: Parameters<typeof collectParts>[1] = {}) {
      server = await FakeModelServer.start({ scenario: { name: 'one', turns: [turn] } });
      let count = 0;
      const client = withTextToolCalls(clientFor(protocol, server), { newId: () => `call_text_${++count}` });
      return collectParts(client, request);
    }

    it('yields the call from the text before usage, and finishes as a tool use', async () => {
      const { parts, error } = await stream({ text: HERMES, chunkSize: 5, stopReason: 'end_turn' });
      assert.equal(error, undefined);
      assert.deepEqual(kinds(parts), ['text_delta', 'tool_call', 'usage', 'finish:tool_use']);
      assert.equal(textOf(parts), 'Reading. ');
      const call = parts.find((part) => part.type === 'tool_call');
      assert.deepEqual(call, {
        type: 'tool_call',
        id: 'call_text_1',
        name: 'read_file',
        input: { path: 'a.ts' },
        fromText: {
          format: 'tool_call_tag',
          repaired: false,
          source: '<tool_call>{"name": "read_file", "arguments": {"path": "a.ts"}}</tool_call>',
        },
      });
    });

    it('leaves the text alone when the request offers no tools or forbids them', async () => {
      for (const request of [{ tools: [] }, { toolChoice: 'none' as const }]) {
        const { parts } = await stream({ text: HERMES, chunkSize: 5 }, request);
        await server.close();
        assert.equal(textOf(parts), HERMES);
        assert.ok(!parts.some((part) => part.type === 'tool_call' || part.type === 'tool_call_invalid'));
      }
    });

    it("takes the server's own tool call over a fenced block in the text", async () => {
      const fenced = '```json\n{"name": "read_file", "arguments": {"path": "b.ts"}}\n```';
      const { parts } = await stream({
        text: fenced,
        toolCalls: [{ id: 'call_native', name: 'read_file', arguments: { path: 'a.ts' } }],
      });
      assert.equal(textOf(parts), fenced);
      const calls = parts.filter((part) => part.type === 'tool_call');
      assert.deepEqual(
        calls.map((part) => part.type === 'tool_call' && [part.id, part.fromText]),
        [['call_native', undefined]],
      );
    });
  });
}
