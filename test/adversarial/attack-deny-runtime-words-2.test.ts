/**
 * Second attack on "a deny rule (and a named approver's `bash` rule) sees a command however it
 * is spelled; what cannot be shown not to match counts as matching": the ways the first attack's
 * tests did not try. Words a command takes from its input (`… | xargs git`), shell aliases a
 * command defines and then uses (`shopt -s expand_aliases`, `alias g=git` … `g push`), git's
 * own other spellings of a push (`git-push`, `git send-pack`, `git subtree push`) and git
 * running a command it is given (`git rebase -x`, `git bisect run`, `git submodule foreach`).
 * Every call goes through the real executor with auto-approve on and an allow-everything rule,
 * so only the deny rules stand between the call and running; approver rules through approversFor.
 */
import assert from 'node:assert/strict';
import { parseAgentPolicy } from '../../src/core/policy/agent-policy';
import { approversFor } from '../../src/core/policy/approver-rules';
import { POLICY_STARTER } from '../../src/core/policy/policy-starter';
import { RiskProbe, denyOnly, bashApprovers, approversOfCommand, policyOf } from '../fixtures/call-risk';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const DENY = denyOnly(['git push*', 'curl*']);

const APPROVERS = bashApprovers(['git push*']);

/** Commands that may push, each spelled a way the first attack did not try. */
const MAY_PUSH: Record<string, readonly string[]> = {
  'words a command takes from its input': [
    'echo push | xargs git',
    'echo push | xargs -0 git',
    'xargs git < list',
    'xargs -a list git',
    'printf "push\\norigin" | xargs -r git',
    'echo push | gxargs git',
    'echo push | parallel git',
    'echo push | sudo xargs git',
  ],
  'shell aliases the command defines': [
    'shopt -s expand_aliases\nalias g=git\ng push',
    "shopt -s expand_aliases\nalias g='git '\nalias p=push\ng p origin",
    'shopt -s expand_aliases; alias g=git\ng push',
    'alias g=git\ng "$X"',
    "alias g='command git'\ng push",
    "sh -c 'alias g=git\ng push'",
    'alias g=git\nsudo echo x; g push',
    'alias g=git\nf(){ g push; }; f',
  ],
  "git's other spellings of a push": [
    '/usr/lib/git-core/git-push origin main',
    'git-push origin',
    '"$(git --exec-path)"/git-push origin',
    'git send-pack origin main',
    'git http-push https://x/r.git main',
    'git subtree push --prefix=lib origin main',
  ],
  'a launcher option with its command attached': [
    "su --command='git push'",
    "su -c'git push' bob",
    "script --command='git push' /dev/null",
  ],
  'git running a command it is given': [
    "git rebase --exec 'git push' HEAD~1",
    "git rebase -x 'git push' HEAD~1",
    "git rebase --exec='git push' HEAD~1",
    'git bisect run git push',
    'git submodule foreach git push',
    "git submodule foreach 'git push'",
    "git filter-branch --tree-filter 'git push' HEAD",
  ],
};

/** Near those, and what a user runs every day: not refused, no approver. */
const EVERYDAY = [
  'git stash push -m wip',
  'git ls-files | xargs grep -n TODO',
  'find . -name "*.ts" | xargs wc -l',
  'git rebase -i HEAD~3',
  'git cherry-pick -x abc123',
  "alias ll='ls -l'\nll",
  'git submodule update --init',
  'git bisect start',
  "alias ls='ls --color'\nls src",
  'git commit -m "run the tests"',
];

