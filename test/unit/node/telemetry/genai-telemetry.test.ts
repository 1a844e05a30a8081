/**
 * The OpenTelemetry export, end to end over real HTTP: a realistic event stream goes in, an
 * OTLP/HTTP receiver on a loopback port gets the spans and metrics, and they carry the GenAI
 * semantic conventions' attributes — and no secret, in any attribute, header or body.
 */
import assert from 'node:assert/strict';
import type { AgentEvent, AgentEventBody } from '../../../../src/core/events/events';
import { createGenAiTelemetry, type GenAiTelemetry } from '../../../../src/node/telemetry/genai-telemetry';
import { otlpDestinationFromEnv, parseOtlpHeaders } from '../../../../src/node/telemetry/otlp-config';
import { providerBaseUrl, serverOf } from '../../../../src/node/telemetry/genai-conventions';
import { waitUntil } from '../../../harness/patience';
import { OtlpReceiver, SPAN_KIND, STATUS_ERROR, type ReceivedSpan } from './otlp-receiver';

/** A key in Anthropic's shape, pasted by the model into a command. */
const PLANTED_KEY = 'sk-ant-api03-PLANTEDkeyPLANTEDkey0123456789';
/** A local server's token: it looks like nothing, only the list of known secrets can catch it. */
const KNOWN_SECRET = 'local-token-7f3a9c21e8';
/** The observability backend's key, sent as a header: never inside the data. */
const HEADER_SECRET = 'hdr-secret-value-42';
const USAGE = (input: number, output: number, cacheRead = 0) => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: cacheRead,
  cacheWriteTokens: 0,
});

/** Stamps bodies as a conversation does: one sequence, times that move forward. */
function conversationStream(conversationId: string, startTime: number) {
  let seq = 0;
  let time = startTime;
  return (body: AgentEventBody, options: { after?: number; agentId?: string } = {}): AgentEvent => {
    time += options.after ?? 10;
    return { ...body, conversationId, agentId: options.agentId ?? 'lead', seq: seq++, time } as AgentEvent;
  };
}

