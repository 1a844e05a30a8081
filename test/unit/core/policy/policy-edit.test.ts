import assert from 'node:assert/strict';
import { parseAgentPolicy } from '../../../../src/core/policy/agent-policy';
import { setPolicyValue } from '../../../../src/core/policy/policy-edit';
import { POLICY_STARTER } from '../../../../src/core/policy/policy-starter';

describe('setPolicyValue', () => {
  it('changes one budget limit and keeps the comments and the other values', () => {
    const text =
      '# Team policy\nbudget:\n  # dollars per day\n  daily_usd: 10 # agreed in March\n  on_exceeded: block\n';
    const changed = setPolicyValue(text, ['budget', 'daily_usd'], 25);
    assert.equal(
      changed,
      '# Team policy\nbudget:\n  # dollars per day\n  daily_usd: 25 # agreed in March\n  on_exceeded: block\n',
    );
  });

  it('adds the section when the file has none, and the result is a valid policy', () => {
    const changed = setPolicyValue('tools:\n  deny: [background_run]\n', ['budget', 'monthly_tokens'], 2_000_000);
    const { policy, problems } = parseAgentPolicy(changed);
    assert.deepEqual(problems, []);
    assert.deepEqual(policy, { tools: { deny: ['background_run'] }, budget: { monthly_tokens: 2_000_000 } });
  });

  it('works on the commented starter file (only comments)', () => {
    const changed = setPolicyValue(POLICY_STARTER, ['budget', 'daily_usd'], 3);
    assert.ok(changed.startsWith('# OpenAgent policy'));
    assert.deepEqual(parseAgentPolicy(changed).policy, { budget: { daily_usd: 3 } });
  });

  it('refuses a file that does not parse, changing nothing', () => {
    assert.throws(() => setPolicyValue('budget: [unclosed', ['budget', 'daily_usd'], 3), /does not parse/);
  });
});
