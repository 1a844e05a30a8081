/**
 * A deny rule (and a named approver's `bash` rule) sees a command however it is spelled, so
 * what cannot be shown not to match counts as matching: words decided only at run time (`git
 * $(echo push)`, `git "$X"`, `git pu$X`, `git p*`, brace expansions), whichever options come
 * before them, and git told to run something else under another name (`git -c alias.p=push p`,
 * `GIT_CONFIG_*`, a subcommand git does not have). Every call goes through the real executor
 * with auto-approve on and an allow-everything rule, so only the deny rules stand between the
 * call and running; approver rules through approversFor. Allow rules stay strict.
 */
import assert from 'node:assert/strict';
import { RiskProbe, denyOnly, bashApprovers, approversOfCommand, policyOf } from '../fixtures/call-risk';
import { TEST_TIMEOUT_MS } from '../harness/patience';

const DENY = denyOnly(['git push*', 'npm publish*', 'rm -rf*']);

const APPROVERS = bashApprovers(['git push*']);

/** Run-time words that may make the command a push (or a publish, or `rm -rf`). */
const RUN_TIME_WORDS = [
  'git $(echo push) origin',
  'git "$(echo push)" origin',
  'git "$X" origin',
  'X=push; git $X',
  'X=push; git ${X} origin main',
  'git `echo push`',
  'git pu$X origin',
  'git "pu"$X',
  'git p* origin',
  'git pus? origin',
  'git {push,x} origin',
  'git -C . "$SUB"',
  'git -C . -c a=b --no-pager $SUB origin',
  'git --git-dir=.git $(printf push)',
  'git -C "$D" "$SUB"',
  'sudo git "$X" origin',
  'env -i git $X',
  '/usr/bin/git "$X"',
  'echo ok && git $X',
  'npm pu$X',
  'npm --prefix . "$CMD"',
  'rm $FLAGS build',
  'rm -r "$X" build',
  'find . -exec git p* {} +',
  'f(){ git $(echo push); }; f',
  'f(){ git "$X" origin; }; f',
  '(git `echo push`)',
];
/** Git told to run something else under another name. */
const GIT_ALIASES = [
  'git -c alias.p=push p',
  "git -c alias.p='!git push' p origin",
  'git -c ALIAS.p=push p',
  'git --config-env=alias.p=HOME p',
  'git --config-env alias.p=HOME p',
  'git -C . -c alias.p=push p',
  'GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push git p',
  "GIT_CONFIG_PARAMETERS=\"'alias.p'='push'\" git p",
  'env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push git p',
  'export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push; git p',
  'git config alias.p push && git p origin',
  'git p origin',
  'git svn dcommit',
  'git --exec-path=. mergetool',
  'GIT_EXEC_PATH=. git mergetool',
  'git -c include.path=.x status',
  'f(){ git -c alias.p=push p; }; f',
];
/** Near the rules, not what they deny: run-time words that cannot make them match. */
const NOT_REFUSED = [
  'git status $(cat f)',
  'git checkout "$BRANCH"',
  'git -C "$D" status',
  'git -C $D log --oneline',
  'git log "$RANGE"',
  'git commit -m "$MSG"',
  'git add *.ts',
  'git diff HEAD~1 -- $(git ls-files src)',
  'echo $(date)',
  'npm test -- "$X"',
  'npm run "$SCRIPT"',
  'ls $D',
  'cat *.md',
  'git status',
  'git mergetool',
  'git -c user.name=x commit -m ok',
  'f(){ git status "$X"; }; f',
];

describe('adversarial: deny and approver rules see words decided at run time and git aliases', function () {
  this.timeout(TEST_TIMEOUT_MS);
  const probe = new RiskProbe();
  const run = (command: string) => probe.outcome('bash', { command }, { policy: DENY, autoApprove: true });
  const approvers = (command: string) => approversOfCommand(APPROVERS, command);

  for (const [group, commands] of [
    ['words decided only at run time', RUN_TIME_WORDS],
    ['git aliases and subcommands git does not have', GIT_ALIASES],
  ] as const) {
    describe(group, () => {
      for (const command of commands) {
        it(`${JSON.stringify(command)}: refused by bash.deny, never run nor asked`, async () => {
          const result = await run(command);
          assert.equal(result.outcome, 'refused', result.output);
          assert.match(result.output, /bash\.deny/);
        });
        if (!/npm|rm /.test(command))
          it(`${JSON.stringify(command)}: needs the named approver`, () => {
            const requirement = approvers(command);
            assert.deepEqual(requirement?.approvers, ['alice@corp'], command);
            assert.match(requirement.matched.join(), /git push\*/);
          });
      }
    });
  }

  it('says why: the word decided at run time, or the alias, and the rule it may match', async () => {
    const word = await run('git -C . "$SUB" origin');
    assert.match(word.output, /`\$SUB` is decided only at run time and may make it match "git push\*"/);
    const alias = await run('git -c alias.p=push p');
    assert.match(alias.output, /defines a git alias/);
    assert.match(approvers('git p origin')?.matched.join() ?? '', /not one of git's own commands/);
  });

  describe('run-time words that cannot make a rule match are not refused, nor need the approver', () => {
    for (const command of NOT_REFUSED) {
      it(`${JSON.stringify(command)}`, async () => {
        // Asked is fine (a path decided at run time asks anyway); refused by a deny rule is not.
        const result = await run(command);
        assert.notEqual(result.outcome, 'refused', result.output);
        assert.equal(approvers(command), undefined, command);
      });
    }
  });

  it('allow rules stay strict: `git status*` never allows what runs after or inside it', () => {
    const allowing = policyOf('tools:\n  bash:\n    allow: ["git status*"]\n');
    const verdict = (command: string) =>
      allowing.evaluate({ toolName: 'bash', input: { command }, command, readOnly: false, needsApproval: true });
    assert.equal(verdict('git status --short').action, 'allow');
    for (const command of [
      'git status $(touch PROOF)',
      'git status "$(touch PROOF)"',
      'git status `touch PROOF`',
      'git status; touch PROOF',
      'git status && touch PROOF',
      'git status | sh',
      'git status > PROOF',
      'git status <(touch PROOF)',
      'X=$(touch PROOF) git status',
      'f(){ touch PROOF; }; git status',
    ])
      assert.notEqual(verdict(command).action, 'allow', command);
  });

  it('rules and commands built to be costly are checked in bounded time', () => {
    const rule = `git ${'p*'.repeat(400)}`;
    const hostile = policyOf(
      `tools:\n  bash:\n    deny:\n${Array.from({ length: 50 }, () => `      - "${rule}"`).join('\n')}\n`,
    );
    const started = Date.now();
    for (const command of [
      `git ${'-c a=b '.repeat(2_000)}"$X"`,
      `git ${'pp'.repeat(5_000)}$X`,
      `git ${'--x '.repeat(3_000)}p`,
    ]) {
      const verdict = hostile.evaluate({
        toolName: 'bash',
        input: { command },
        command,
        readOnly: false,
        needsApproval: true,
      });
      assert.notEqual(verdict.action, 'allow');
    }
    assert.ok(Date.now() - started < 20_000, `took ${Date.now() - started} ms`);
  });
});
