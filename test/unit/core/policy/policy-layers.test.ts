import assert from 'node:assert/strict';
import { parseAgentPolicy, type AgentPolicy } from '../../../../src/core/policy/agent-policy';
import { explainPolicy, layerOf, layerPolicies, type PolicyLayers } from '../../../../src/core/policy/policy-layers';
import { policyOffers, toolPolicyFrom } from '../../../../src/core/policy/policy-rules';

function policyOf(yaml: string): AgentPolicy {
  const { policy, problems } = parseAgentPolicy(yaml);
  assert.deepEqual(problems, []);
  return policy!;
}

const TEAM = policyOf(`
tools:
  allow: [read_file, edit_file, bash, "mcp__github__*"]
  deny: [background_run]
  bash:
    allow: ["npm test", "git *"]
    deny: ["git push*", "curl*"]
approvals:
  require_for: [edit_file]
budget:
  team_daily_usd: 100
  member_daily_usd: 10
  per_conversation_usd: 2
  on_exceeded: block
  on_unreachable: block
sandbox: auto
commands:
  network: false
`);

const call = (toolName: string, command?: string) => ({
  toolName,
  input: command === undefined ? {} : { command },
  readOnly: toolName === 'read_file',
  needsApproval: toolName !== 'read_file',
  ...(command === undefined ? {} : { command }),
});

function rulesOf(layers: PolicyLayers) {
  const policy = layerPolicies(layers);
  const decisions = explainPolicy(layers, policy);
  return {
    policy,
    decisions,
    rules: toolPolicyFrom(
      () => policy,
      (rule) => layerOf(decisions, rule),
    ),
  };
}

