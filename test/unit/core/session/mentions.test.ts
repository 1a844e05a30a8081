import assert from 'node:assert/strict';
import { MAX_MENTION_CHARS, parseMentions, resolveMentions } from '../../../../src/core/session/mentions';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { loadScenario } from '../../../fixtures/fake-model-server/scenario';
import { sessionOn } from './session-harness';

describe('context mentions', () => {
  it('finds @file:path (quoted or not), @selection, @problems, @terminal and @git, once each', () => {
    const mentions = parseMentions(
      'Fix @file:src/app.ts, see @problems and @terminal; also @file:"docs/my notes.md" @git @selection @file:src/app.ts me@example.com @gitlab',
    );
    assert.deepEqual(
      mentions.map((mention) => mention.label),
      ['@file:src/app.ts', '@problems', '@terminal', '@file:docs/my notes.md', '@git', '@selection'],
    );
  });

  it('resolves each into a labelled section, caps big ones, and notes the ones that fail', async () => {
    const context = await resolveMentions('look at @file:big.txt and @git and @terminal', async (mention) => {
      if (mention.kind === 'git') throw new Error('this folder is not a Git repository');
      if (mention.kind === 'file') return 'x'.repeat(MAX_MENTION_CHARS + 10);
      return '$ npm test\nok';
    });
    assert.deepEqual(context.labels, ['@file:big.txt', '@git', '@terminal']);
    assert.match(context.text, /<context mention="@file:big.txt">\nx+\n\[… cut: 10 more characters\]\n<\/context>/);
    assert.match(
      context.text,
      /<context mention="@git">\n\(could not be attached: this folder is not a Git repository\)/,
    );
    assert.match(context.text, /<context mention="@terminal">\n\$ npm test\nok\n<\/context>/);
  });

  it('sends the context to the model after the prompt, and shows only its labels in the chat', async () => {
    const server = await FakeModelServer.start({ scenario: loadScenario('hello') });
    const { session, events, run } = sessionOn(server);
    try {
      await run('why does @selection fail?', (prompt) =>
        session.submitWithMentions(prompt, async () => 'src/a.ts, lines 1–2:\nthrow 1;'),
      );
      const shown = events.find((event) => event.type === 'user_message');
      assert.deepEqual(shown?.type === 'user_message' && [shown.text, shown.attachments], [
        'why does @selection fail?',
        ['@selection'],
      ]);
      assert.match(
        JSON.stringify(server.modelCalls[0]?.body),
        /why does @selection fail\?\\n\\n<context mention=\\"@selection\\">\\nsrc\/a.ts, lines 1–2:\\nthrow 1;/,
      );
    } finally {
      await server.close();
    }
  });
});
