/**
 * Fork and rewind in the interactive session, in a real terminal (tmux) against the fake model:
 * /messages numbers the messages, /fork N continues in a copy (bad numbers explained, nothing
 * made), /rewind N asks before restoring the files the later turn changed and restores them byte
 * for byte, keeps the abandoned part as a fork, and sends the edited prompt; /forks shows the tree.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { openStore } from '../store/store-helpers';
import { cleanEnv, cliArgs, requestBody, tempFolder, textOf } from './cli-helpers';
import { TmuxCli } from './tmux-cli';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

/** The id of the one conversation a store holds. */
async function onlyConversation(directory: string): Promise<string> {
  const { store } = await openStore(directory);
  const [conversation] = await store.listConversations();
  await store.close();
  return conversation!.id;
}

describe('openagent CLI (fork and rewind)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer;
  let cli: TmuxCli | undefined;

  beforeEach(async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'fork-cli',
        turns: [
          { match: 'first', text: 'Answer one.' },
          {
            match: 'change',
            toolCalls: [{ id: 'w1', name: 'write_file', arguments: { path: 'notes.txt', content: 'v2\n' } }],
          },
          { text: 'Changed the notes.' },
        ],
        whenExhausted: 'echo',
      },
    });
  });
  afterEach(async () => {
    cli?.kill();
    cli = undefined;
    await server.close();
  });

  it('/fork N continues in a copy; /rewind N restores the files after asking and resends', async () => {
    const store = tempFolder('store');
    const cwd = tempFolder('ws');
    fs.writeFileSync(path.join(cwd, 'notes.txt'), 'v1\r\nsecond line\r\n');
    const session = TmuxCli.start({ args: cliArgs(server, store), env: cleanEnv(), cwd });
    cli = session;
    await session.waitForPrompt(1);
    session.type('/approve-all');
    await session.waitFor(/Every tool call is approved/);
    session.type('first');
    await session.waitFor(/Answer one\./);
    session.type('change the notes');
    await session.waitFor(/Changed the notes\./);
    assert.equal(fs.readFileSync(path.join(cwd, 'notes.txt'), 'utf8'), 'v2\r\n', "written in the file's line ends");

    session.type('/messages');
    const listed = await session.waitFor(/\/fork N continues/);
    assert.match(
      listed,
      /1 {2}you: first\n\s+2 {2}agent: Answer one\.\n\s+3 {2}you: change the notes\n\s+4 {2}agent: Changed the notes\./,
    );

    // Bad numbers are explained and make nothing. Typed ahead all at once: each line is a command.
    session.typeLines(['abc', '-1', '0', '99', '99999999999999999999'].map((bad) => `/fork ${bad}`));
    await session.waitForCount(/this conversation has messages 1 to 4/, 5);
    session.type('/rewind 2');
    await session.waitFor(/Message 2 is an answer: \/rewind takes the number of a prompt/);

    // The turns ran in this session: their checkpoints are here, so the files can be restored.
    const parentId = await onlyConversation(store);
    session.type('/rewind 3 leave the notes alone');
    const asked = await session.waitFor(/Restore them as they were before message 3\? \[y\/N\]/);
    assert.match(asked, /The later turn 2 changed 1 file:\n\s+notes\.txt/);
    session.type('y');
    const rewound = await session.waitFor(/You said: leave the notes alone/);
    const abandonedId = /Rewound to before message 3\. What came after is kept as (\w{8})/.exec(rewound)?.[1];
    assert.ok(abandonedId, rewound);
    assert.match(rewound, /Restored: notes\.txt/);
    assert.equal(fs.readFileSync(path.join(cwd, 'notes.txt'), 'latin1'), 'v1\r\nsecond line\r\n');
    let request = requestBody(server.modelCalls.at(-1)).messages.map(textOf).join('|');
    assert.match(request, /first/);
    assert.doesNotMatch(request, /change the notes/);

    // A fork of the rewound conversation at its first answer continues with that history only.
    session.type('/fork 2');
    const forked = await session.waitFor(/Forked at message 2 into (\w{8}) .*\/resume (\w{8}) goes back/);
    const forkId = /Forked at message 2 into (\w{8})/.exec(forked)![1]!;
    session.type('in the fork');
    await session.waitFor(/You said: in the fork/);
    request = requestBody(server.modelCalls.at(-1)).messages.map(textOf).join('|');
    assert.match(request, /first/);
    assert.doesNotMatch(request, /leave the notes alone|change the notes/);

    // The part the rewind left, reopened: its turn's copies are gone with the switch, so it says so.
    session.type(`/resume ${abandonedId}`);
    await session.waitFor(/Resumed .*\(before edit\)/);
    session.type('/rewind 3');
    await session.waitFor(/new prompt \(Enter sends it as it was\)> /);
    session.type('');
    await session.waitFor(/Rewind the conversation anyway and leave the files as they are\? \[y\/N\]/);
    session.type('n');
    await session.waitFor(/Rewind cancelled: nothing was changed\./);

    session.type('/forks');
    const tree = await session.waitFor(/\/resume ID opens one\./);
    assert.match(
      tree,
      new RegExp(`${parentId.slice(0, 8)}.*\\n\\s+${abandonedId}.*\\(left by a rewind\\) \\*\\n\\s+${forkId}`),
    );
    session.type('/exit');
    assert.equal(await session.waitForExit(), 0);

    const { store: opened } = await openStore(store);
    const conversations = await opened.listConversations();
    assert.equal(conversations.length, 3, 'the original, the part the rewind left, and the fork');
    await opened.close();
  });
});