describe('policy layers: the team policy under the user and the workspace', () => {
  it('a team deny cannot be lifted by a workspace or user allow, and the refusal names the team policy', () => {
    const workspace = policyOf(`
tools:
  allow: [read_file, edit_file, bash, background_run, write_file]
  deny: []
  bash:
    allow: ["git push origin main", "curl example.com", "npm test"]
    deny: []
approvals:
  require_for: []
  auto_approve: [edit_file, bash]
`);
    const user = policyOf(`tools: { allow: ["*"] }`);
    const { policy, rules } = rulesOf({ team: TEAM, user, workspace });
    assert.equal(policyOffers(policy, 'background_run'), false);
    const refused = rules.evaluate(call('background_run'));
    assert.equal(refused.action, 'deny');
    assert.match((refused as { reason: string }).reason, /tools\.deny of the team policy/);
    // write_file: the workspace allows it, the team's allow list does not.
    assert.equal(policyOffers(policy, 'write_file'), false);
    // A command the team denies stays denied whatever the workspace allows.
    const push = rules.evaluate(call('bash', 'git push origin main'));
    assert.equal(push.action, 'deny');
    assert.match((push as { reason: string }).reason, /bash\.deny "git push\*" in the team policy/);
    assert.equal(rules.evaluate(call('bash', 'curl example.com')).action, 'deny');
    // The team requires approval for edit_file: the workspace's auto-approval does not lift it.
    assert.equal(rules.evaluate(call('edit_file')).action, 'ask');
    // Where the team allows, the workspace's narrower allow still runs without asking.
    assert.equal(rules.evaluate(call('bash', 'npm test')).action, 'allow');
  });

  it('an allow above the team counts only where the team allows: a wider pattern is dropped, a narrower kept', () => {
    const workspace = policyOf(`tools: { allow: ["mcp__*", "mcp__github__issues", read_file] }`);
    const { policy } = rulesOf({ team: TEAM, workspace });
    assert.deepEqual(policy?.tools?.allow, ['mcp__github__issues', 'read_file']);
    assert.equal(policyOffers(policy, 'mcp__slack__post'), false);
    assert.equal(policyOffers(policy, 'mcp__github__issues'), true);
  });

  it('a bash allow above the team is kept only inside the team allow', () => {
    const user = policyOf(`tools: { bash: { allow: ["git status", "make deploy"] } }`);
    const { policy, rules } = rulesOf({ team: TEAM, user });
    assert.deepEqual(policy?.tools?.bash?.allow, ['git status']);
    assert.equal(rules.evaluate(call('bash', 'make deploy')).action, 'ask');
  });

  it('an auto_approve above counts only where the team covers it, once the team says what runs without asking', () => {
    const workspace = policyOf(`approvals: { auto_approve: ["*", read_only, edit_file] }`);
    // TEAM has a bash.allow and no auto_approve: nothing above widens what runs without asking.
    assert.deepEqual(rulesOf({ team: TEAM, workspace }).policy?.approvals?.auto_approve, []);
    const lenient = policyOf(`approvals: { auto_approve: [read_only, "edit_*"] }`);
    assert.deepEqual(rulesOf({ team: lenient, workspace }).policy?.approvals?.auto_approve, ['read_only', 'edit_file']);
    // A team silent about it (budgets only) leaves the layers above as they were.
    const budgetsOnly = policyOf(`budget: { team_daily_usd: 50 }`);
    const above = rulesOf({ team: budgetsOnly, workspace });
    assert.deepEqual(above.policy?.approvals?.auto_approve, ['*', 'read_only', 'edit_file']);
    assert.equal(above.rules.evaluate(call('edit_file')).action, 'allow');
  });

  it('budgets take the lowest limit of every layer; block wins for on_exceeded and on_unreachable', () => {
    const user = policyOf(
      `budget: { member_daily_usd: 25, per_conversation_usd: 1, on_exceeded: warn, on_unreachable: warn }`,
    );
    const workspace = policyOf(`budget: { team_daily_usd: 500, daily_usd: 3 }`);
    const { policy, decisions } = rulesOf({ team: TEAM, user, workspace });
    assert.deepEqual(policy?.budget, {
      team_daily_usd: 100,
      member_daily_usd: 10,
      per_conversation_usd: 1,
      daily_usd: 3,
      on_exceeded: 'block',
      on_unreachable: 'block',
    });
    const by = (rule: string) => decisions.find((decision) => decision.rule === rule)?.layer;
    assert.equal(by('budget.team_daily_usd: 100'), 'team');
    assert.equal(by('budget.member_daily_usd: 10'), 'team');
    assert.equal(by('budget.per_conversation_usd: 1'), 'user');
    assert.equal(by('budget.daily_usd: 3'), 'workspace');
    assert.equal(by('budget.on_exceeded: block'), 'team');
  });

  it('the sandbox and the network: the team can forbid, the layers above cannot loosen', () => {
    const user = policyOf(`{ sandbox: off, commands: { network: true } }`);
    const { policy } = rulesOf({ team: TEAM, user });
    assert.equal(policy?.sandbox, 'auto');
    assert.equal(policy?.commands?.network, undefined);
    const stricter = rulesOf({ team: TEAM, user: policyOf('sandbox: required') }).policy;
    assert.equal(stricter?.sandbox, 'required');
  });

  it('without a team policy the user and workspace merge as before; a team policy alone applies as it is', () => {
    const user = policyOf(`tools: { deny: [bash] }`);
    const workspace = policyOf(`tools: { deny: [write_file] }`);
    assert.deepEqual(layerPolicies({ user, workspace })?.tools?.deny, ['bash', 'write_file']);
    assert.deepEqual(layerPolicies({ team: TEAM }), TEAM);
    assert.equal(layerPolicies({}), undefined);
  });

  it('explains which layer decided each deny, require_for and the sandbox', () => {
    const user = policyOf(`tools: { deny: [write_file, background_run] }`);
    const { decisions } = rulesOf({ team: TEAM, user });
    const by = (rule: string) => decisions.find((decision) => decision.rule === rule)?.layer;
    assert.equal(by('tools.deny "background_run"'), 'team');
    assert.equal(by('tools.deny "write_file"'), 'user');
    assert.equal(by('approvals.require_for "edit_file"'), 'team');
    assert.equal(by('sandbox: auto'), 'team');
  });
});
