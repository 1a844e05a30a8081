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
});
