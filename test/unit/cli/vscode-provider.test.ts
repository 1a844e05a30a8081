/**
 * The "vscode" provider outside the editor: the CLI says it exists only in the editor (the same
 * createLlmClient answer serves /model in the interactive session).
 */
import assert from 'node:assert/strict';
import { runCli, tempFolder } from './cli-helpers';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

describe('CLI: the VS Code provider', function () {
  this.timeout(TEST_TIMEOUT_MS);

  it('a prompt with --provider vscode is refused: the provider exists only in the editor', async () => {
    const store = tempFolder('vscode-provider-store');
    const ran = await runCli(['--store', store, '--provider', 'vscode', 'hello'], { cwd: tempFolder('vscode-ws') });
    assert.notEqual(ran.code, 0, ran.stdout);
    assert.match(ran.stderr, /The VS Code provider exists only in the editor/);
    assert.match(ran.stderr, /--provider anthropic|\/model ollama/);
  });
});
