/**
 * What the chat offers when the model cannot be reached, from the socket to the buttons: a
 * real client for each provider, a port nothing listens on, a real Conversation, and the
 * buttons the chat view puts under its error event.
 */
import assert from 'node:assert/strict';
import { Conversation } from '../../../src/core/agent/conversation';
import type { AgentEvent } from '../../../src/core/events/events';
import { createLlmClient } from '../../../src/core/llm/create-llm-client';
import { fixesFor } from '../../../webview/chat/error-fixes';
import { closedPort } from '../core/llm/local-sockets';

const PROVIDERS = ['ollama', 'lmstudio', 'vllm', 'llamacpp', 'openai', 'openai-compatible', 'anthropic'] as const;

describe('chat actions for a model that cannot be reached', function () {
  this.timeout(60_000);

  for (const provider of PROVIDERS) {
    it(`${provider}: an unreachable server ends in an error naming its address, with Open Settings and Retry`, async () => {
      const address = `http://127.0.0.1:${await closedPort()}${provider === 'anthropic' ? '' : '/v1'}`;
      const setup = createLlmClient({ provider, model: 'm', baseUrl: address }, 'sk-test-key-0123456789abcdefghij');
      assert.ok(setup.ok, setup.ok ? '' : setup.message);
      let retries = 0;
      const conversation = new Conversation({
        id: 'conv-unreachable',
        model: { llm: setup.client, model: 'm' },
        retry: { maxRetries: 1, baseDelayMs: 1, maxDelayMs: 1, onRetry: () => retries++ },
        system: 'system prompt',
        clock: { now: () => 1_000 },
      });
      const events: AgentEvent[] = [];
      conversation.subscribe((event) => events.push(event));
      await conversation.submit('hello');
      const error = events.at(-1);
      assert.ok(error?.type === 'error', `the run ends with an error, not ${error?.type}`);
      assert.equal(error.kind, 'connection');
      assert.equal(retries, 1, 'the refused call was retried');
      assert.ok(error.message.includes(`${address} (ECONNREFUSED)`), error.message);
      assert.doesNotMatch(error.message, /sk-test/);
      assert.deepEqual(
        fixesFor(error.kind).map((fix) => [fix.action, fix.label]),
        [
          ['open_settings', 'Open Settings'],
          ['retry', 'Retry'],
        ],
      );
    });
  }
});
