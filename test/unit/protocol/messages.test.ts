import assert from 'node:assert/strict';
import { MAX_PROMPT_CHARS, parseWebviewMessage } from '../../../src/protocol/messages';

describe('webview → host protocol', () => {
  it('accepts a well-formed prompt and trims it', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'prompt_submit', requestId: 'r1', text: '  hello  ' }), {
      type: 'prompt_submit',
      requestId: 'r1',
      text: 'hello',
    });
  });

  it('ignores malformed messages', () => {
    for (const raw of [
      null,
      42,
      'prompt_submit',
      [],
      {},
      { type: 'nope' },
      { type: 'prompt_submit', text: 'no id' },
      { type: 'prompt_submit', requestId: 'r', text: '   ' },
    ]) {
      assert.equal(parseWebviewMessage(raw), undefined, JSON.stringify(raw));
    }
  });

  it('ignores oversized prompts', () => {
    assert.equal(
      parseWebviewMessage({ type: 'prompt_submit', requestId: 'r', text: 'x'.repeat(MAX_PROMPT_CHARS + 1) }),
      undefined,
    );
  });

  it('ignores messages carrying __proto__ or any unexpected key', () => {
    const polluted = JSON.parse('{"type":"run_stop","__proto__":{"isAdmin":true}}');
    assert.equal(parseWebviewMessage(polluted), undefined);
    assert.equal(parseWebviewMessage({ type: 'chat_new', extra: 1 }), undefined);
    assert.equal(({} as Record<string, unknown>).isAdmin, undefined);
  });

  it('accepts only the known actions', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'action_invoke', action: 'set_api_key' }), {
      type: 'action_invoke',
      action: 'set_api_key',
    });
    assert.equal(parseWebviewMessage({ type: 'action_invoke', action: 'run_shell' }), undefined);
  });

  it('accepts a Retry only as an error of a conversation, by a whole non-negative sequence number', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'prompt_retry', conversationId: 'c1', errorSeq: 7 }), {
      type: 'prompt_retry',
      conversationId: 'c1',
      errorSeq: 7,
    });
    for (const raw of [
      { type: 'prompt_retry', conversationId: 'c1' },
      { type: 'prompt_retry', conversationId: 'c1', errorSeq: -1 },
      { type: 'prompt_retry', conversationId: 'c1', errorSeq: 1.5 },
      { type: 'prompt_retry', conversationId: 'c1', errorSeq: '7' },
      { type: 'prompt_retry', conversationId: 'c1', errorSeq: Number.MAX_SAFE_INTEGER + 2 },
      { type: 'prompt_retry', conversationId: '', errorSeq: 1 },
      { type: 'prompt_retry', conversationId: 'c'.repeat(201), errorSeq: 1 },
      { type: 'prompt_retry', conversationId: 'c1', errorSeq: 1, prompt: 'rm -rf ~' },
      JSON.parse('{"type":"prompt_retry","conversationId":"c1","errorSeq":1,"__proto__":{"x":1}}'),
    ])
      assert.equal(parseWebviewMessage(raw), undefined, JSON.stringify(raw));
  });
});
