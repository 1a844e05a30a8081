/**
 * Attacks on the layering of approver rules (issue 37): a workspace (a repository's
 * `.openagent/agent.yaml`) or the user's own policy trying to loosen the team's named approvers:
 * a rule naming another approver for the guarded call, `approvers: []`, `approvals: null`, an
 * `on_unreachable` flip, a timeout of 0, negative or past a day.
 */
import assert from 'node:assert/strict';
import { parseAgentPolicy, type AgentPolicy } from '../../src/core/policy/agent-policy';
import { approversFor } from '../../src/core/policy/approver-rules';
import { layerPolicies } from '../../src/core/policy/policy-layers';

const TEAM = parseAgentPolicy(
  'approvals:\n  on_unreachable: block\n  approvers:\n    - match: { bash: ["git push*"] }\n      by: [alice@corp]\n      timeout: 30m\n',
).policy!;

const push = (policy: AgentPolicy | undefined) =>
  approversFor(policy?.approvals?.approvers, { toolName: 'bash', input: {}, command: 'git push --force' }, '/w');

describe('attack: layers loosening the team approvers', () => {
  it('never lets a workspace or user rule name someone else to approve what the team guards', () => {
    const widening = parseAgentPolicy(
      'approvals:\n  approvers:\n    - match: { bash: ["*"] }\n      by: [mallory@corp]\n',
    ).policy!;
    for (const layers of [{ workspace: widening }, { user: widening }, { user: widening, workspace: widening }]) {
      const requirement = push(layerPolicies({ team: TEAM, ...layers }));
      assert.deepEqual(requirement?.approvers, ['alice@corp'], JSON.stringify(Object.keys(layers)));
    }
    // Its own calls the workspace's rule still guards, with its own approver.
    const other = approversFor(
      layerPolicies({ team: TEAM, workspace: widening })?.approvals?.approvers,
      { toolName: 'bash', input: {}, command: 'npm publish' },
      '/w',
    );
    assert.deepEqual(other?.approvers, ['mallory@corp']);
    // Under the user's policy (no team), the user's approvers decide over the workspace's.
    const user = parseAgentPolicy(
      'approvals:\n  approvers:\n    - match: { bash: ["git push*"] }\n      by: [lead@corp]\n',
    ).policy!;
    assert.deepEqual(push(layerPolicies({ user, workspace: widening }))?.approvers, ['lead@corp']);
  });

  it('holds: empty or null approvals, an on_unreachable flip, timeouts of 0, negative or huge', () => {
    const holds = [
      'approvals:\n  approvers: []\n  on_unreachable: wait\n',
      'approvals: null\n',
      'approvals:\n  approvers: null\n',
      'approvals:\n  approvers:\n    - match: { bash: ["git push*"] }\n      by: [alice@corp]\n      timeout: 0s\n',
      'approvals:\n  approvers:\n    - match: { bash: ["git push*"] }\n      by: [alice@corp]\n      timeout: -5m\n',
      'approvals:\n  approvers:\n    - match: { bash: ["git push*"] }\n      by: [alice@corp]\n      timeout: 999999h\n',
      'approvals:\n  approvers:\n    - match: { bash: ["git push*"] }\n      by: []\n',
    ];
    for (const text of holds) {
      const merged = layerPolicies({ team: TEAM, workspace: parseAgentPolicy(text).policy });
      const requirement = push(merged);
      assert.deepEqual(requirement?.approvers, ['alice@corp'], text);
      assert.equal(requirement?.timeoutMs, 30 * 60_000, text);
      assert.equal(merged?.approvals?.on_unreachable, 'block', text);
    }
  });
});
