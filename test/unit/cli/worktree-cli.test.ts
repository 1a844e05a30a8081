/**
 * `openagent --worktree NAME`: the CLI works in a git worktree of the folder's repository, on
 * openagent/<name>, made outside it — and in the same one again the next time; the worktree's
 * setup runs once; a folder that is no repository, and hostile names, get a clear answer.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { loadScenario } from '../../fixtures/fake-model-server/scenario';
import { TEST_TIMEOUT_MS } from '../../harness/patience';
import { cleanEnv, cliArgs, runCli, tempFolder } from './cli-helpers';
import { TmuxCli } from './tmux-cli';

function repository(): string {
  // In a folder of its own: "beside the repository" is then only what the tests made there.
  const folder = path.join(tempFolder('repo'), 'project');
  fs.mkdirSync(folder);
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd: folder });
  git('init', '-q', '-b', 'main');
  fs.writeFileSync(path.join(folder, 'README.md'), '# A project\n');
  fs.mkdirSync(path.join(folder, '.openagent'));
  // The repository's setup: run once, in the new worktree, confined.
  fs.writeFileSync(path.join(folder, '.openagent', 'worktree-setup'), 'echo set up > setup-ran.txt\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
  return folder;
}

describe('openagent --worktree', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer;

  beforeEach(async () => {
    server = await FakeModelServer.start({ scenario: loadScenario('cli-write-file') });
  });
  afterEach(() => server.close());

  it('works in a new worktree on openagent/<name>, outside the repository, and in the same one again', async () => {
    const repo = repository();
    const worktrees = tempFolder('worktrees');
    const store = tempFolder('store');
    const env = { OPENAGENT_WORKTREES: worktrees };
    const first = await runCli([...cliArgs(server, store), '--worktree', 'Fix login', '--yes', 'create the notes'], {
      cwd: repo,
      env,
    });
    assert.equal(first.code, 0, first.stderr);
    const [folder] = fs.readdirSync(worktrees).map((entry) => fs.realpathSync(path.join(worktrees, entry)));
    assert.ok(folder, first.stderr);
    assert.match(
      first.stderr,
      new RegExp(`Working in the worktree ${folder!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} on openagent/fix-login`),
    );
    assert.equal(fs.readFileSync(path.join(folder!, 'notes.txt'), 'utf8'), 'hello from the agent\n');
    assert.ok(!fs.existsSync(path.join(repo, 'notes.txt')), 'nothing written in the repository');
    assert.equal(
      fs.readFileSync(path.join(folder!, 'setup-ran.txt'), 'utf8'),
      'set up\n',
      'the setup ran in the worktree',
    );
    assert.ok(!fs.existsSync(path.join(repo, 'setup-ran.txt')));
    assert.equal(
      execFileSync('git', ['branch', '--show-current'], { cwd: folder!, encoding: 'utf8' }).trim(),
      'openagent/fix-login',
    );

    // The same name again: the same worktree, its work still there, the setup not run again.
    fs.rmSync(path.join(folder!, 'setup-ran.txt'));
    server.setScenario(loadScenario('cli-write-file'));
    const second = await runCli([...cliArgs(server, store), '--worktree', 'Fix login', '--yes', 'create the notes'], {
      cwd: repo,
      env,
    });
    assert.equal(second.code, 0, second.stderr);
    assert.match(second.stderr, /on openagent\/fix-login again/);
    assert.deepEqual(fs.readdirSync(worktrees).length, 1, 'no second worktree');
    assert.ok(!fs.existsSync(path.join(folder!, 'setup-ran.txt')), 'the setup runs once');
  });

  it('says so in a folder that is no git repository, and makes nothing', async () => {
    const folder = tempFolder('plain');
    const worktrees = tempFolder('worktrees');
    const ran = await runCli(
      [...cliArgs(server, tempFolder('store')), '--worktree', 'x', '--yes', 'create the notes'],
      {
        cwd: folder,
        env: { OPENAGENT_WORKTREES: worktrees },
      },
    );
    assert.equal(ran.code, 1);
    assert.match(ran.stderr, /openagent: .*not .*git repository/i);
    assert.deepEqual(fs.readdirSync(worktrees), []);
    assert.equal(server.modelCalls.length, 0, 'no model call');
  });

  it('keeps hostile names to a branch under openagent/ and a folder under the worktrees folder', async () => {
    const repo = repository();
    const worktrees = tempFolder('worktrees');
    server.setScenario({ name: 'greetings', turns: [], whenExhausted: 'echo' });
    for (const name of ['../../escape', '-rf --force', 'a\nb\u202Ec', '']) {
      // `--worktree=<name>`: a name that starts with a dash is otherwise read as an option.
      const ran = await runCli([...cliArgs(server, tempFolder('store')), `--worktree=${name}`, 'say hi'], {
        cwd: repo,
        env: { OPENAGENT_WORKTREES: worktrees },
      });
      if (name === '') {
        assert.equal(ran.code, 2, 'an empty name is refused');
        assert.match(ran.stderr, /--worktree needs a name/);
        continue;
      }
      assert.equal(ran.code, 0, ran.stderr);
    }
    const branches = execFileSync('git', ['branch', '--format=%(refname:short)'], { cwd: repo, encoding: 'utf8' })
      .trim()
      .split('\n')
      .filter((branch) => branch !== 'main');
    assert.equal(branches.length, 3);
    for (const branch of branches) assert.match(branch, /^openagent\/[a-z0-9][a-z0-9-]*$/);
    const outside = path.dirname(fs.realpathSync(repo));
    assert.deepEqual(
      fs.readdirSync(outside).filter((entry) => entry.includes('escape')),
      [],
      'nothing made beside the repository',
    );
    for (const entry of fs.readdirSync(worktrees)) assert.ok(!entry.startsWith('-') && !entry.includes('\n'), entry);
  });

  it('/sessions lists the repository’s session worktrees, the one deleted by hand marked', async () => {
    const repo = repository();
    const worktrees = tempFolder('worktrees');
    server.setScenario({ name: 'greetings', turns: [], whenExhausted: 'echo' });
    for (const name of ['First idea', 'Second idea'])
      assert.equal(
        (
          await runCli([...cliArgs(server, tempFolder('store')), '--worktree', name, 'say hi'], {
            cwd: repo,
            env: { OPENAGENT_WORKTREES: worktrees },
          })
        ).code,
        0,
      );
    const second = fs.readdirSync(worktrees).find((entry) => entry.startsWith('second'))!;
    fs.rmSync(path.join(worktrees, second), { recursive: true, force: true });
    const cli = TmuxCli.start({ args: cliArgs(server, tempFolder('store')), cwd: repo, env: { ...cleanEnv() } });
    try {
      await cli.waitForPrompt(1);
      cli.type('/sessions');
      const screen = await cli.waitForPrompt(2);
      assert.match(screen, /openagent\/first-idea\s+First idea\s+ready/);
      assert.match(screen, /openagent\/second-idea\s+Second idea\s+folder gone/);
    } finally {
      cli.kill();
    }
  });
});
