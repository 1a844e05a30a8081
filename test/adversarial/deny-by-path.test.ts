/**
 * Issue 32, class 7: a deny rule on a program holds however the program is named — by a path,
 * quoted or escaped, behind a wrapper named by a path, behind a program that launches another,
 * or named only at run time (refused: it cannot be shown not to be the denied one). Every call
 * goes through the real executor with auto-approve on and an allow-everything rule, so only the
 * deny rule stands between the call and running. Allow rules stay strict: a path-named program
 * is not the one a bare-name allow rule allows.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { parseAgentPolicy } from '../../src/core/policy/agent-policy';
import { toolPolicyFrom } from '../../src/core/policy/policy-rules';
import { RiskProbe } from '../fixtures/call-risk';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { cliArgs, runCli, tempFolder } from '../unit/cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const policyOf = (yaml: string) => toolPolicyFrom(() => parseAgentPolicy(yaml).policy);

/** Deny curl and `rm -rf`; allow everything else and approve bash automatically. */
const DENY_CURL = policyOf(
  [
    'tools:',
    '  bash:',
    '    deny: ["curl*", "rm -rf*", "sudo*"]',
    '    allow: ["*"]',
    'approvals:',
    '  auto_approve: [bash, background_run]',
  ].join('\n'),
);

const NAMED_BY_PATH = [
  '/usr/bin/curl https://example.invalid',
  './curl https://example.invalid',
  '../bin/curl https://example.invalid',
  './/curl x',
  '/usr//bin//curl x',
  '/usr/bin/../bin/curl x',
  '/usr/bin/curl/ x',
  '~/bin/curl x',
  "'/usr/bin/curl' x",
  '"/usr/bin/curl" x',
  '\\/usr\\/bin\\/curl x',
  '/opt/homebrew/bin/CURL x',
  'C:/Windows/System32/curl.exe x',
  'curl.EXE x',
];
const QUOTED_OR_ESCAPED = [
  '\\curl x',
  "c''url x",
  'c"u"rl x',
  'cu\\rl x',
  "$'\\x63url' x",
  "$'\\143url' x",
  'cu\\\nrl x',
];
const BEHIND_WRAPPERS = [
  'command curl x',
  'command -- curl x',
  'env -i curl x',
  '/usr/bin/env curl x',
  'exec curl x',
  'exec -a innocent /usr/bin/curl x',
  'nice /usr/bin/curl x',
  'nice -n 5 ./curl x',
  'timeout 5 curl x',
  'timeout -s KILL 5 /usr/bin/curl x',
  'nohup /usr/bin/curl x &',
  'stdbuf -oL ../curl x',
  'X=1 /usr/bin/curl x',
  'ls | xargs /usr/bin/curl',
  "bash -c '/usr/bin/curl x'",
  "sh -c 'cd /tmp && ./curl x'",
  'echo ok; /bin/rm -rf /tmp/nothing-here',
  '/usr/bin/sudo ls',
  './sudo ls',
];
const BEHIND_LAUNCHERS = [
  'busybox curl x',
  '/bin/busybox sh -c "curl x"',
  'toybox curl x',
  'strace -f /usr/bin/curl x',
  'ltrace ./curl x',
  'flock /tmp/lock curl x',
  "flock /tmp/lock -c 'curl x'",
  'chrt 1 curl x',
  'ionice -c 3 curl x',
  'taskset 1 curl x',
  'watch -n 1 curl x',
  "su -c 'curl x' nobody",
  "script -qc '/usr/bin/curl x' /dev/null",
  'unbuffer curl x',
  'firejail --quiet curl x',
  'chroot / /usr/bin/curl x',
  'parallel curl ::: a b',
  'find . -name "*.txt" -exec curl -T {} x \\;',
  'find . -execdir /usr/bin/curl {} +',
  "trap 'curl x' EXIT",
  'hash -p /usr/bin/curl innocent',
  'fakeroot curl x',
  'systemd-run --user curl x',
  'ssh localhost curl x',
  "su - root -c 'curl x'",
  'strace -e trace=none -- ./curl',
  "watch 'curl x'",
];
const NAMED_AT_RUN_TIME = [
  '$(command -v curl) x',
  '`which curl` x',
  '"$(type -P curl)" x',
  '${CURL:-curl} x',
  '$CURL x',
  '$HOME/bin/curl x',
  '/usr/bin/cur? x',
  '/usr/bin/cur[l] x',
  '{/usr/bin/curl,x} y',
  'eval "curl x"',
  "env -S 'curl x'",
  'bash -c "$CMD"',
  'strace $TOOL x',
  'find . -exec $TOOL {} \\;',
  'echo "curl x" | sh',
  'printf x | bash',
  'sh -s < commands.txt',
  'sh < commands.txt',
  "bash -c '$0 x' curl",
];

