import assert from 'node:assert/strict';
import { parseAgentPolicy, type AgentPolicy } from '../../../../src/core/policy/agent-policy';
import { approversFor } from '../../../../src/core/policy/approver-rules';
import { layerPolicies } from '../../../../src/core/policy/policy-layers';
import { toolPolicyFrom } from '../../../../src/core/policy/policy-rules';
import { withApproverRules } from '../../../../src/core/team/team-approval-gate';

const policy = (text: string): AgentPolicy => {
  const parsed = parseAgentPolicy(text);
  assert.deepEqual(parsed.problems, []);
  return parsed.policy!;
};

const PUSH_RULE = policy(
  'approvals:\n  approvers:\n    - match: { bash: ["git push*"], paths: ["infra/**"], tools: ["mcp__prod__*"] }\n      by: [alice@corp, team:leads]\n      timeout: 30m\n',
);
const rules = PUSH_RULE.approvals!.approvers;
const ROOT = '/work/repo';

const forCommand = (command: string) => approversFor(rules, { toolName: 'bash', input: { command }, command }, ROOT);

describe('approver rules (approvals.approvers)', () => {
  it('matches a command in any segment of a compound command, behind wrappers, the way bash.deny does', () => {
    for (const command of [
      'git push --force',
      'git status && git push origin main',
      'env GIT_TRACE=1 git push',
      '/usr/bin/git push',
      'sudo git push',
      "bash -c 'git push --force'",
      'echo ok; git  push',
      'git -C . push',
    ])
      assert.ok(forCommand(command), command);
    assert.deepEqual(forCommand('git push')!.approvers, ['alice@corp', 'team:leads']);
    assert.equal(forCommand('git push')!.timeoutMs, 30 * 60_000);
    for (const command of ['git status', 'git pull', 'echo git-push', 'git log --grep push'])
      assert.equal(forCommand(command), undefined, command);
  });

  it('counts a program named only at run time as a match (it cannot be shown not to push)', () => {
    assert.match(forCommand('$(echo git) push')!.matched[0]!, /named only when it runs/);
    assert.ok(forCommand('eval "git push"'));
  });

  it('matches paths normalised and contained, for file tools and for words of commands', () => {
    const write = (target: string) =>
      approversFor(rules, { toolName: 'write_file', input: { path: target, content: 'x' } }, ROOT);
    for (const target of ['infra/main.tf', './infra/prod/db.tf', 'src/../infra/x', '/work/repo/infra/a', 'infra'])
      assert.ok(write(target), target);
    for (const target of ['infrastructure/x', 'src/infra.ts', '../infra/x', '/elsewhere/infra/x'])
      assert.equal(write(target), undefined, target);
    assert.ok(forCommand('rm -rf infra/prod'));
    assert.ok(forCommand('rm -rf infra'));
    assert.ok(forCommand('echo x > ./infra/config'));
    // A real path found by the assessment (a link into infra/) counts too.
    assert.ok(
      approversFor(
        rules,
        { toolName: 'edit_file', input: { path: 'docs/link' }, paths: ['/work/repo/infra/real'] },
        ROOT,
      ),
    );
  });

  it('matches tool names with *', () => {
    assert.ok(approversFor(rules, { toolName: 'mcp__prod__deploy', input: {} }, ROOT));
    assert.equal(approversFor(rules, { toolName: 'mcp__staging__deploy', input: {} }, ROOT), undefined);
  });

  it('puts every matching rule together: all their approvers, the shortest timeout', () => {
    const two = policy(
      'approvals:\n  approvers:\n    - match: { bash: ["git push*"] }\n      by: [alice@corp]\n      timeout: 2h\n    - match: { bash: ["*--force*"] }\n      by: [team:leads, alice@corp]\n      timeout: 90s\n',
    );
    const requirement = approversFor(
      two.approvals!.approvers,
      { toolName: 'bash', input: {}, command: 'git push --force' },
      ROOT,
    );
    assert.deepEqual(requirement?.approvers, ['alice@corp', 'team:leads']);
    assert.equal(requirement?.timeoutMs, 90_000);
  });

  it('reports rules it cannot read, with the place at fault', () => {
    const cases: Array<[string, RegExp]> = [
      ['approvals:\n  approvers:\n    - match: {}\n      by: [alice@corp]\n', /give tools, bash or paths/],
      ['approvals:\n  approvers:\n    - match: { tools: [x] }\n      by: [alice]\n', /approver is a member's e-mail/],
      ['approvals:\n  approvers:\n    - match: { tools: [x] }\n      by: []\n', /approvals\.approvers\.0\.by/],
      [
        'approvals:\n  approvers:\n    - match: { tools: [x] }\n      by: [a@b]\n      timeout: 3d\n',
        /"90s", "30m" or "2h"/,
      ],
      ['approvals:\n  approvers:\n    - match: { tools: [x] }\n      by: [a@b]\n      timeout: 25h\n', /at most a day/],
      ['approvals:\n  on_unreachable: maybe\n', /on_unreachable/],
    ];
    for (const [text, expected] of cases) {
      const parsed = parseAgentPolicy(text);
      assert.equal(parsed.policy, undefined, text);
      assert.match(parsed.problems.map((problem) => problem.message).join('\n'), expected, text);
    }
  });

  it("adds up across layers: a workspace or user policy adds approvers, never removes the team's", () => {
    const workspace = policy('approvals:\n  approvers: []\n  on_unreachable: wait\n  auto_approve: [bash]\n');
    const user = policy('approvals:\n  approvers:\n    - match: { tools: [write_file] }\n      by: [bob@corp]\n');
    const team = policy(
      'approvals:\n  on_unreachable: block\n  approvers:\n    - match: { bash: ["git push*"] }\n      by: [alice@corp]\n',
    );
    const merged = layerPolicies({ team, user, workspace })!;
    assert.deepEqual(
      merged.approvals!.approvers!.map((rule) => rule.by),
      [['alice@corp'], ['bob@corp']],
    );
    assert.equal(merged.approvals!.on_unreachable, 'block');
    const userOnly = layerPolicies({ user, workspace: policy('approvals:\n  require_for: [bash]\n') })!;
    assert.deepEqual(
      userOnly.approvals!.approvers!.map((rule) => rule.by),
      [['bob@corp']],
    );
  });

  it('takes a matching call out of every allow rule, and leaves a denied call denied', () => {
    const rulesPolicy = policy(
      'tools:\n  bash:\n    allow: ["git push*"]\n    deny: ["git push --mirror*"]\napprovals:\n  auto_approve: [bash]\n  approvers:\n    - match: { bash: ["git push*"] }\n      by: [alice@corp]\n',
    );
    const evaluate = withApproverRules(
      toolPolicyFrom(() => rulesPolicy),
      {
        policy: () => rulesPolicy,
        root: () => ROOT,
      },
    ).evaluate;
    const call = (command: string) =>
      evaluate({ toolName: 'bash', input: { command }, readOnly: false, needsApproval: true, command });
    assert.deepEqual(call('git push'), { action: 'ask', inPerson: 'a named approver decides it (alice@corp)' });
    assert.equal(call('git push --mirror x').action, 'deny');
    assert.equal(call('git status').action, 'allow');
  });
});
