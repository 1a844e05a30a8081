/**
 * The developer panel's inspector says what an event's images are (issue 36): type, size, name
 * and the sha256 they are kept under — from the references the events carry, never bytes.
 */
import assert from 'node:assert/strict';
import type { AgentEvent } from '../../../src/core/events/events';
import { describeEvent } from '../../../webview/panel/event-inspector';

const base = { conversationId: 'c', agentId: 'lead', seq: 1, time: 1 };
const shot = { sha256: 'ab'.repeat(32), mediaType: 'image/png', width: 800, height: 600, name: 'x.png' };

describe('developer panel: images of an event', () => {
  it('a prompt and a tool result with images say what each is', () => {
    const prompt = { ...base, type: 'user_message', text: 'why grey?', images: [shot] } as AgentEvent;
    assert.equal(describeEvent(prompt), '"why grey?" + image: x.png png 800×600 sha256 abababababab…');
    const result = {
      ...base,
      type: 'tool_result',
      toolCallId: 't',
      toolName: 'read_file',
      output: 'a.png',
      isError: false,
      durationMs: 12,
      images: [shot, { ...shot, name: undefined, mediaType: 'image/jpeg', sha256: 'cd'.repeat(32) }],
    } as AgentEvent;
    assert.match(
      describeEvent(result, 400),
      /^read_file ok in 12 ms \+ 2 images: x\.png png 800×600 .*, jpeg 800×600 sha256 cdcdcdcdcdcd…$/,
    );
  });

  it('an event without images reads as before', () => {
    assert.equal(describeEvent({ ...base, type: 'user_message', text: 'hi' } as AgentEvent), '"hi"');
  });
});