describe('adversarial: deny and approver rules, run-time words and aliases (second attack)', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const probe = new RiskProbe();
  const run = (command: string) => probe.outcome('bash', { command }, { policy: DENY, autoApprove: true });
  const approvers = (command: string) => approversOfCommand(APPROVERS, command);

  for (const [group, commands] of Object.entries(MAY_PUSH)) {
    describe(group, () => {
      for (const command of commands) {
        it(`${JSON.stringify(command)}: refused by bash.deny, never run nor asked`, async () => {
          const result = await run(command);
          assert.equal(result.outcome, 'refused', result.output);
          assert.match(result.output, /bash\.deny/);
        });
        it(`${JSON.stringify(command)}: needs the named approver`, () => {
          const requirement = approvers(command);
          assert.deepEqual(requirement?.approvers, ['alice@corp'], command);
          assert.match(requirement.matched.join(), /git push\*/);
        });
      }
    });
  }

  it('says why: the input words, and the alias', async () => {
    assert.match((await run('echo push | xargs git')).output, /input/);
    assert.match((await run('alias g=git\ng push')).output, /alias `g`/);
  });

  describe('everyday commands near them are not refused, nor need the approver', () => {
    for (const command of EVERYDAY) {
      it(`${JSON.stringify(command)}`, async () => {
        const result = await run(command);
        assert.notEqual(result.outcome, 'refused', result.output);
        assert.equal(approvers(command), undefined, command);
      });
    }
  });

  it('commands built to be costly (thousands of aliases, chains of them) are checked in bounded time', () => {
    const policy = policyOf('tools:\n  bash:\n    deny: ["git push*", "curl*"]\n');
    const started = Date.now();
    for (const command of [
      `${Array.from({ length: 3_000 }, (_, i) => `alias a${i}=x`).join('\n')}\n${Array.from({ length: 3_000 }, (_, i) => `a${i}`).join('; ')}`,
      `${Array.from({ length: 3_000 }, (_, i) => `alias a${i}='a${i + 1} '`).join('\n')}\n${'a0 a1 a2 a3; '.repeat(3_000)}`,
      `f(){ :; }\n${Array.from({ length: 2_000 }, (_, i) => `alias a${i}='a${i + 1} '`).join('\n')}\n${'a0 a1; '.repeat(2_000)}`,
      `alias g='git '\n${'g '.repeat(20_000)}`,
      `echo x | xargs git ${'a '.repeat(50_000)}`,
    ]) {
      const verdict = policy.evaluate({
        toolName: 'bash',
        input: { command },
        command,
        readOnly: false,
        needsApproval: true,
      });
      assert.notEqual(verdict.action, 'allow');
    }
    assert.ok(Date.now() - started < 30_000, `took ${Date.now() - started} ms`);
  });

  it('an alias chain too deep to follow is refused, not asked, also where the command cannot be analysed', () => {
    const policy = policyOf('tools:\n  bash:\n    deny: ["git push*"]\n');
    const chain = Array.from({ length: 8 }, (_, i) => `alias a${i}=a${i + 1}`).join('\n');
    for (const command of [`${chain}\nalias a8=git\na0 push`, `f(){ :; }\n${chain}\nalias a8=git\na0 push`]) {
      const verdict = policy.evaluate({
        toolName: 'bash',
        input: { command },
        command,
        readOnly: false,
        needsApproval: true,
      });
      assert.equal(verdict.action, 'deny', command);
    }
  });

  describe('approver path rules: paths attached to options, other letter case and Unicode form', () => {
    const guarded = (glob: string) =>
      parseAgentPolicy(`approvals:\n  approvers:\n    - match: { paths: ["${glob}"] }\n      by: [bob@corp]\n`).policy!
        .approvals!.approvers;
    for (const glob of ['infra/', 'infra/**', 'infra', 'données/']) {
      const target = glob.startsWith('données') ? 'données' : 'infra';
      for (const command of [
        `dd if=/dev/zero of=${target}/x.tf`,
        `cp a --target-directory=${target}`,
        `tar -xf a.tar -C${target}`,
        `touch ${target.toUpperCase()}/x.tf`,
        `touch ${target.normalize('NFD')}/x.tf`,
      ])
        it(`${JSON.stringify(command)} needs the approver of "${glob}"`, () => {
          const requirement = approversFor(guarded(glob), { toolName: 'bash', input: {}, command }, '/w');
          assert.deepEqual(requirement?.approvers, ['bob@corp'], command);
        });
    }
    it('a file path in another case or form needs the approver; paths elsewhere do not', () => {
      const rules = guarded('infra/**');
      const of = (path: string) => approversFor(rules, { toolName: 'write_file', input: {}, paths: [path] }, '/w');
      assert.ok(of('Infra/x.tf'));
      assert.ok(of('/w/INFRA//x.tf'));
      assert.equal(of('docs/infra.md'), undefined);
      assert.equal(
        approversFor(rules, { toolName: 'bash', input: {}, command: 'ls -la docs --color=auto' }, '/w'),
        undefined,
      );
    });
  });

  it("the starter policy's rules, uncommented, refuse the same way", async () => {
    const starter = POLICY_STARTER.split('\n')
      .filter((line) => /^# (tools:| {2}bash:| {4}deny:)/.test(line))
      .map((line) => line.replace(/^# /, ''))
      .join('\n');
    assert.match(starter, /deny: \["git push\*"/);
    const policy = policyOf(`${starter}\n    allow: ["*"]\napprovals:\n  auto_approve: [bash]\n`);
    for (const command of ['echo push | xargs git', 'alias g=git\ng push', 'git-push origin']) {
      const result = await probe.outcome('bash', { command }, { policy, autoApprove: true });
      assert.equal(result.outcome, 'refused', `${command}: ${result.output}`);
    }
  });
});
