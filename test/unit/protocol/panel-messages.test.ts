import assert from 'node:assert/strict';
import { hostToPanelSchema, parsePanelMessage } from '../../../src/protocol/messages';

describe('developer panel → host protocol', () => {
  it('accepts the ready handshake and each switch', () => {
    assert.deepEqual(parsePanelMessage({ type: 'panel_ready' }), { type: 'panel_ready' });
    for (const toggle of ['auto_approve', 'plan_mode', 'tracing'] as const) {
      assert.deepEqual(parsePanelMessage({ type: 'toggle_set', toggle, on: true }), {
        type: 'toggle_set',
        toggle,
        on: true,
      });
    }
  });

  it('ignores malformed messages', () => {
    for (const raw of [
      null,
      undefined,
      7,
      'panel_ready',
      [],
      {},
      { type: 'webview_ready' },
      { type: 'prompt_submit', requestId: 'r', text: 'the chat protocol is not the panel one' },
      { type: 'toggle_set', toggle: 'plan_mode' },
      { type: 'toggle_set', toggle: 'plan_mode', on: 'yes' },
      { type: 'toggle_set', toggle: 'plan_mode', on: 1 },
    ]) {
      assert.equal(parsePanelMessage(raw), undefined, JSON.stringify(raw));
    }
  });

  it('accepts the teams switch and ignores switches it does not know', () => {
    assert.deepEqual(parsePanelMessage({ type: 'toggle_set', toggle: 'teams', on: true }), {
      type: 'toggle_set',
      toggle: 'teams',
      on: true,
    });
    assert.equal(parsePanelMessage({ type: 'toggle_set', toggle: 'run_shell', on: true }), undefined);
  });

  it('ignores oversized messages', () => {
    assert.equal(parsePanelMessage({ type: 'toggle_set', toggle: 'x'.repeat(1_000_000), on: true }), undefined);
    assert.equal(parsePanelMessage({ type: 'panel_ready', padding: 'x'.repeat(1_000_000) }), undefined);
  });

  it('ignores messages carrying __proto__ or any unexpected key', () => {
    const polluted = JSON.parse('{"type":"toggle_set","toggle":"tracing","on":true,"__proto__":{"polluted":true}}');
    assert.equal(parsePanelMessage(polluted), undefined);
    assert.equal(parsePanelMessage({ type: 'panel_ready', extra: 1 }), undefined);
    assert.equal(parsePanelMessage({ type: 'toggle_set', toggle: 'tracing', on: true, source: 'x' }), undefined);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

describe('host → developer panel protocol', () => {
  const event = { conversationId: 'c1', agentId: 'lead', seq: 0, time: 1, type: 'user_message', text: 'hi' };

  it('accepts event batches, resets and the switches as they are', () => {
    assert.ok(hostToPanelSchema.safeParse({ type: 'agent_events', events: [event] }).success);
    assert.ok(hostToPanelSchema.safeParse({ type: 'panel_reset' }).success);
    assert.ok(
      hostToPanelSchema.safeParse({
        type: 'toggles_change',
        toggles: { autoApprove: false, planMode: true, tracing: false, teams: false },
      }).success,
    );
  });

  it('rejects switches with a missing or extra field, and events that are not agent events', () => {
    assert.equal(
      hostToPanelSchema.safeParse({ type: 'toggles_change', toggles: { autoApprove: false, planMode: true } }).success,
      false,
    );
    assert.equal(
      hostToPanelSchema.safeParse({
        type: 'toggles_change',
        toggles: { autoApprove: false, planMode: true, tracing: false, teams: true, bash: true },
      }).success,
      false,
    );
    assert.equal(
      hostToPanelSchema.safeParse({ type: 'agent_events', events: [{ ...event, type: 'nope' }] }).success,
      false,
    );
  });
});
