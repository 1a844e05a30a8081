/**
 * Issue 32, class 7, second pass (an attacker's inputs): a deny rule means what it says however
 * the command is spelled — an option before the subcommand (`git -C . push`), options split,
 * merged, reordered or written long (`rm -r -f`, `rm x -Rf`, `rm --rec --forc`), another
 * spelling of the subcommand (`docker container run`, `npm pub`), a denied program inside what
 * cannot be analysed (a function, a group, a loop, a here-document), an alias, a runner of a
 * subcommand (`npm exec`, `bundle exec`), a launcher's string that cannot be analysed. Every
 * call goes through the real executor with auto-approve on and an allow-everything rule, so only
 * the deny rules stand between the call and running. Checking stays bounded under hostile rules.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { RiskProbe, denyOnly, policyOf } from '../fixtures/call-risk';
import { FakeModelServer } from '../fixtures/fake-model-server/server';
import { cliArgs, runCli, tempFolder } from '../unit/cli/cli-helpers';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const DENY = denyOnly(['curl*', 'rm -rf*', 'git push*', 'npm publish*', 'docker run*']);

const OPTION_BEFORE_SUBCOMMAND = [
  'git -C . push',
  'git --git-dir=x push',
  'git -c a=b push',
  'git --work-tree=. push origin',
  'git --no-pager push',
  'git -p push',
  'git --exec-path=x push',
  'git -C . -c a=b --git-dir=x push origin main',
  'npm --prefix x publish',
  'npm -w x publish',
  'npm --prefix x pub',
  'docker --context x run img',
  'docker -H tcp://x run img',
  'docker container run img',
  'docker --context x container run img',
  '/usr/bin/git -C . push',
  'env git -C . push',
];
const OPTION_SPELLINGS = [
  'rm -fr x',
  'rm -r -f x',
  'rm -f -r x',
  'rm -Rf x',
  'rm -fR x',
  'rm -vrf x',
  'rm x -rf',
  'rm --recursive --force x',
  'rm --force -r x',
  'rm -r --force x',
  'rm -r --forc x',
  'rm --rec -f x',
  'rm -d -R -f x',
  'rm -r -v -f x',
  '/bin/rm -fR x',
  'command rm --force --recursive x',
  'timeout -k 5 10 rm -fr x',
  'ls | xargs rm -fr',
  'find . -exec rm -fr {} +',
  "sh -c 'rm -fr x'",
];
const IN_WHAT_CANNOT_BE_ANALYSED = [
  'f(){ curl x; }; f',
  'function f { curl x; }; f',
  '(curl x)',
  '{ curl x; }',
  'coproc curl x',
  'time (curl x)',
  'if true; then curl x; fi',
  'while false; do curl x; done',
  'case x in x) curl x;; esac',
  'for i in 1; do /usr/bin/curl x; done',
  'sh <<EOF\ncurl x\nEOF',
  "cat <<'EOF' | sh\ncurl x\nEOF",
  "f(){ sh -c 'echo; curl x'; }; f",
  '(git -C . push)',
  'f(){ rm -r -f x; }; f',
  "f(){ $'\\x63url' x; }; f",
];
const ALIASES_AND_RUNNERS = [
  'alias c=curl; c x',
  "alias c='curl'\nc x",
  'alias get=\\curl',
  'ALIAS=1 alias get=/usr/bin/curl',
  'npm exec -- curl x',
  'npm x curl',
  'pnpm dlx curl',
  'bundle exec curl x',
  'poetry run curl x',
  'ip netns exec ns curl x',
  "tmux new-session -d 'curl x'",
  'screen -dm curl x',
  'xcrun curl x',
  "nix-shell --run 'curl x'",
  'gdb --args curl x',
  "su -c '(curl x)' nobody",
  "watch '$(which curl)'",
  "watch '{ curl x; }'",
  "ssh host 'for i in 1; do curl x; done'",
];
/** Commands near the rules that are not what they deny: they still run. */
const STILL_RUN = [
  'git --no-pager log --grep push',
  'git log push',
  'git -C . status',
  'git commit -m "push it"',
  'npm run publish',
  'npm run publish-docs',
  'npm install curl',
  'docker --context x ps',
  'docker container ls',
  'rm -r build',
  'rm --force x',
  'rm -v -r build',
  'grep -rf patterns.txt src',
  'echo rm -rf',
  'find . -name "curl*.md"',
];

