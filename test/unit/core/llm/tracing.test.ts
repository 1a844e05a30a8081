import assert from 'node:assert/strict';
import type { AgentEventBody } from '../../../../src/core/events/events';
import { redactText, redactValue } from '../../../../src/core/llm/redact';
import { withTracing } from '../../../../src/core/llm/tracing';
import { PROTOCOLS, startHarness } from '../agent/loop-harness';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { clientFor } from '../agent/loop-harness';
import { baseRequest } from './collect-parts';

describe('tracing', () => {
  for (const protocol of PROTOCOLS) {
    it(`pairs llm_request and llm_response with full payloads, secrets redacted (${protocol})`, async () => {
      const server = await FakeModelServer.start({ scenario: { name: 't', turns: [{ text: 'traced answer' }] } });
      try {
        const emitted: AgentEventBody[] = [];
        const traced = withTracing(clientFor(protocol, server), {
          emit: (body) => emitted.push(body),
          enabled: () => true,
          knownSecrets: () => ['hunter2-password'],
        });
        for await (const _part of traced.stream({
          ...baseRequest,
          system: 'Use key sk-ant-api03-abcdefghijklmnop and hunter2-password.',
        })) {
          // drain
        }
        const [request, response] = emitted;
        assert.equal(request?.type, 'llm_request');
        assert.equal(response?.type, 'llm_response');
        assert.equal(
          request?.type === 'llm_request' && request.requestId,
          response?.type === 'llm_response' && response.requestId,
        );
        const requestText = JSON.stringify(request);
        assert.match(requestText, /Use key \[REDACTED\] and \[REDACTED\]/);
        assert.match(requestText, /"messages"/);
        assert.match(JSON.stringify(response), /traced answer/);
      } finally {
        await server.close();
      }
    });
  }

  it('emits nothing while switched off', async () => {
    const server = await FakeModelServer.start({ scenario: { name: 't', turns: [{ text: 'quiet' }] } });
    try {
      const emitted: AgentEventBody[] = [];
      let on = false;
      const traced = withTracing(clientFor('openai', server), {
        emit: (body) => emitted.push(body),
        enabled: () => on,
      });
      for await (const _part of traced.stream(baseRequest)) on = true;
      assert.deepEqual(emitted, []);
    } finally {
      await server.close();
    }
  });

  it('records a failed call in its response trace', async () => {
    const harness = await startHarness(
      'anthropic',
      { name: 'f', turns: [{ text: 'x', fault: { type: 'http_error', status: 400, message: 'bad thing' } }] },
      { tracing: { enabled: () => true } },
    );
    try {
      await harness.conversation.submit('hi');
      const response = harness.events.find((event) => event.type === 'llm_response');
      assert.match(JSON.stringify(response), /bad thing/);
    } finally {
      await harness.close();
    }
  });
});

describe('redaction', () => {
  it('removes key shapes, bearer tokens and secret-named fields', () => {
    assert.equal(redactText('key sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX end'), 'key [REDACTED] end');
    assert.equal(redactText('Authorization: Bearer abcdefghijklmnop123'), 'Authorization: [REDACTED]');
    assert.deepEqual(
      redactValue({
        headers: { 'x-api-key': 'anything', accept: 'json' },
        list: ['ghp_abcdefghijklmnopqrstuvwxyz012345'],
      }),
      {
        headers: { 'x-api-key': '[REDACTED]', accept: 'json' },
        list: ['[REDACTED]'],
      },
    );
  });
});
