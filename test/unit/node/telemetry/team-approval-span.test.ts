/** A call a named teammate decided: its execute_tool span says who, and which request. */
import assert from 'node:assert/strict';
import type { AgentEvent, AgentEventBody } from '../../../../src/core/events/events';
import { createGenAiTelemetry, type GenAiTelemetry } from '../../../../src/node/telemetry/genai-telemetry';
import { waitUntil } from '../../../harness/patience';
import { OtlpReceiver } from './otlp-receiver';

describe('OpenTelemetry: team approvals on execute_tool spans', function () {
  this.timeout(120_000);
  let receiver: OtlpReceiver;
  let telemetry: GenAiTelemetry | undefined;

  beforeEach(async () => {
    receiver = await OtlpReceiver.start();
  });
  afterEach(async () => {
    await telemetry?.shutdown();
    await receiver.close();
  });

  it('carries openagent.approval.by, the request and the approvers, and the denial', async () => {
    telemetry = createGenAiTelemetry({
      endpoint: receiver.url,
      headers: {},
      serviceName: 'openagent',
      secrets: () => [],
      serverUrl: () => undefined,
    });
    let seq = 0;
    let time = Date.now();
    const event = (body: AgentEventBody): AgentEvent =>
      ({ ...body, conversationId: 'conv-team', agentId: 'lead', seq: seq++, time: (time += 10) }) as AgentEvent;
    const call = (id: string, state: 'approved' | 'denied', by: string) => [
      event({ type: 'tool_call', toolCallId: id, toolName: 'bash', input: { command: 'git push --force' } }),
      event({
        type: 'team_approval',
        toolCallId: id,
        requestId: `req-${id}`,
        approvers: ['alice@corp', 'team:leads'],
        state: 'waiting',
      }),
      event({
        type: 'team_approval',
        toolCallId: id,
        requestId: `req-${id}`,
        approvers: ['alice@corp', 'team:leads'],
        state,
        by,
        reason: 'why',
      }),
      event({
        type: 'tool_approval_result',
        toolCallId: id,
        approved: state === 'approved',
        source: 'user',
        reason: 'why',
      }),
      event({
        type: 'tool_result',
        toolCallId: id,
        toolName: 'bash',
        output: state === 'approved' ? 'pushed' : 'User denied this tool call.',
        isError: state !== 'approved',
        durationMs: 5,
      }),
    ];
    for (const each of [
      event({ type: 'user_message', text: 'push' }),
      ...call('a', 'approved', 'alice@corp'),
      ...call('b', 'denied', 'carol@corp'),
    ])
      telemetry.record(each);
    await telemetry.flush();
    await waitUntil(
      () => receiver.spans.filter((span) => span.name === 'execute_tool bash').length === 2,
      'two tool spans',
    );
    const spans = receiver.spans.filter((span) => span.name === 'execute_tool bash');
    const approved = spans.find((span) => span.attributes['gen_ai.tool.call.id'] === 'a')!;
    const denied = spans.find((span) => span.attributes['gen_ai.tool.call.id'] === 'b')!;
    assert.equal(approved.attributes['openagent.approval.by'], 'alice@corp');
    assert.equal(approved.attributes['openagent.approval.decision'], 'approved');
    assert.equal(approved.attributes['openagent.approval.source'], 'team_approver');
    assert.equal(approved.attributes['openagent.approval.request_id'], 'req-a');
    assert.equal(approved.attributes['openagent.approval.approvers'], 'alice@corp, team:leads');
    assert.equal(denied.attributes['openagent.approval.by'], 'carol@corp');
    assert.equal(denied.attributes['openagent.approval.decision'], 'denied');
  });
});
