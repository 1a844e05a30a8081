import assert from 'node:assert/strict';
import { writeCommitMessage } from '../../../../src/core/agent/commit-message';
import { createLlmClient } from '../../../../src/core/llm/create-llm-client';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';

describe('commit message from a staged diff', () => {
  it('asks the model once with the diff (cut when huge) and returns the message without fences', async () => {
    const server = await FakeModelServer.start({
      scenario: {
        name: 'commit',
        turns: [{ text: '```\nfix(sum): add instead of subtracting\n\nThe test expected 5.\n```' }],
      },
    });
    try {
      const setup = createLlmClient(
        { provider: 'anthropic', model: 'fake-model', baseUrl: server.anthropicBaseUrl },
        'k',
      );
      assert.ok(setup.ok);
      const diff = `diff --git a/src/sum.js b/src/sum.js\n-  return a - b;\n+  return a + b;\n${'+x\n'.repeat(40_000)}`;
      const message = await writeCommitMessage(setup.client, setup.model, diff);
      assert.equal(message, 'fix(sum): add instead of subtracting\n\nThe test expected 5.');
      const body = server.modelCalls[0]?.body as { system: unknown; tools?: unknown[]; messages: unknown[] };
      assert.match(JSON.stringify(body.system), /Conventional Commits/);
      assert.equal(body.tools?.length ?? 0, 0);
      const sent = JSON.stringify(body.messages);
      assert.match(sent, /return a \+ b;/);
      assert.match(sent, /diff cut: \d+ more characters/);
      const text = (body.messages[0] as { content: Array<{ text: string }> }).content[0]!.text;
      assert.ok(text.length < 61_000 && diff.length > 120_000, 'a huge diff is cut before it is sent');
    } finally {
      await server.close();
    }
  });
});
