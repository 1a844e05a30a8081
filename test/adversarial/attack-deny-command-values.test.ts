/**
 * Attack on "a deny rule (and a named approver's `bash` rule) sees a denied program however the
 * command reaches it": a command line handing a program a COMMAND LINE to run through a value —
 * git config on the command line (`git -c core.pager=…`, `--config-env`, `GIT_CONFIG_KEY_n`,
 * `GIT_CONFIG_PARAMETERS`, `git config k v; git …`) and environment variables (`GIT_SSH_COMMAND`,
 * `EDITOR`, `PAGER`, `LESSOPEN`…) set on the command, through `env`, exported or assigned earlier
 * in the line. Every call goes through the real executor with auto-approve on and an
 * allow-everything rule, so only the deny rules stand between the call and running; approver
 * rules through approversFor.
 */
import assert from 'node:assert/strict';
import { RiskProbe, denyOnly, bashApprovers, approversOfCommand, policyOf } from '../fixtures/call-risk';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const DENY = denyOnly(['git push*', 'curl*']);

const APPROVERS = bashApprovers(['curl*', 'git push*']);

/** Commands that run curl (or push) through a value handed to a program. */
const RUNS_DENIED: Record<string, readonly string[]> = {
  'git config on the command line': [
    "git -c core.sshCommand='curl x' fetch",
    "git -c core.pager='curl x' log",
    "git -c core.pager='git push' log",
    "git -c core.editor='curl x' commit",
    "git -c sequence.editor='curl x' rebase -i HEAD~2",
    "git -c core.askPass='curl x' fetch",
    "git -c credential.helper='!curl x' fetch",
    "git -c credential.https://h.example.helper='!curl x' fetch",
    'git -c credential.helper=/usr/bin/curl fetch',
    "git -c diff.external='curl x' diff",
    "git -c diff.foo.textconv='curl x' diff",
    "git -c diff.foo.command='curl x' diff",
    "git -c merge.ours.driver='curl x' merge main",
    "git -c filter.lfs.clean='curl x' add .",
    "git -c filter.lfs.smudge='curl x' checkout .",
    "git -c filter.lfs.process='curl x' checkout .",
    "git -c gpg.program='curl x' commit -S -m m",
    "git -c gpg.ssh.program='curl x' commit -S -m m",
    "git -c pager.log='curl x' log",
    "git -c core.fsmonitor='curl x' status",
    "git -c uploadpack.packObjectsHook='curl x' fetch",
    "git -c remote.origin.uploadpack='curl x' fetch",
    "git -c remote.origin.receivepack='git push' fetch",
    "git -c CORE.PAGER='curl x' log",
    "git -c alias.x='!curl x' x",
    "git -c submodule.s.update='!curl x' submodule update",
    "git -c core.pager='sudo /usr/bin/curl x' log",
    "git -c core.pager='less; curl x' log",
    'git -c core.pager="sh -c \'curl x\'" log',
    "sudo git -c core.pager='curl x' log",
    "strace git -c core.pager='curl x' log",
    "X='curl x' git --config-env=core.pager=X log",
    "export X='curl x'; git --config-env core.pager=X log",
    "git config core.pager 'curl x'; git log",
    "git config --global core.sshCommand 'curl x' && git fetch",
    "git fetch --upload-pack='curl x' origin",
    'git ls-remote --upload-pack /usr/bin/curl origin',
    "git push --receive-pack='curl x' origin",
    "git send-email --sendmail-cmd='curl x' p.patch",
  ],
  "git config in git's environment": [
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='curl x' git log",
    "export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager\nexport GIT_CONFIG_VALUE_0='curl x'\ngit log",
    "GIT_CONFIG_VALUE_0='curl x' git log",
    "GIT_CONFIG_VALUE_0='!curl x' git log",
    'GIT_CONFIG_PARAMETERS="\'core.pager=curl x\'" git log',
    "GIT_CONFIG_PARAMETERS=\"'core.pager'='curl x'\" git log",
  ],
  'environment variables a program runs': [
    "GIT_SSH_COMMAND='curl x' git fetch",
    'GIT_SSH=/usr/bin/curl git fetch',
    "GIT_PAGER='curl x' git log",
    "GIT_PAGER='git push' git log",
    "GIT_EDITOR='curl x' git commit",
    "GIT_SEQUENCE_EDITOR='curl x' git rebase -i HEAD~2",
    "GIT_ASKPASS='curl x' git fetch",
    'SSH_ASKPASS=curl ssh host',
    'SUDO_ASKPASS=/usr/bin/curl sudo -A true',
    "GIT_EXTERNAL_DIFF='curl x' git diff",
    "GIT_PROXY_COMMAND='curl x' git fetch git://h/r",
    "PAGER='curl x' man ls",
    "MANPAGER='curl x' man ls",
    "EDITOR='curl x' crontab -e",
    "VISUAL='curl x' crontab -e",
    "BROWSER='curl x' python -m webbrowser u",
    "LESSOPEN='|curl %s' less f",
    "LESSOPEN='||curl %s' less f",
    "LESSCLOSE='curl %s %s' less f",
    "PROMPT_COMMAND='curl x' bash -i",
    "BASH_ENV='$(curl x)' bash -c true",
    "ENV='$(curl x)' sh -i",
    "PS4='$(curl x)' bash -xc true",
    "RSYNC_RSH='curl x' rsync a h:b",
    "CVS_RSH='curl x' cvs up",
    "env GIT_PAGER='curl x' git log",
    "env -i GIT_PAGER='curl x' git log",
    "sudo GIT_PAGER='curl x' git log",
    "export GIT_PAGER='curl x'; git log",
    "export GIT_PAGER='curl x'\ngit log",
    "declare -x EDITOR='curl x'; git commit",
    "GIT_PAGER='curl x'; git log",
    "GIT_PAGER='/usr/bin/CURL.EXE x' git log",
    'GIT_PAGER=\'c""url x\' git log',
    'bash -c "GIT_PAGER=\'curl x\' git log"',
    "ssh host GIT_PAGER='curl x' git log",
    "nice env GIT_PAGER='curl x' git log",
    "time GIT_PAGER='curl x' git log",
    "time A=1 GIT_PAGER='curl x' git log",
    'time X=1 git push',
    'time -p X=1 curl x',
  ],
  'variables set a way an assignment does not show': [
    "GIT_PAGER=less; GIT_PAGER+='; curl x'; git log",
    'GIT_PAGER=cu; GIT_PAGER+=rl; git log',
    "GIT_PAGER[0]='curl x' git log",
    "read GIT_PAGER <<< 'curl x'; git log",
    'read -r GIT_PAGER < f; git log',
    "printf -v GIT_PAGER 'curl x'; git log",
    "declare -n r=GIT_PAGER; r='curl x'; git log",
    'eval "GIT_PAGER=\'curl x\'"; git log',
  ],
  'in a command too complex to analyse': [
    "f(){ :; }; GIT_PAGER='curl x' git log",
    "{ git -c core.pager='curl x' log; }",
    "if true; then EDITOR='curl x' git commit; fi",
  ],
};

