/**
 * The user's start-up files never run inside a hook or a command: bash reads ~/.bashrc even for
 * `bash -c` when its stdin is a socket (Node's stdio pipes are socket pairs) and SHLVL is unset,
 * so a .bashrc (pyenv's init, a key exported again) would run in every hook and command. Here a
 * home whose .bashrc and .profile leave a mark and export a key, SHLVL unset, and the hook runner
 * and the command shell as the product builds them without a sandbox.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ChildProcessShell } from '../../src/node/child-process-shell';
import { SandboxedHookRunner } from '../../src/node/sandboxed-hook-runner';

describe('bash start-up files stay out of hooks and commands', function () {
  this.timeout(60_000);
  let home: string;
  const saved = { HOME: process.env.HOME, SHLVL: process.env.SHLVL };

  beforeEach(() => {
    home = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-rc-home-'));
    for (const file of ['.bashrc', '.bash_profile', '.profile'])
      fs.writeFileSync(path.join(home, file), `echo RC_RAN_${file} >&2\nexport LEAKED_KEY=sk-from-${file}\n`);
    process.env.HOME = home;
    delete process.env.SHLVL;
  });
  afterEach(() => {
    for (const [name, value] of Object.entries(saved))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
  });

  it('a hook: its stderr and environment are its own', async () => {
    const result = await new SandboxedHookRunner().run({
      command: 'cat >/dev/null; echo "key=${LEAKED_KEY:-none}"; echo done >&2; exit 2',
      cwd: home,
      env: {},
      stdin: '{"hook_event_name":"PreToolUse"}',
      timeoutMs: 30_000,
    });
    assert.equal(result.exitCode, 2);
    assert.equal(result.stdout.trim(), 'key=none');
    assert.equal(result.stderr.trim(), 'done');
  });

  it('a command: its output is its own', async () => {
    const result = await new ChildProcessShell().run('echo "key=${LEAKED_KEY:-none}"', {
      cwd: home,
      timeoutMs: 30_000,
      maxOutputChars: 10_000,
    });
    assert.equal(result.exitCode, 0);
    assert.doesNotMatch(result.output, /RC_RAN/);
    assert.match(result.output, /key=none/);
  });
});