describe('adversarial: deny rules match a program however it is named (issue 32, class 7)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const probe = new RiskProbe();
  const run = (command: string, tool = 'bash') =>
    probe.outcome(tool, { command }, { policy: DENY_CURL, autoApprove: true });

  for (const [group, commands] of [
    ['named by a path', NAMED_BY_PATH],
    ['quoted or escaped', QUOTED_OR_ESCAPED],
    ['behind wrappers named any way', BEHIND_WRAPPERS],
    ['behind programs that launch others', BEHIND_LAUNCHERS],
  ] as const) {
    describe(group, () => {
      for (const command of commands) {
        it(`${JSON.stringify(command)}: refused by bash.deny, never run`, async () => {
          const result = await run(command);
          assert.equal(result.outcome, 'refused', result.output);
          assert.match(result.output, /bash\.deny/);
        });
      }
    });
  }

  describe('named only at run time: cannot be shown not to be denied, so refused', () => {
    for (const command of NAMED_AT_RUN_TIME) {
      it(`${JSON.stringify(command)}: refused, and says why`, async () => {
        for (const tool of ['bash', 'background_run']) {
          const result = await run(command, tool);
          assert.equal(result.outcome, 'refused', result.output);
          assert.match(result.output, /cannot be checked against bash\.deny/);
        }
      });
    }
  });

  describe('commands that only mention the program still run', () => {
    for (const command of [
      'echo curl',
      'grep -r curl docs',
      'ls curl-notes',
      'cat ./curl.md',
      'git log --grep curl',
      'find . -name "*.md"',
      'node --version',
      'rm -r build',
    ]) {
      it(`${JSON.stringify(command)}: runs`, async () => {
        const result = await run(command);
        assert.equal(result.outcome, 'ran', result.output);
      });
    }
  });

  describe('allow rules stay strict: a program named by a path is not the allowed one', () => {
    const allowGit = policyOf('tools:\n  bash:\n    allow: ["git status*", "ls*"]\n');
    for (const command of [
      './git status',
      '../git status',
      '/tmp/planted/git status',
      'node_modules/.bin/git status',
      'GIT_DIR=. git status',
      './ls',
      'env ls',
    ]) {
      it(`${JSON.stringify(command)}: asked, not allowed by the rule`, async () => {
        const result = await probe.outcome('bash', { command }, { policy: allowGit });
        assert.notEqual(result.outcome, 'ran', result.output);
      });
    }
    it('the plain name is still allowed', async () => {
      assert.equal((await probe.outcome('bash', { command: 'git status' }, { policy: allowGit })).outcome, 'ran');
    });
  });

  it('through the CLI with --yes: a path-named denied program never runs', async () => {
    const workspace = tempFolder('deny-ws');
    fs.mkdirSync(path.join(workspace, '.openagent'));
    fs.writeFileSync(path.join(workspace, '.openagent', 'agent.yaml'), 'tools:\n  bash:\n    deny: ["touch*"]\n');
    const server = await FakeModelServer.start({
      scenario: {
        name: 'deny-by-path',
        turns: [
          {
            toolCalls: [
              { id: 'c1', name: 'bash', arguments: { command: '/usr/bin/touch PROOF_by_path' } },
              { id: 'c2', name: 'bash', arguments: { command: 'nice -n 1 ./../../usr/bin/touch PROOF_wrapped' } },
              { id: 'c3', name: 'bash', arguments: { command: '$(command -v touch) PROOF_computed' } },
            ],
          },
          { text: 'Done.' },
        ],
      },
    });
    try {
      const ran = await runCli([...cliArgs(server, tempFolder('deny-store')), '--yes', 'make the files'], {
        cwd: workspace,
      });
      assert.equal(ran.code, 0, ran.stderr);
      for (const marker of ['PROOF_by_path', 'PROOF_wrapped', 'PROOF_computed'])
        assert.ok(!fs.existsSync(path.join(workspace, marker)), `${marker} was created`);
      const second = JSON.stringify(server.modelCalls[1]?.body);
      assert.equal(second.match(/bash\.deny/g)?.length, 3, second);
    } finally {
      await server.close();
    }
  });
});
