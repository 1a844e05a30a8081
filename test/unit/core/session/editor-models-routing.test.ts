/**
 * The "vscode" provider in the model routing: the editor's port gives its clients; without
 * the port (the CLI) a prompt does not start and the problem says the provider is the editor's.
 */
import assert from 'node:assert/strict';
import type { EditorModels } from '../../../../src/core/llm/editor-models';
import type { LlmClient } from '../../../../src/core/llm/llm-client';
import { routeModels } from '../../../../src/core/session/model-routing';

function editorModels(asked: string[]): EditorModels {
  return {
    client(model): LlmClient {
      asked.push(model);
      return { provider: 'vscode', stream: async function* () {}, listModels: async () => [model] };
    },
  };
}

describe('model routing: the VS Code provider', () => {
  const settings = () => ({ provider: 'vscode', model: 'copilot-gpt-4.1', baseUrl: '' });
  const secrets = { getApiKey: async () => undefined };

  it("binds every kind of work to the editor's model, with no key", async () => {
    const asked: string[] = [];
    const routed = await routeModels({ readSettings: settings, secrets, editorModels: editorModels(asked) }, 'chat');
    assert.ok(!('reason' in routed), JSON.stringify(routed));
    assert.equal(routed.main.llm.provider, 'vscode');
    assert.equal(routed.main.model, 'copilot-gpt-4.1');
    assert.equal(routed.providerId, 'vscode');
    assert.deepEqual(routed.apiKeys, []);
    assert.equal(routed.compaction.llm, routed.main.llm, 'one client serves the kinds that share the editor');
    assert.ok(asked.every((model) => model === 'copilot-gpt-4.1'));
  });

  it('without the editor, the prompt does not start and says why', async () => {
    const routed = await routeModels({ readSettings: settings, secrets }, 'chat');
    assert.ok('reason' in routed);
    assert.equal(routed.reason, 'editor_only');
    assert.match(routed.message, /exists only in the editor/);
  });
});
