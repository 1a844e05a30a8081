/**
 * `/fork N --worktree NAME` in the interactive session, in a real terminal (tmux) against the fake
 * model, on a real repository: the fork's worktree holds the files as they were at message N
 * (a later turn changed them again), the REPL says how to continue there, and
 * `openagent --worktree NAME` then `/resume ID` continues the fork in that worktree. A name
 * already taken and a folder that is no repository are refused and make nothing.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { openStore } from '../store/store-helpers';
import { cleanEnv, cliArgs, tempFolder } from './cli-helpers';
import { TmuxCli } from './tmux-cli';
import { TEST_TIMEOUT_MS } from '../../harness/patience';

function repository(): string {
  const folder = tempFolder('repo');
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd: folder });
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(folder, 'notes.txt'), 'at head\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
  return folder;
}

const writeNotes = (id: string, content: string) => ({
  id,
  name: 'write_file',
  arguments: { path: 'notes.txt', content },
});

describe('openagent CLI: /fork N --worktree NAME', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer;
  const running: TmuxCli[] = [];

  beforeEach(async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'fork-worktree-cli',
        turns: [
          { match: 'first', toolCalls: [writeNotes('w1', 'first version\n')] },
          { text: 'Wrote the first version.' },
          { match: 'second', toolCalls: [writeNotes('w2', 'second version\n')] },
          { text: 'Wrote the second version.' },
        ],
        whenExhausted: 'echo',
      },
    });
  });
  afterEach(async () => {
    for (const cli of running.splice(0)) cli.kill();
    await server.close();
  });

  it('forks into a worktree holding the files of message N; openagent --worktree NAME continues it', async () => {
    const repo = repository();
    const worktrees = tempFolder('worktrees');
    const store = tempFolder('store');
    const env = { ...cleanEnv(), OPENAGENT_WORKTREES: worktrees };
    const session = TmuxCli.start({ args: [...cliArgs(server, store), '--yes'], env, cwd: repo });
    running.push(session);
    await session.waitForPrompt(1);
    session.type('first');
    await session.waitFor(/Wrote the first version\./);
    session.type('second');
    await session.waitFor(/Wrote the second version\./);

    // Hostile or wrong input first: nothing is made.
    session.type('/fork 2 --worktree');
    await session.waitFor(/Usage: \/fork \[N\] --worktree NAME/);
    session.type('/fork 99 --worktree Elsewhere');
    await session.waitFor(/No message 99: this conversation has messages 1 to 4/);
    assert.deepEqual(fs.readdirSync(worktrees), []);

    session.type('/fork 2 --worktree Try again');
    const said = await session.waitFor(/then \/resume (\w{8})\./);
    const forkId = /\/resume (\w{8})\./.exec(said)![1]!;
    assert.match(said, /openagent --worktree 'Try again'/);
    assert.match(said, /starts from HEAD \([0-9a-f]{8} on main\)/);
    const [folder] = fs.readdirSync(worktrees).map((entry) => path.join(worktrees, entry));
    assert.ok(folder, said);
    assert.equal(fs.readFileSync(path.join(folder!, 'notes.txt'), 'utf8'), 'first version\n');
    assert.equal(fs.readFileSync(path.join(repo, 'notes.txt'), 'utf8'), 'second version\n', 'the repository stays');

    // The same name again is refused before anything is made.
    session.type('/fork 2 --worktree Try again');
    await session.waitFor(/already has that name: nothing was forked/);
    assert.equal(fs.readdirSync(worktrees).length, 1);
    session.type('/exit');
    assert.equal(await session.waitForExit(), 0);

    // Continued there: the fork's history, its tools in the worktree.
    const there = TmuxCli.start({
      args: [...cliArgs(server, store), '--yes', '--worktree', 'Try again'],
      env,
      cwd: repo,
    });
    running.push(there);
    await there.waitFor(/Working in the worktree .* again/);
    await there.waitForPrompt(1);
    there.type(`/resume ${forkId}`);
    await there.waitFor(/Resumed/);
    there.type('and then?');
    await there.waitFor(/You said: and then\?/);
    const sent = JSON.stringify(server.modelCalls.at(-1)?.body);
    assert.match(sent, /first/);
    assert.doesNotMatch(sent, /second/, 'the fork holds the conversation up to message 2');
    there.type('/exit');
    assert.equal(await there.waitForExit(), 0);

    const { store: opened } = await openStore(store);
    assert.equal((await opened.listConversations()).length, 2, 'the original and the fork');
    await opened.close();
  });

  it('a folder that is no git repository: a clear message, nothing forked', async () => {
    const cwd = tempFolder('plain');
    const store = tempFolder('store');
    const worktrees = tempFolder('worktrees');
    const session = TmuxCli.start({
      args: [...cliArgs(server, store), '--yes'],
      env: { ...cleanEnv(), OPENAGENT_WORKTREES: worktrees },
      cwd,
    });
    running.push(session);
    await session.waitForPrompt(1);
    session.type('first');
    await session.waitFor(/Wrote the first version\./);
    session.type('/fork --worktree Elsewhere');
    await session.waitFor(/Nothing was forked: .*not in a git repository/);
    session.type('/exit');
    assert.equal(await session.waitForExit(), 0);
    assert.deepEqual(fs.readdirSync(worktrees), []);
    const { store: opened } = await openStore(store);
    assert.equal((await opened.listConversations()).length, 1);
    await opened.close();
  });
});
