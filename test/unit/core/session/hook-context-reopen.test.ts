/**
 * What a prompt hook adds for the model (UserPromptSubmit's context) is part of the conversation:
 * reopened from the store, the model gets the same history it had, hook context included; the
 * chat still shows only the user's words.
 */
import assert from 'node:assert/strict';
import { Hooks } from '../../../../src/core/agent/hooks';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { openStore, tempDir } from '../../store/store-helpers';
import { sessionOn } from './session-harness';
import { tempWorkspace } from './fork-harness';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';

describe('hook context in a reopened conversation', function () {
  this.timeout(60_000);
  let server: FakeModelServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('is sent again after a reopen, once, and never shown as the user words', async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'hook-context',
        turns: [
          { match: 'prompt one', text: 'Answer one.' },
          { match: 'prompt two', text: 'Answer two.' },
        ],
      },
    });
    const { store } = await openStore(tempDir());
    const root = tempWorkspace();
    const workspace = new NodeWorkspace(root);
    let added = 0;
    const hooks = new Hooks();
    hooks.add('UserPromptSubmit', async ({ prompt }) => ({ prompt, context: `HOOK_CONTEXT_${++added}` }));
    const make = () =>
      sessionOn(server!, {
        store: async () => store,
        workspace: () => workspace,
        tools: (tracked) => createFileTools(tracked ?? workspace),
        hooks,
      });
    const first = make();
    await first.run('prompt one');
    await first.session.flush();
    const id = first.session.currentId!;
    assert.match(JSON.stringify(server.modelCalls.at(-1)?.body), /HOOK_CONTEXT_1/);

    // Another window (a reload): the conversation is read back from the store and continued.
    const second = make();
    assert.equal(await second.session.open(id), true);
    const shown = second.session.history.flatMap((event) => (event.type === 'user_message' ? [event.text] : []));
    assert.deepEqual(shown, ['prompt one'], 'the chat shows the prompt, not what the hook added');
    await second.run('prompt two');
    const sent = JSON.stringify(server.modelCalls.at(-1)?.body);
    assert.match(sent, /HOOK_CONTEXT_1/, 'the first prompt keeps what its hook added');
    assert.match(sent, /HOOK_CONTEXT_2/);
    assert.equal(sent.split('HOOK_CONTEXT_1').length, 2, 'given once');
  });
});
