/**
 * The CLI exports its run to OpenTelemetry when the environment names a collector
 * (OTEL_EXPORTER_OTLP_ENDPOINT): a real CLI process against the fake model server, an OTLP/HTTP
 * receiver on a loopback port, spans with the GenAI attributes, and no secret among them.
 */
import assert from 'node:assert/strict';
import { FakeModelServer } from '../../fixtures/fake-model-server/server';
import { cliArgs, runCli, tempFolder } from './cli-helpers';
import { TEST_TIMEOUT_MS, waitUntil } from '../../harness/patience';
import { OtlpReceiver, SPAN_KIND, STATUS_ERROR } from '../node/telemetry/otlp-receiver';

const PLANTED_KEY = 'sk-ant-api03-CLIplantedKEYCLIplantedKEY987654';
/** The key the CLI sends the model server: only the list of keys in use can catch it. */
const API_KEY = 'local-server-token-5b1e07';
const HEADER_SECRET = 'cli-backend-key-1234';

describe('openagent CLI: OpenTelemetry export', function () {
  this.timeout(TEST_TIMEOUT_MS);
  let server: FakeModelServer;
  let receiver: OtlpReceiver;

  beforeEach(async () => {
    server = await FakeModelServer.start({
      scenario: {
        name: 'otel',
        turns: [
          {
            toolCalls: [
              {
                id: 'call-think',
                name: 'think',
                arguments: { thought: `deploy with ${PLANTED_KEY}, the server token is ${API_KEY}` },
              },
            ],
            usage: { input: 120, output: 30 },
          },
          { text: 'Deployed.', usage: { input: 200, output: 10 } },
        ],
      },
    });
    receiver = await OtlpReceiver.start();
  });
  afterEach(async () => {
    await receiver.close();
    server.close();
  });

  it('sends the run, its model calls and its tool call as GenAI spans, without secrets', async () => {
    const ran = await runCli([...cliArgs(server, tempFolder('store')), '--yes', 'deploy it'], {
      cwd: tempFolder('ws'),
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_HEADERS: `x-backend-key=${HEADER_SECRET}`,
        OPENAGENT_API_KEY: API_KEY,
      },
    });
    assert.equal(ran.code, 0, ran.stderr);
    await waitUntil(
      () => receiver.spans.length >= 4,
      () => `four spans, got: ${receiver.spans.map((span) => span.name).join(', ')}`,
    );
    const spans = receiver.spans;
    const names = spans.map((span) => span.name).sort();
    assert.deepEqual(names, ['chat fake-model', 'chat fake-model', 'execute_tool think', 'invoke_agent OpenAgent']);
    const run = spans.find((span) => span.name === 'invoke_agent OpenAgent')!;
    const chats = spans.filter((span) => span.name === 'chat fake-model');
    const tool = spans.find((span) => span.name === 'execute_tool think')!;
    assert.equal(run.resource['service.name'], 'openagent-cli');
    assert.equal(run.attributes['openagent.turn.outcome'], 'done');
    assert.deepEqual(run.attributes['gen_ai.response.finish_reasons'], ['end_turn']);
    for (const chat of chats) {
      assert.equal(chat.kind, SPAN_KIND.client);
      assert.equal(chat.parentSpanId, run.spanId);
      assert.equal(chat.attributes['gen_ai.operation.name'], 'chat');
      assert.equal(chat.attributes['gen_ai.provider.name'], 'openai-compatible');
      assert.equal(chat.attributes['gen_ai.request.model'], 'fake-model');
      assert.equal(chat.attributes['server.address'], '127.0.0.1');
      assert.equal(chat.attributes['server.port'], Number(new URL(server.openAiBaseUrl).port));
    }
    assert.deepEqual(chats.map((chat) => chat.attributes['gen_ai.usage.input_tokens']).sort(), [120, 200]);
    assert.deepEqual(chats.map((chat) => chat.attributes['gen_ai.usage.output_tokens']).sort(), [10, 30]);
    assert.equal(tool.parentSpanId, run.spanId);
    assert.equal(tool.attributes['gen_ai.tool.call.id'], 'call-think');
    assert.match(String(tool.attributes['gen_ai.tool.call.arguments']), /deploy with \[REDACTED\]/);

    // Metrics were sent at exit too.
    const tokens = receiver.points.filter((point) => point.metric === 'gen_ai.client.token.usage');
    const input = tokens.find((point) => point.attributes['gen_ai.token.type'] === 'input');
    assert.equal(input?.sum, 320, JSON.stringify(tokens));

    for (const secret of [PLANTED_KEY, API_KEY, HEADER_SECRET])
      assert.ok(!receiver.exports.some((received) => received.text.includes(secret)), `${secret} was exported`);
    assert.ok(receiver.exports.every((received) => received.headers['x-backend-key'] === HEADER_SECRET));
  });

  it('marks a refused model call and its run as failed', async () => {
    server.setScenario({
      name: 'refused',
      turns: [{ fault: { type: 'http_error', status: 400, message: 'bad request' }, text: 'unused' }],
    });
    const ran = await runCli([...cliArgs(server, tempFolder('store')), 'hello'], {
      cwd: tempFolder('ws'),
      env: { OPENAGENT_OTLP_ENDPOINT: receiver.url },
    });
    assert.notEqual(ran.code, 0);
    await waitUntil(() => receiver.spans.length >= 2, 'the run and the call');
    const chat = receiver.spans.find((span) => span.name === 'chat fake-model');
    const run = receiver.spans.find((span) => span.name === 'invoke_agent OpenAgent');
    assert.equal(chat?.attributes['error.type'], 'bad_request');
    assert.equal(chat?.status.code, STATUS_ERROR);
    assert.equal(run?.attributes['error.type'], 'bad_request');
    const durations = receiver.points.filter((point) => point.metric === 'gen_ai.client.operation.duration');
    assert.equal(durations[0]?.attributes['error.type'], 'bad_request');
  });
});
