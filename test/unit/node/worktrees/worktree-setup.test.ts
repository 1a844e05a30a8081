import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAgentPolicy } from '../../../../src/core/policy/agent-policy';
import { OsSandbox } from '../../../../src/node/sandbox/os-sandbox';
import { runWorktreeSetup, worktreeSetup } from '../../../../src/node/worktrees/worktree-setup';
import { makeRig } from './worktree-rig';

// Under the home folder, not /tmp: the sandbox has a private /tmp.
const TEST_BASE = path.join(os.homedir(), '.cache', 'openagent-worktree-setup-tests');
const SETTINGS = { mode: () => 'auto' as const, network: () => false, passEnv: () => [] };
const confinedHere = new OsSandbox({ ...SETTINGS, root: () => os.tmpdir() }).status().confined;

describe('worktree setup', function () {
  this.timeout(120_000);

  it('reads worktree.setup from agent.yaml, and rejects an empty one', () => {
    const parsed = parseAgentPolicy('worktree:\n  setup: npm ci\n');
    assert.deepEqual(parsed.problems, []);
    assert.deepEqual(worktreeSetup('/nowhere', parsed.policy), { command: 'npm ci', source: 'policy' });
    assert.notEqual(parseAgentPolicy('worktree:\n  setup: ""\n').problems.length, 0);
    assert.notEqual(parseAgentPolicy('worktree:\n  other: 1\n').problems.length, 0);
  });

  it('runs the command once in the worktree, with its output and exit code', async () => {
    const rig = makeRig({ parent: TEST_BASE });
    const { worktree } = await rig.worktrees.create({ name: 'setup' });
    const setup = worktreeSetup(
      worktree.root,
      parseAgentPolicy('worktree:\n  setup: "echo ready > made-by-setup.txt && pwd"\n').policy,
    )!;
    const result = await runWorktreeSetup(worktree.root, setup, SETTINGS);
    assert.equal(result.exitCode, 0);
    assert.ok(result.ok);
    assert.match(result.output, new RegExp(worktree.root.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
    assert.match(result.summary, /finished/);
    assert.equal(rig.read('made-by-setup.txt', worktree.root), 'ready\n');
    assert.equal(rig.read('made-by-setup.txt'), undefined, 'not in the workspace');
  });

  it("uses the worktree's .openagent/worktree-setup script when the policy has no command", async () => {
    const rig = makeRig({ parent: TEST_BASE });
    rig.write('.openagent/worktree-setup', 'echo "from the script"\nexit 3\n');
    rig.git(['add', '-A']);
    rig.git(['commit', '-q', '-m', 'setup script']);
    const { worktree } = await rig.worktrees.create({ name: 'script' });
    const setup = worktreeSetup(worktree.root, undefined)!;
    assert.equal(setup.source, 'script');
    const result = await runWorktreeSetup(worktree.root, setup, SETTINGS);
    assert.equal(result.exitCode, 3);
    assert.equal(result.ok, false);
    assert.match(result.output, /from the script/);
    assert.match(result.summary, /failed \(exit code 3\): the session can still be used, or discarded/);
  });

  it('reports a setup that cannot run instead of throwing', async () => {
    const result = await runWorktreeSetup('/nowhere', { command: 'true', source: 'policy' }, SETTINGS, {
      shell: { run: () => Promise.reject(new Error('the sandbox is required and missing')) },
    });
    assert.equal(result.ok, false);
    assert.equal(result.exitCode, undefined);
    assert.match(result.output, /sandbox is required/);
    assert.match(result.summary, /could not run/);
  });

  it('is confined: it cannot write the workspace, the git folder its .git names, or the hooks', async function () {
    if (!confinedHere) this.skip();
    const rig = makeRig({ parent: TEST_BASE });
    const { worktree } = await rig.worktrees.create({ name: 'confined' });
    const targets = [
      path.join(rig.workspace, 'PWNED'),
      path.join(worktree.worktreeGitDir, 'HEAD'),
      path.join(rig.workspace, '.git', 'config'),
      path.join(rig.workspace, '.git', 'hooks', 'post-checkout'),
      path.join(worktree.root, '.git'),
    ];
    const before = targets.map((file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined));
    const command = targets.map((file) => `echo pwned >> '${file}'`).join('; ') + '; echo ok > inside.txt';
    const result = await runWorktreeSetup(worktree.root, { command, source: 'policy' }, SETTINGS);
    assert.match(result.output, /(Read-only file system|Permission denied)/);
    assert.deepEqual(
      targets.map((file) => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined)),
      before,
    );
    assert.equal(rig.read('inside.txt', worktree.root), 'ok\n', 'the worktree itself is writable');
  });
});