describe('OpenTelemetry GenAI export', function () {
  this.timeout(120_000);
  let receiver: OtlpReceiver;
  let telemetry: GenAiTelemetry | undefined;

  beforeEach(async () => {
    receiver = await OtlpReceiver.start();
  });
  afterEach(async () => {
    await telemetry?.shutdown();
    telemetry = undefined;
    await receiver.close();
  });

  function start(): GenAiTelemetry {
    telemetry = createGenAiTelemetry({
      endpoint: `${receiver.url}/`,
      headers: { 'x-backend-key': HEADER_SECRET },
      serviceName: 'openagent',
      serviceVersion: '9.9.9',
      secrets: () => [KNOWN_SECRET, HEADER_SECRET],
      serverUrl: (provider) => providerBaseUrl(provider, { provider: 'ollama' }, {}),
    });
    return telemetry;
  }

  /** A prompt answered with one model call, one tool call, then a model call that fails. */
  function realisticRun(conversationId: string, startTime: number): AgentEvent[] {
    const event = conversationStream(conversationId, startTime);
    return [
      event({ type: 'user_message', text: `use ${KNOWN_SECRET} to deploy` }),
      event({ type: 'model_call', state: 'waiting', provider: 'anthropic', model: 'claude-sonnet-4-6' }),
      event(
        {
          type: 'usage',
          scope: 'call',
          model: 'claude-sonnet-4-6',
          provider: 'anthropic',
          durationMs: 1_200,
          work: 'chat',
          usage: USAGE(1_000, 200, 500),
          costUsd: 0.01,
          reported: true,
        },
        { after: 1_250 },
      ),
      event({
        type: 'tool_call',
        toolCallId: 'call-1',
        toolName: 'bash',
        input: {
          command: `curl -H "x-api-key: ${PLANTED_KEY}" https://deploy.example.com --token ${KNOWN_SECRET}`,
          apiKey: 'plain-looking-value-in-a-secret-field',
        },
      }),
      event({ type: 'tool_approval_result', toolCallId: 'call-1', approved: true, source: 'user' }),
      event(
        {
          type: 'tool_result',
          toolCallId: 'call-1',
          toolName: 'bash',
          output: `deployed with ${KNOWN_SECRET}`,
          isError: false,
          durationMs: 300,
        },
        { after: 310 },
      ),
      event(
        {
          type: 'usage',
          scope: 'call',
          model: 'claude-sonnet-4-6',
          provider: 'anthropic',
          durationMs: 40,
          work: 'chat',
          usage: USAGE(0, 0),
          costUsd: 0,
          reported: true,
          failure: 'server',
        },
        { after: 50 },
      ),
      event({
        type: 'usage',
        scope: 'turn',
        model: 'claude-sonnet-4-6',
        usage: USAGE(1_000, 200, 500),
        costUsd: 0.01,
        reported: true,
      }),
      event({ type: 'error', kind: 'server', message: `500 from the server, which echoed ${PLANTED_KEY}` }),
    ];
  }

  function byName(spans: ReceivedSpan[], name: string): ReceivedSpan[] {
    return spans.filter((span) => span.name === name);
  }

  it('sends model calls, tool calls and the run as GenAI spans, with GenAI metrics', async () => {
    const exporter = start();
    const startTime = Date.now();
    const events = realisticRun('conv-1', startTime);
    for (const event of events) exporter.record(event);
    await exporter.flush();
    await waitUntil(
      () => receiver.spans.length >= 4,
      () => `four spans: ${receiver.spans.map((span) => span.name).join(', ')} ${receiver.exports.length}`,
    );
    await waitUntil(() => receiver.points.length > 0, 'metric points');

    const spans = receiver.spans;
    assert.deepEqual(spans.map((span) => span.name).sort(), [
      'chat claude-sonnet-4-6',
      'chat claude-sonnet-4-6',
      'execute_tool bash',
      'invoke_agent OpenAgent',
    ]);
    const [run] = byName(spans, 'invoke_agent OpenAgent');
    const [answered, failed] = byName(spans, 'chat claude-sonnet-4-6').sort((a, b) =>
      Number(a.startTimeUnixNano - b.startTimeUnixNano),
    );
    const [tool] = byName(spans, 'execute_tool bash');
    assert.ok(run && answered && failed && tool);

    // The resource says who sent it.
    assert.equal(run.resource['service.name'], 'openagent');
    assert.equal(run.resource['service.version'], '9.9.9');

    // The run: the parent of every call, ended by its error.
    assert.equal(run.kind, SPAN_KIND.internal);
    assert.equal(run.parentSpanId, '');
    assert.equal(run.attributes['gen_ai.operation.name'], 'invoke_agent');
    assert.equal(run.attributes['gen_ai.agent.name'], 'OpenAgent');
    assert.equal(run.attributes['gen_ai.conversation.id'], 'conv-1');
    assert.equal(run.attributes['gen_ai.usage.input_tokens'], 1_500);
    assert.equal(run.attributes['error.type'], 'server');
    assert.equal(run.status.code, STATUS_ERROR);
    for (const child of [answered, failed, tool]) {
      assert.equal(child.traceId, run.traceId);
      assert.equal(child.parentSpanId, run.spanId, child.name);
    }
    assert.equal(run.startTimeUnixNano, BigInt(events[0]!.time) * 1_000_000n);
    assert.equal(run.endTimeUnixNano, BigInt(events.at(-1)!.time) * 1_000_000n);

    // A model call: a CLIENT span with the conventions' attributes and the call's own times.
    assert.equal(answered.kind, SPAN_KIND.client);
    assert.deepEqual(
      {
        operation: answered.attributes['gen_ai.operation.name'],
        provider: answered.attributes['gen_ai.provider.name'],
        system: answered.attributes['gen_ai.system'],
        requestModel: answered.attributes['gen_ai.request.model'],
        responseModel: answered.attributes['gen_ai.response.model'],
        input: answered.attributes['gen_ai.usage.input_tokens'],
        output: answered.attributes['gen_ai.usage.output_tokens'],
        cacheRead: answered.attributes['gen_ai.usage.cache_read.input_tokens'],
        conversation: answered.attributes['gen_ai.conversation.id'],
        address: answered.attributes['server.address'],
        port: answered.attributes['server.port'],
      },
      {
        operation: 'chat',
        provider: 'anthropic',
        system: 'anthropic',
        requestModel: 'claude-sonnet-4-6',
        responseModel: 'claude-sonnet-4-6',
        input: 1_500,
        output: 200,
        cacheRead: 500,
        conversation: 'conv-1',
        address: 'api.anthropic.com',
        port: 443,
      },
    );
    assert.equal(answered.attributes['error.type'], undefined);
    assert.notEqual(answered.status.code, STATUS_ERROR);
    assert.equal(answered.endTimeUnixNano, BigInt(events[2]!.time) * 1_000_000n);
    assert.equal(answered.endTimeUnixNano - answered.startTimeUnixNano, 1_200n * 1_000_000n);

    // The failed call says how it failed.
    assert.equal(failed.attributes['error.type'], 'server');
    assert.equal(failed.status.code, STATUS_ERROR);

    // The tool call: its name, id and arguments — redacted.
    assert.equal(tool.kind, SPAN_KIND.internal);
    assert.equal(tool.attributes['gen_ai.operation.name'], 'execute_tool');
    assert.equal(tool.attributes['gen_ai.tool.name'], 'bash');
    assert.equal(tool.attributes['gen_ai.tool.call.id'], 'call-1');
    assert.equal(tool.attributes['openagent.approval.decision'], 'approved');
    assert.equal(tool.endTimeUnixNano - tool.startTimeUnixNano, 300n * 1_000_000n);
    const argumentsText = String(tool.attributes['gen_ai.tool.call.arguments']);
    assert.match(argumentsText, /curl -H/);
    assert.match(argumentsText, /deploy\.example\.com/);
    assert.match(argumentsText, /\[REDACTED\]/);
    assert.doesNotMatch(argumentsText, /plain-looking-value/);

    // Metrics: tokens by type and durations, with the conventions' units and buckets.
    const points = receiver.points;
    const tokens = points.filter((point) => point.metric === 'gen_ai.client.token.usage');
    const input = tokens.find((point) => point.attributes['gen_ai.token.type'] === 'input');
    const output = tokens.find((point) => point.attributes['gen_ai.token.type'] === 'output');
    assert.ok(input && output, JSON.stringify(tokens));
    assert.equal(input.unit, '{token}');
    // The failed call was refused before any token: only the answered call counts.
    assert.deepEqual([input.count, input.sum, output.count, output.sum], [1, 1_500, 1, 200]);
    assert.equal(input.attributes['gen_ai.provider.name'], 'anthropic');
    assert.equal(input.attributes['gen_ai.request.model'], 'claude-sonnet-4-6');
    assert.equal(input.explicitBounds[0], 1);
    const durations = points.filter((point) => point.metric === 'gen_ai.client.operation.duration');
    assert.equal(durations[0]?.unit, 's');
    const ok = durations.find((point) => point.attributes['error.type'] === undefined);
    const error = durations.find((point) => point.attributes['error.type'] === 'server');
    assert.ok(ok && error, JSON.stringify(durations));
    assert.equal(ok.count, 1);
    assert.ok(Math.abs(ok.sum - 1.2) < 1e-9, String(ok.sum));
    assert.equal(error.count, 1);

    // The backend's key travelled as a header, as configured.
    assert.ok(receiver.exports.every((received) => received.headers['x-backend-key'] === HEADER_SECRET));
  });

  it('lets no secret reach the collector, in any attribute or body', async () => {
    const exporter = start();
    for (const event of realisticRun('conv-secret', Date.now())) exporter.record(event);
    await exporter.flush();
    await waitUntil(() => receiver.spans.length >= 4 && receiver.points.length > 0, 'spans and metrics');
    const bodies = receiver.exports.map((received) => received.text).join('\n');
    for (const secret of [PLANTED_KEY, KNOWN_SECRET, HEADER_SECRET, 'plain-looking-value-in-a-secret-field'])
      assert.ok(!bodies.includes(secret), `${secret} reached the collector`);
    // Nor a fragment of the planted key long enough to use.
    assert.ok(!bodies.includes('PLANTEDkeyPLANTEDkey'), 'a piece of the planted key reached the collector');
  });

  it('does not send a reopened conversation again', async () => {
    const exporter = start();
    const now = Date.now();
    // History from before this exporter existed (a conversation reopened from the store).
    for (const event of realisticRun('conv-old', now - 3_600_000)) exporter.record(event);
    // A live run, then the same events replayed (the conversation reopened in this window).
    const live = realisticRun('conv-live', now);
    for (const event of live) exporter.record(event);
    for (const event of live) exporter.record(event);
    await exporter.flush();
    await waitUntil(() => receiver.spans.length >= 4, 'the live spans');
    const spans = receiver.spans;
    assert.equal(spans.length, 4, spans.map((span) => span.name).join(', '));
    assert.ok(spans.every((span) => span.attributes['gen_ai.conversation.id'] === 'conv-live'));
  });

  it('reads the collector from the environment the OpenTelemetry way', () => {
    assert.equal(otlpDestinationFromEnv({}), undefined);
    assert.deepEqual(
      otlpDestinationFromEnv({
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318/',
        OTEL_EXPORTER_OTLP_HEADERS: 'x-key=a%3Db,broken, x-team = blue ',
      }),
      { endpoint: 'http://collector:4318', headers: { 'x-key': 'a=b', 'x-team': 'blue' } },
    );
    assert.equal(
      otlpDestinationFromEnv({
        OPENAGENT_OTLP_ENDPOINT: 'https://mine:4318',
        OTEL_EXPORTER_OTLP_ENDPOINT: 'http://other:4318',
      })?.endpoint,
      'https://mine:4318',
    );
    assert.equal(otlpDestinationFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'file:///tmp/x' }), undefined);
    assert.equal(
      otlpDestinationFromEnv({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://c:4318', OTEL_SDK_DISABLED: 'true' }),
      undefined,
    );
    assert.deepEqual(parseOtlpHeaders(''), {});
  });

  it('knows where each provider answers', () => {
    assert.deepEqual(serverOf(providerBaseUrl('ollama', { provider: 'ollama' }, {})), {
      address: 'localhost',
      port: 11434,
    });
    assert.deepEqual(
      serverOf(
        providerBaseUrl('openai-compatible', { provider: 'openai-compatible', baseUrl: 'http://[::1]:8080/v1' }, {}),
      ),
      { address: '::1', port: 8080 },
    );
    assert.deepEqual(serverOf(providerBaseUrl('vllm', { provider: 'ollama' }, { vllm: 'https://gpu.internal/v1' })), {
      address: 'gpu.internal',
      port: 443,
    });
    assert.equal(serverOf(providerBaseUrl('unknown', { provider: 'ollama' }, {})), undefined);
  });
});
