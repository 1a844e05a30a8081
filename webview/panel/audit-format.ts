/**
 * How the Audit Log tab words one audit record (SPEC 4.5): who, what, the decision and by
 * which rule, and the figures. No DOM, so it is unit-tested in Node.
 */
import type { AuditRecordMessage } from '../../src/protocol/messages';
import { formatCost, formatDuration, formatJson, formatTokens, toolTarget } from './panel-format';

export interface AuditRow {
  agent: string;
  what: string;
  decision: string;
  figures: string;
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const number = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

export function describeAuditRecord(record: AuditRecordMessage): AuditRow {
  const data = record.data;
  const agent = text(data.agentId) || 'lead';
  switch (record.kind) {
    case 'model_call': {
      const model = [text(data.provider), text(data.model)].filter(Boolean).join('/');
      const work = text(data.work);
      return {
        agent,
        what: `${model}${work ? ` (${work})` : ''}`,
        decision: '',
        figures: [
          `${formatTokens(number(data.inputTokens))} in`,
          `${formatTokens(number(data.outputTokens))} out`,
          formatCost(number(data.costUsd), data.reported !== false),
          ...(typeof data.latencyMs === 'number' ? [formatDuration(data.latencyMs)] : []),
        ].join(' · '),
      };
    }
    case 'tool_call': {
      const approval = (data.approval ?? {}) as { approved?: unknown; source?: unknown; rule?: unknown };
      const target = toolTarget(data.input);
      const decision = `${approval.approved === false ? 'denied' : 'approved'} (${text(approval.source) || 'unknown'})${text(approval.rule) ? `: ${text(approval.rule)}` : ''}`;
      return {
        agent,
        what: `${text(data.tool)}${target ? ` ${target}` : ''}`,
        decision,
        figures: [
          data.isError === true ? 'error' : 'ok',
          `${formatTokens(number(data.resultChars))} chars`,
          formatDuration(number(data.durationMs)),
        ].join(' · '),
      };
    }
    case 'policy':
      return {
        agent,
        what: `policy violation: ${formatJson(data.input)}`,
        decision: text(data.violation),
        figures: '',
      };
    case 'budget': {
      const unit = data.unit === 'tokens' ? 'tokens' : 'usd';
      const amount = (value: unknown) =>
        unit === 'usd' ? formatCost(number(value)) : `${formatTokens(number(value))} tokens`;
      return {
        agent,
        what: `${text(data.scope)} budget ${data.level === 'exceeded' ? 'reached' : 'at 80 %'}`,
        decision: text(data.action),
        figures: `${amount(data.spent)} of ${amount(data.limit)}`,
      };
    }
  }
}