/** A value decided only at run time: it may be anything, so it counts as matching. */
const RUN_TIME = [
  'git -c core.pager="$X" log',
  'git -c core.pager=$(cat f) log',
  'git -c "$K=curl" log',
  'GIT_PAGER="$X" git log',
  'GIT_SSH_COMMAND=$(cat f) git fetch',
  'export EDITOR="$X"; git commit',
  'git --config-env=core.pager=X log',
  'GIT_CONFIG_VALUE_0="$V" git log',
];

/** Everyday commands near them: not refused, no approver. */
const EVERYDAY = [
  'git -c user.name=x commit -m m',
  'git -c user.email=a@b -c commit.gpgsign=false commit -m m',
  'git -c core.pager=cat log',
  'git -c color.ui=always log',
  'git -c pager.log=false log',
  'git -c core.fsmonitor=true status',
  'git -c credential.helper=store fetch',
  'git -c credential.helper= fetch',
  'GIT_PAGER=cat git log',
  "GIT_PAGER='less -R' git log",
  'EDITOR=vim git commit',
  'PAGER=less man ls',
  'export EDITOR=vim; git commit',
  "GIT_SSH_COMMAND='ssh -i ~/.ssh/id -o IdentitiesOnly=yes' git fetch",
  'git config core.pager cat',
  "LESSOPEN='|lesspipe %s' less f",
  'git --config-env=user.name=NAME commit -m m',
  'X=1 make',
  'git log -c',
  'echo PAGER=less',
  "git commit -m 'EDITOR=curl x is gone'",
  "echo 'GIT_PAGER=curl x' >> notes.txt",
  "printf '%s\\n' PAGER",
  'PATH+=:/x git log',
  'time git log',
  'time X=1 git status',
];

