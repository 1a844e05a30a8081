/**
 * `approvals.reviewer` in the policy (issue 37): its schema, and which layer's is in force — the
 * team's, else the user's, never the workspace's (reported, ignored). Our decision can only be
 * tightened by it.
 */
import assert from 'node:assert/strict';
import { parseAgentPolicy, type AgentPolicy } from '../../../../src/core/policy/agent-policy';
import { mergePolicies } from '../../../../src/core/policy/merge-policy';
import { explainPolicy, layerPolicies } from '../../../../src/core/policy/policy-layers';
import { stricterDecision } from '../../../../src/core/policy/reviewer';
import { workspaceReviewerNotice } from '../../../../src/core/policy/reviewer-layers';
import { reviewerTimeoutMs } from '../../../../src/core/policy/reviewer-setting';

function policyOf(yaml: string): AgentPolicy {
  const { policy, problems } = parseAgentPolicy(yaml);
  assert.deepEqual(problems, []);
  return policy!;
}

const USER = policyOf('approvals:\n  reviewer:\n    command: ["/home/bob/bin/review", "--strict"]\n    timeout: 20s\n');
const TEAM = policyOf('approvals:\n  reviewer:\n    command: ["/opt/corp/reviewer"]\n    timeout: 2m\n');
const WORKSPACE = policyOf(
  'approvals:\n  require_for: [write_file]\n  reviewer:\n    command: ["./tools/approve-everything.sh"]\n',
);

describe('approvals.reviewer in the policy', () => {
  it('is a command vector and a timeout', () => {
    assert.deepEqual(USER.approvals?.reviewer, { command: ['/home/bob/bin/review', '--strict'], timeout: '20s' });
    assert.equal(reviewerTimeoutMs(USER.approvals!.reviewer!), 20_000);
    assert.equal(reviewerTimeoutMs(TEAM.approvals!.reviewer!), 120_000);
    assert.equal(reviewerTimeoutMs({ command: ['x'] }), 20_000);
  });

  it('refuses a command line, an empty command, a bad timeout and unknown keys, at their line', () => {
    const cases: Array<[string, RegExp]> = [
      ['command: "review --strict"', /approvals\.reviewer\.command/],
      ['command: []', /approvals\.reviewer\.command/],
      ['command: [x]\n    timeout: 20', /approvals\.reviewer\.timeout/],
      ['command: [x]\n    timeout: "1h"', /a duration up to 10m/],
      ['command: [x]\n    timeout: "11m"', /a duration up to 10m/],
      ['command: [x]\n    shell: true', /shell/],
    ];
    for (const [body, message] of cases) {
      const { policy, problems } = parseAgentPolicy(`approvals:\n  reviewer:\n    ${body}\n`);
      assert.equal(policy, undefined, body);
      assert.match(problems[0]!.message, message, body);
      assert.ok(problems[0]!.line >= 1, `reported at its line: ${body}`);
    }
  });

  it("the workspace's reviewer is ignored, with or without a user policy, and the rest of its approvals kept", () => {
    assert.equal(layerPolicies({ workspace: WORKSPACE })?.approvals?.reviewer, undefined);
    assert.deepEqual(layerPolicies({ workspace: WORKSPACE })?.approvals?.require_for, ['write_file']);
    assert.equal(layerPolicies({ user: USER, workspace: WORKSPACE })?.approvals?.reviewer, USER.approvals?.reviewer);
    assert.equal(
      layerPolicies({ team: TEAM, user: USER, workspace: WORKSPACE })?.approvals?.reviewer,
      TEAM.approvals?.reviewer,
    );
    assert.equal(
      layerPolicies({ team: policyOf('sandbox: auto\n'), workspace: WORKSPACE })?.approvals?.reviewer,
      undefined,
    );
    // The layer's own object is left as it was: it is cached and read again.
    assert.deepEqual(WORKSPACE.approvals?.reviewer, { command: ['./tools/approve-everything.sh'] });
  });

  it("the user's reviewer stays when the workspace says anything about approvals", () => {
    const merged = mergePolicies(USER, policyOf('approvals:\n  auto_approve: [read_only]\n'));
    assert.deepEqual(merged?.approvals, { auto_approve: ['read_only'], reviewer: USER.approvals?.reviewer });
  });

  it("the team's reviewer wins over the user's; the user's counts without one", () => {
    assert.equal(layerPolicies({ team: TEAM, user: USER })?.approvals?.reviewer, TEAM.approvals?.reviewer);
    const teamWithout = policyOf('approvals:\n  require_for: [bash]\n');
    const merged = layerPolicies({ team: teamWithout, user: USER });
    assert.equal(merged?.approvals?.reviewer, USER.approvals?.reviewer);
    assert.deepEqual(merged?.approvals?.require_for, ['bash']);
  });

  it('says which layer chose the reviewer', () => {
    const layers = { team: TEAM, user: USER, workspace: WORKSPACE };
    const decisions = explainPolicy(layers, layerPolicies(layers));
    assert.deepEqual(
      decisions.filter((decision) => decision.rule.startsWith('approvals.reviewer')),
      [{ rule: 'approvals.reviewer: /opt/corp/reviewer', layer: 'team' }],
    );
  });

  it("tells the user the workspace's reviewer is ignored", () => {
    assert.equal(workspaceReviewerNotice(USER, '.openagent/agent.yaml') !== undefined, true);
    assert.equal(workspaceReviewerNotice(undefined, '.openagent/agent.yaml'), undefined);
    assert.equal(workspaceReviewerNotice(policyOf('sandbox: auto\n'), '.openagent/agent.yaml'), undefined);
    assert.match(
      workspaceReviewerNotice(WORKSPACE, '.openagent/agent.yaml')!,
      /^\.openagent\/agent\.yaml names a reviewer program \("\.\/tools\/approve-everything\.sh"\); it is ignored/,
    );
  });

  it('only ever tightens our decision', () => {
    const table: Array<[string, string, string]> = [
      ['allow', 'allow', 'allow'],
      ['allow', 'ask', 'ask'],
      ['allow', 'deny', 'deny'],
      ['ask', 'allow', 'ask'],
      ['ask', 'ask', 'ask'],
      ['ask', 'deny', 'deny'],
      ['deny', 'allow', 'deny'],
      ['deny', 'ask', 'deny'],
    ];
    for (const [ours, reviewer, result] of table)
      assert.equal(stricterDecision(ours as never, reviewer as never), result, `${ours} + ${reviewer}`);
  });
});
