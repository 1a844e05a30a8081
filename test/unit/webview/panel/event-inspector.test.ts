import assert from 'node:assert/strict';
import type { AgentEvent, AgentEventBody } from '../../../../src/core/events/events';
import { describeEvent, filterEvents } from '../../../../webview/panel/event-inspector';
import { PanelModel } from '../../../../webview/panel/panel-model';

/** Stamps event bodies the way a conversation does. */
function stamper(conversationId = 'c1') {
  let seq = 0;
  return (body: AgentEventBody, agentId = 'lead'): AgentEvent =>
    ({ ...body, conversationId, agentId, seq: seq++, time: 1_700_000_000_000 + seq * 10 }) as AgentEvent;
}

describe('developer panel event inspector', () => {
  it('filters the raw events by type and by text, newest last, at most `limit` of them', () => {
    const event = stamper();
    const model = new PanelModel();
    model.apply([
      event({ type: 'user_message', text: 'Read the README' }),
      ...Array.from({ length: 5 }, (_, index) => event({ type: 'text_delta', text: `part ${index} ` })),
      event({ type: 'tool_call', toolCallId: 't1', toolName: 'read_file', input: { path: 'README.md' } }),
      event({ type: 'done', stopReason: 'end_turn', turns: 1 }),
    ]);
    assert.deepEqual(
      [...model.eventTypes],
      [
        ['user_message', 1],
        ['text_delta', 5],
        ['tool_call', 1],
        ['done', 1],
      ],
    );
    assert.equal(filterEvents(model.events, {}, 100).matched, 8);
    const deltas = filterEvents(model.events, { type: 'text_delta' }, 2);
    assert.equal(deltas.matched, 5);
    assert.deepEqual(
      deltas.shown.map((shown) => (shown.type === 'text_delta' ? shown.text : '')),
      ['part 3 ', 'part 4 '],
    );
    const readme = filterEvents(model.events, { text: 'readme' }, 100);
    assert.deepEqual(
      readme.shown.map((shown) => shown.type),
      ['user_message', 'tool_call'],
    );
    assert.equal(filterEvents(model.events, { type: 'done', text: 'readme' }, 100).matched, 0);
  });

  it('describes every event in one short line', () => {
    const event = stamper();
    const line = describeEvent(event({ type: 'user_message', text: `a\n${'x'.repeat(500)}` }));
    assert.ok(line.length <= 200);
    assert.doesNotMatch(line, /\n/);
    assert.equal(
      describeEvent(event({ type: 'tool_approval_result', toolCallId: 't', approved: true, source: 'session_rule' })),
      'approved (session_rule) t',
    );
  });

  it('says which tool calls were read from the text, and where JSON was repaired', () => {
    const event = stamper();
    const call = event({
      type: 'tool_call',
      toolCallId: 't1',
      toolName: 'read_file',
      input: { path: 'a.ts' },
      fromText: { format: 'tool_call_tag', repaired: true },
    });
    assert.equal(describeEvent(call), 'read_file t1 (call read from the text, JSON repaired)');
    const response = (toolCalls: unknown[]) =>
      describeEvent(
        event({
          type: 'llm_response',
          requestId: 'llm-3',
          provider: 'ollama',
          model: 'qwen',
          payload: { text: '', toolCalls },
          durationMs: 5,
        }),
      );
    const fromText = (repaired: boolean) => ({
      type: 'tool_call',
      name: 'read_file',
      fromText: { format: 'function_tag', repaired, source: '<function=read_file>{}</function>' },
    });
    assert.equal(response([{ type: 'tool_call', name: 'read_file' }]), 'llm-3 ollama qwen');
    assert.equal(
      response([fromText(false), fromText(true)]),
      'llm-3 ollama qwen · 2 calls read from the text, JSON repaired in 1',
    );
  });
});