describe('adversarial: a deny rule holds however the command is spelled (issue 32, class 7, attacker)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const probe = new RiskProbe();
  const run = (command: string) => probe.outcome('bash', { command }, { policy: DENY, autoApprove: true });

  for (const [group, commands] of [
    ['an option before the subcommand, another spelling of it', OPTION_BEFORE_SUBCOMMAND],
    ['options split, merged, reordered or written long', OPTION_SPELLINGS],
    ['inside what cannot be analysed', IN_WHAT_CANNOT_BE_ANALYSED],
    ['aliases, runners of a subcommand, launchers given shell text', ALIASES_AND_RUNNERS],
  ] as const) {
    describe(group, () => {
      for (const command of commands) {
        it(`${JSON.stringify(command)}: refused by bash.deny, never run nor asked`, async () => {
          const result = await run(command);
          assert.equal(result.outcome, 'refused', result.output);
          assert.match(result.output, /bash\.deny/);
        });
      }
    });
  }

  describe('commands near the rules that are not what they deny still run', () => {
    for (const command of STILL_RUN) {
      it(`${JSON.stringify(command)}: runs`, async () => {
        const result = await run(command);
        assert.equal(result.outcome, 'ran', result.output);
      });
    }
  });

  it('rules that fit every word of a long command are checked in bounded time', async () => {
    // 100 rules `a*a*…*b` (1,000 characters each): checking every argument of a launcher, or
    // every word of a function, against each of them took from seconds to minutes.
    const rule = `a${'*a'.repeat(490)}*b`;
    const hostile = policyOf(
      `tools:\n  bash:\n    deny:\n${Array.from({ length: 100 }, () => `      - "${rule}"`).join('\n')}\n`,
    );
    const started = Date.now();
    for (const command of [
      `watch ${'aaaaaaaaaaaaaaaaaa '.repeat(1000)}`,
      `(${'a '.repeat(9_990)}`,
      `strace ${'a '.repeat(1_000)}`,
    ]) {
      const verdict = hostile.evaluate({
        toolName: 'bash',
        input: { command },
        command,
        readOnly: false,
        needsApproval: true,
      });
      // Refused (it cannot be checked) or asked: never allowed, and never minutes.
      assert.notEqual(verdict.action, 'allow');
    }
    // Generous: the three took about 70 s before; now well under one.
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
  });

  it('through the CLI with --yes: spelled-otherwise and hidden denied commands never run', async () => {
    const workspace = tempFolder('deny-spell-ws');
    fs.mkdirSync(path.join(workspace, '.openagent'));
    fs.writeFileSync(
      path.join(workspace, '.openagent', 'agent.yaml'),
      'tools:\n  bash:\n    deny: ["touch -a*", "mkdir*"]\n',
    );
    const server = await FakeModelServer.start({
      scenario: {
        name: 'deny-spellings',
        turns: [
          {
            toolCalls: [
              { id: 'c1', name: 'bash', arguments: { command: 'touch -m -a PROOF_split' } },
              { id: 'c2', name: 'bash', arguments: { command: 'touch --time=access -c -a PROOF_long' } },
              { id: 'c3', name: 'bash', arguments: { command: 'f(){ mkdir PROOF_function; }; f' } },
              { id: 'c4', name: 'bash', arguments: { command: 'touch PROOF_allowed' } },
            ],
          },
          { text: 'Done.' },
        ],
      },
    });
    try {
      const ran = await runCli([...cliArgs(server, tempFolder('deny-spell-store')), '--yes', 'make the files'], {
        cwd: workspace,
      });
      assert.equal(ran.code, 0, ran.stderr);
      for (const marker of ['PROOF_split', 'PROOF_long', 'PROOF_function'])
        assert.ok(!fs.existsSync(path.join(workspace, marker)), `${marker} was created`);
      // The one not denied ran: the refusals above are the rules', not a broken run.
      assert.ok(fs.existsSync(path.join(workspace, 'PROOF_allowed')), ran.stderr);
      const second = JSON.stringify(server.modelCalls[1]?.body);
      assert.equal(second.match(/bash\.deny/g)?.length, 3, second);
    } finally {
      await server.close();
    }
  });
});
