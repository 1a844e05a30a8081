/**
 * Issue 32, class 8: wherever the sandbox cannot confine commands — turned off by flag, by the
 * environment or by a policy, bubblewrap missing or unable to start, a workspace that holds the
 * home folder — the CLI says so once, in every mode: one-shot with --yes, one-shot without, and
 * the interactive session. Driven as a child process; the machine's bubblewrap is hidden or
 * replaced through PATH.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { cliArgs, runCli, tempFolder } from '../unit/cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const NOTICE = /Commands are (not confined|refused)/g;

/** A PATH holding node (the CLI needs it) and, if given, a `bwrap` with this script. */
function pathWithout(bwrapScript?: string): string {
  const folder = tempFolder('path');
  fs.symlinkSync(process.execPath, path.join(folder, 'node'));
  if (bwrapScript !== undefined)
    fs.writeFileSync(path.join(folder, 'bwrap'), `#!/bin/sh\n${bwrapScript}\n`, { mode: 0o755 });
  return folder;
}

const bwrapWorks = spawnSync('bwrap', ['--ro-bind', '/', '/', '--unshare-all', 'true']).status === 0;

describe('adversarial: the CLI says once when commands are not confined (issue 32, class 8)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer;
  beforeEach(async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'two commands',
        turns: [
          { toolCalls: [{ id: 'b1', name: 'bash', arguments: { command: 'echo one' } }] },
          { toolCalls: [{ id: 'b2', name: 'bash', arguments: { command: 'echo two' } }] },
          { text: 'Ran both.' },
        ],
      },
    });
  });
  afterEach(() => server.close());

  const cases: Array<{
    name: string;
    args?: string[];
    env?: Record<string, string>;
    workspaceIsHome?: boolean;
    why: RegExp;
  }> = [
    { name: '--sandbox off with --yes', args: ['--sandbox', 'off', '--yes'], why: /the sandbox is off/ },
    { name: '--sandbox off without --yes', args: ['--sandbox', 'off'], why: /the sandbox is off/ },
    { name: 'OPENAGENT_SANDBOX=off', args: ['--yes'], env: { OPENAGENT_SANDBOX: 'off' }, why: /the sandbox is off/ },
    {
      name: 'bubblewrap missing',
      args: ['--yes'],
      env: { PATH: pathWithout() },
      why: /bubblewrap \(bwrap\) is not installed/,
    },
    {
      name: 'bubblewrap unable to start',
      args: ['--yes'],
      env: { PATH: pathWithout('echo "bwrap: No permissions to create new namespace" >&2; exit 1') },
      why: /not confined/,
    },
    {
      name: 'bubblewrap that hangs',
      args: ['--yes'],
      env: { PATH: pathWithout('exec sleep 60') },
      why: /not confined/,
    },
    {
      name: 'a workspace holding the home folder',
      args: ['--yes'],
      workspaceIsHome: true,
      why: /holds your home folder/,
    },
    {
      name: 'sandbox: required with bubblewrap missing',
      args: ['--sandbox', 'required', '--yes'],
      env: { PATH: pathWithout() },
      why: /Commands are refused/,
    },
  ];

  for (const { name, args = [], env = {}, workspaceIsHome, why } of cases) {
    it(`${name}: said once on stderr, never in the answer`, async () => {
      const home = tempFolder('notice-home');
      const workspace = workspaceIsHome ? home : tempFolder('notice-ws');
      const ran = await runCli([...cliArgs(server, tempFolder('notice-store')), ...args, 'run two commands'], {
        cwd: workspace,
        home,
        env,
      });
      assert.equal(ran.code, 0, ran.stderr);
      assert.equal(ran.stderr.match(NOTICE)?.length, 1, ran.stderr);
      assert.match(ran.stderr, why);
      assert.doesNotMatch(ran.stdout, NOTICE);
    });
  }

  it("a workspace policy's `sandbox: required` counts before the first prompt", async () => {
    const workspace = tempFolder('notice-ws');
    fs.mkdirSync(path.join(workspace, '.openagent'));
    fs.writeFileSync(path.join(workspace, '.openagent', 'agent.yaml'), 'sandbox: required\n');
    const ran = await runCli([...cliArgs(server, tempFolder('notice-store')), '--yes', 'run two commands'], {
      cwd: workspace,
      env: { PATH: pathWithout() },
    });
    assert.equal(ran.code, 0, ran.stderr);
    assert.equal(ran.stderr.match(NOTICE)?.length, 1, ran.stderr);
    assert.match(ran.stderr, /Commands are refused: Commands must run confined \(sandbox: required\)/);
  });

  it('the interactive session says it once too', async () => {
    const ran = await runCli([...cliArgs(server, tempFolder('notice-store')), '--sandbox', 'off', '-i'], {
      cwd: tempFolder('notice-ws'),
      input: '',
    });
    assert.equal((ran.stdout + ran.stderr).match(NOTICE)?.length, 1, ran.stdout + ran.stderr);
  });

  it('where commands are confined, nothing is said', async function () {
    if (!bwrapWorks) this.skip();
    const ran = await runCli([...cliArgs(server, tempFolder('notice-store')), '--yes', 'run two commands'], {
      cwd: tempFolder('notice-ws'),
    });
    assert.equal(ran.code, 0, ran.stderr);
    assert.doesNotMatch(ran.stderr, NOTICE);
  });
});
