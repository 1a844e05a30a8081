import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { parseAgentPolicy } from '../../../../src/core/policy/agent-policy';
import { POLICY_STARTER } from '../../../../src/core/policy/policy-starter';
import { SCHEMA_FILE, schemaText } from '../../../harness/write-schemas';

const SPEC_EXAMPLE = `model_policy:
  default: anthropic/claude-sonnet-4-5
  routes:
    - { match: { task: compaction }, model: anthropic/claude-haiku-4-5 }
    - { match: { task: subagent }, model: ollama/qwen3-coder }
tools:
  allow: [read_file, edit_file, bash, mcp__github__*]
  deny: [background_run]
  bash: { allow: ["npm test", "git status"], deny: ["git push*", "rm -rf*"] }
approvals: { require_for: [edit_file, bash, "mcp__*"], auto_approve: [read_only] }
budget: { per_conversation_usd: 2, daily_usd: 10, monthly_usd: 50, on_exceeded: block }
memory: { scope: workspace }
`;

describe('.openagent/agent.yaml (policy as code)', () => {
  it('accepts the example of SPEC 4.3', () => {
    const { policy, problems } = parseAgentPolicy(SPEC_EXAMPLE);
    assert.deepEqual(problems, []);
    assert.equal(policy?.model_policy?.routes?.[1]?.model, 'ollama/qwen3-coder');
    assert.deepEqual(policy?.tools?.bash?.deny, ['git push*', 'rm -rf*']);
    assert.equal(policy?.budget?.on_exceeded, 'block');
  });

  it('reports each problem at the line and column of the value at fault, and applies nothing', () => {
    const text = [
      'model_policy:',
      '  default: claude', // 1: not provider/model
      'tools:',
      '  deny: background_run', // 3: not a list
      'budget:',
      '  daily_usd: -5', // 5: not positive
      '  on_exceeded: explode', // 6: not block/warn
      'approvals:',
      '  auto_aprove: [read_only]', // 8: misspelt key
    ].join('\n');
    const { policy, problems } = parseAgentPolicy(text);
    assert.equal(policy, undefined, 'a policy with errors is not applied');
    const byLine = problems.map((problem) => [problem.line, problem.column, problem.message.split(':')[0]]);
    assert.deepEqual(byLine.sort(), [
      [1, 11, 'model_policy.default'],
      [3, 8, 'tools.deny'],
      [5, 13, 'budget.daily_usd'],
      [6, 15, 'budget.on_exceeded'],
      [8, 2, 'approvals.auto_aprove'],
    ]);
    assert.match(problems.find((problem) => problem.line === 1)!.message, /"provider\/model"/);
  });

  it('reports YAML syntax errors where they are', () => {
    const { policy, problems } = parseAgentPolicy('tools:\n  allow: [read_file\n');
    assert.equal(policy, undefined);
    assert.ok(problems.length > 0);
    assert.ok(
      problems.every((problem) => problem.line >= 1),
      JSON.stringify(problems),
    );
  });

  it('takes an empty file and the commented starter as "no rules"', () => {
    assert.deepEqual(parseAgentPolicy(''), { policy: {}, problems: [] });
    assert.deepEqual(parseAgentPolicy(POLICY_STARTER).problems, []);
    // The starter's commented example, uncommented, is a valid policy too.
    const example = POLICY_STARTER.split('\n')
      .filter((line) => line.startsWith('# ') && !line.startsWith('# #'))
      .map((line) => line.slice(2))
      .filter((line) => /^[a-z_]+:|^ {2}/.test(line))
      .join('\n');
    assert.deepEqual(parseAgentPolicy(example).problems, [], example);
    assert.ok(parseAgentPolicy(example).policy?.tools?.bash?.deny?.length);
  });

  it('ships the JSON Schema generated from the same zod schema (npm run schemas)', () => {
    assert.equal(fs.readFileSync(SCHEMA_FILE, 'utf8'), schemaText(), 'schemas/ is stale: run npm run schemas');
  });
});
