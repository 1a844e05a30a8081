import assert from 'node:assert/strict';
import { describeAuditRecord } from '../../../../webview/panel/audit-format';

const record = (kind: 'model_call' | 'tool_call' | 'budget' | 'policy', data: Record<string, unknown>) => ({
  id: 'r',
  conversationId: 'c1',
  time: 0,
  kind,
  data,
});

describe('audit log wording', () => {
  it('says which model served a call, for what work, with tokens, cost and latency', () => {
    const row = describeAuditRecord(
      record('model_call', {
        agentId: 'lead',
        provider: 'ollama',
        model: 'qwen3-coder',
        work: 'subagent',
        inputTokens: 1200,
        outputTokens: 80,
        costUsd: 0,
        reported: true,
        latencyMs: 2_500,
      }),
    );
    assert.deepEqual(row, {
      agent: 'lead',
      what: 'ollama/qwen3-coder (subagent)',
      decision: '',
      figures: '1,200 in · 80 out · $0.00 · 2.5 s',
    });
  });

  it('says who decided a tool call and by which rule, and how it went', () => {
    const row = describeAuditRecord(
      record('tool_call', {
        agentId: 'sub-4',
        tool: 'bash',
        input: { command: 'npm test' },
        approval: { approved: true, source: 'policy', rule: 'bash.allow "npm test"' },
        isError: false,
        resultChars: 1234,
        durationMs: 900,
      }),
    );
    assert.deepEqual(row, {
      agent: 'sub-4',
      what: 'bash npm test',
      decision: 'approved (policy): bash.allow "npm test"',
      figures: 'ok · 1,234 chars · 900 ms',
    });
    assert.equal(
      describeAuditRecord(record('tool_call', { tool: 'write_file', approval: { approved: false, source: 'user' } }))
        .decision,
      'denied (user)',
    );
  });

  it('words budget records and policy violations, and survives data it does not expect', () => {
    assert.deepEqual(
      describeAuditRecord(
        record('budget', { scope: 'daily', unit: 'usd', spent: 8.1, limit: 10, level: 'warning', action: 'block' }),
      ),
      { agent: 'lead', what: 'daily budget at 80 %', decision: 'block', figures: '$8.10 of $10.00' },
    );
    assert.equal(
      describeAuditRecord(record('policy', { violation: 'rm -rf matches bash.deny' })).decision,
      'rm -rf matches bash.deny',
    );
    assert.doesNotThrow(() => describeAuditRecord(record('tool_call', { approval: 'nonsense', input: 42 })));
  });
});