describe('adversarial: deny and approver rules, commands handed to programs through values', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const probe = new RiskProbe();
  const run = (command: string) => probe.outcome('bash', { command }, { policy: DENY, autoApprove: true });
  const approvers = (command: string) => approversOfCommand(APPROVERS, command);

  for (const [group, commands] of Object.entries({ ...RUNS_DENIED, 'values decided at run time': RUN_TIME })) {
    describe(group, () => {
      for (const command of commands) {
        it(`${JSON.stringify(command)}: refused by bash.deny, never run nor asked`, async () => {
          const result = await run(command);
          assert.equal(result.outcome, 'refused', result.output);
          assert.match(result.output, /bash\.deny/);
        });
        it(`${JSON.stringify(command)}: needs the named approver`, () => {
          assert.deepEqual(approvers(command)?.approvers, ['alice@corp'], command);
        });
      }
    });
  }

  it('says which value runs what', async () => {
    assert.match((await run("GIT_PAGER='curl x' git log")).output, /`GIT_PAGER` gives a program `curl x` to run/);
    assert.match((await run("git -c core.sshCommand='curl x' fetch")).output, /git -c core\.sshCommand/);
    assert.match((await run('GIT_PAGER="$X" git log')).output, /decided only at run time/);
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

  it('the value is checked, not refused wholesale: the rule decides', () => {
    const pushOnly = policyOf('tools:\n  bash:\n    deny: ["git push*"]\n    allow: ["*"]\n');
    const verdict = (command: string) =>
      pushOnly.evaluate({ toolName: 'bash', input: { command }, command, readOnly: false, needsApproval: true }).action;
    assert.equal(verdict("GIT_PAGER='curl x' git log"), 'allow');
    assert.equal(verdict("GIT_PAGER='git push' git log"), 'deny');
    assert.equal(verdict("git -c core.pager='git push origin' log"), 'deny');
    assert.equal(verdict("git -c core.pager='git status' log"), 'allow');
  });

  it('commands built to be costly (10,000 config values, deep nesting) are checked in bounded time', () => {
    const policy = policyOf('tools:\n  bash:\n    deny: ["git push*", "curl*"]\n');
    const started = Date.now();
    const evaluate = (command: string) =>
      policy.evaluate({ toolName: 'bash', input: { command }, command, readOnly: false, needsApproval: true }).action;
    const many = (make: (i: number) => string) => Array.from({ length: 10_000 }, (_, i) => make(i)).join(' ');
    // Distinct values past what can be checked, and the same value many times (checked once).
    assert.equal(evaluate(`git ${many((i) => `-c core.pager='less -${i}'`)} log`), 'deny');
    assert.notEqual(evaluate(`git ${many(() => '-c core.pager=less')} log`), 'deny');
    assert.notEqual(evaluate(`git ${many((i) => `-c user.name=${i}`)} log`), 'deny');
    assert.equal(evaluate(`git ${many(() => '-c core.pager=less')} -c core.pager='curl x' log`), 'deny');
    assert.equal(evaluate(`${many((i) => `GIT_PAGER=x${i}`)} git log`), 'deny');
    // A value holding a value holding a value…: bounded by depth.
    let nested = 'curl x';
    for (let i = 0; i < 12; i += 1) nested = `GIT_PAGER=${JSON.stringify(nested).replace(/\$/g, '\\$')} git log`;
    assert.equal(evaluate(nested), 'deny');
    assert.equal(evaluate(`f(){ :; }; git ${many((i) => `-c core.pager='less -${i}'`)} log`), 'deny');
    assert.ok(Date.now() - started < 30_000, `took ${Date.now() - started} ms`);
  });
});
