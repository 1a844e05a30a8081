/**
 * The reviewer program in the agent loop (issue 37), end to end: a session on the fake model
 * server, the tool policy as both hosts wire it (rules + `review` from ProgramReviewer), real
 * reviewer programs, the real bash tool. What the user sees — the tool line's outcome, who was
 * asked — what the audit trail keeps, and the execute_tool span's attributes.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentEvent } from '../../../../src/core/events/events';
import { describeToolOutcome, nextToolOutcome, type ToolOutcome } from '../../../../src/core/events/tool-outcome';
import { parseAgentPolicy } from '../../../../src/core/policy/agent-policy';
import type { ApprovalRequest } from '../../../../src/core/policy/approval';
import { policyOffers, toolPolicyFrom } from '../../../../src/core/policy/policy-rules';
import { createBashTool } from '../../../../src/core/tools/builtin/bash';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { ChildProcessShell } from '../../../../src/node/child-process-shell';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { ProgramReviewer } from '../../../../src/node/reviewer-program';
import { createGenAiTelemetry } from '../../../../src/node/telemetry/genai-telemetry';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { answering, denyingPushes, sleepingForever, type ReviewerProgram } from '../../../fixtures/reviewer-programs';
import { waitUntil } from '../../../harness/patience';
import { OtlpReceiver } from '../../node/telemetry/otlp-receiver';
import { openStore, tempDir } from '../../store/store-helpers';
import { sessionOn } from '../session/session-harness';

type Call = { id: string; name: string; arguments: Record<string, unknown> };

/** Runs one prompt whose model makes `calls`, under `policyText` and `program` as the reviewer. */
async function runWith(
  server: FakeModelServer,
  policyText: string,
  program: ReviewerProgram | undefined,
  calls: Call[],
) {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-reviewed-'));
  server.setScenario({ name: 'reviewed', turns: [{ toolCalls: calls }, { text: 'Done.' }] });
  const policy = parseAgentPolicy(
    program
      ? `${policyText}approvals:\n  reviewer:\n    command: ${JSON.stringify(program.command)}\n    timeout: 2s\n`
      : policyText,
  ).policy;
  assert.ok(policy, 'the policy parses');
  const { store } = await openStore(tempDir());
  const asked: ApprovalRequest[] = [];
  const reviewer = new ProgramReviewer({ setting: () => policy.approvals?.reviewer, cwd: program?.dir ?? root });
  const { session, run, events } = sessionOn(server, {
    store: async () => store,
    clock: { now: () => Date.now() },
    workspaceRoot: () => root,
    workspace: () => new NodeWorkspace(root),
    tools: (workspace) => [...createFileTools(workspace!), createBashTool(new ChildProcessShell(), () => root)],
    // As src/kit/runtime.ts and src/cli/compose.ts wire it.
    toolPolicy: {
      ...toolPolicyFrom(() => policy),
      offers: (name) => policyOffers(policy, name),
      review: reviewer.review,
    },
    approvals: {
      request: async (request) => {
        asked.push(request);
        return { approved: true, source: 'user' };
      },
    },
  });
  await run('Do it.');
  await session.flush();
  const audit = (await store.listAudit({ conversationId: 'c1' }))
    .filter((record) => record.kind === 'tool_call')
    .map((record) => record.data);
  await store.close();
  return { root, events, asked, audit, session };
}

/** Each call's outcome as the chat's tool line shows it. */
function toolLines(events: AgentEvent[]): Map<string, string> {
  const outcomes = new Map<string, ToolOutcome>();
  for (const event of events) {
    if (event.type === 'tool_call') outcomes.set(event.toolCallId, { state: 'running' });
    if (event.type === 'tool_approval_request' || event.type === 'tool_approval_result' || event.type === 'tool_result')
      outcomes.set(event.toolCallId, nextToolOutcome(outcomes.get(event.toolCallId)!, event));
  }
  return new Map(
    [...outcomes].map(([id, outcome]) => {
      const { label, detail } = describeToolOutcome(outcome);
      return [id, detail ? `${label}: ${detail}` : label];
    }),
  );
}

describe('the reviewer program in the agent loop', function () {
  this.timeout(120_000);
  let server: FakeModelServer;
  beforeEach(async () => {
    server = await FakeModelServer.start();
  });
  afterEach(() => server.close());

  it('denies a push policy would have asked about, lets an allowed echo run, and says so everywhere', async () => {
    const receiver = await OtlpReceiver.start();
    const telemetry = createGenAiTelemetry({
      endpoint: `${receiver.url}/`,
      headers: {},
      serviceName: 'openagent',
      serviceVersion: '0.0.0',
      secrets: () => [],
    });
    try {
      const program = denyingPushes();
      const { events, asked, audit } = await runWith(server, 'tools:\n  bash:\n    allow: ["echo*"]\n', program, [
        { id: 'echo', name: 'bash', arguments: { command: 'echo hello' } },
        { id: 'push', name: 'bash', arguments: { command: 'git push origin main' } },
      ]);
      for (const event of events) telemetry.record(event);

      // The chat: the push is denied by the reviewer with its reason; the echo ran.
      const lines = toolLines(events);
      assert.equal(lines.get('push'), 'Denied by the reviewer: pushes need a second person');
      assert.match(lines.get('echo') ?? '', /^Ran/);
      const echoed = events.find((event) => event.type === 'tool_result' && event.toolCallId === 'echo');
      assert.match(echoed?.type === 'tool_result' ? echoed.output : '', /^hello/);
      // No one was asked about the push: the reviewer's deny came first.
      assert.deepEqual(asked, []);
      // The model reads why.
      const pushResult = events.find(
        (event): event is Extract<AgentEvent, { type: 'tool_result' }> =>
          event.type === 'tool_result' && event.toolCallId === 'push',
      );
      assert.equal(pushResult?.output, 'Denied by the reviewer: pushes need a second person');
      assert.match(
        JSON.stringify(server.modelCalls.at(-1)?.body),
        /Denied by the reviewer: pushes need a second person/,
      );
      // It saw our assessment of each call.
      assert.ok(program.pids().length >= 2);

      // The audit trail: who decided and why, and the reviewer's answer on the allowed call too.
      const byCall = new Map(audit.map((data) => [data.toolCallId, data]));
      assert.deepEqual(byCall.get('push')!.approval, {
        approved: false,
        source: 'reviewer',
        rule: 'pushes need a second person',
        reviewer: { decision: 'deny', reason: 'pushes need a second person' },
      });
      assert.deepEqual(byCall.get('echo')!.approval, {
        approved: true,
        source: 'policy',
        rule: 'bash.allow "echo*"',
        reviewer: { decision: 'allow', reason: '' },
      });

      // The execute_tool spans.
      await telemetry.flush();
      await waitUntil(
        () => receiver.spans.filter((span) => span.name === 'execute_tool bash').length >= 2,
        'two execute_tool spans',
      );
      const push = receiver.spans.find(
        (span) => span.name === 'execute_tool bash' && span.attributes['gen_ai.tool.call.id'] === 'push',
      );
      assert.equal(push?.attributes['openagent.approval.decision'], 'denied');
      assert.equal(push?.attributes['openagent.approval.source'], 'reviewer');
      assert.equal(push?.attributes['openagent.reviewer.decision'], 'deny');
      assert.equal(push?.attributes['openagent.reviewer.reason'], 'pushes need a second person');
    } finally {
      await telemetry.shutdown();
      await receiver.close();
    }
  });

  it('a reviewer saying allow on a call our assessment asks about: the user is still asked', async () => {
    const program = answering('allow', 'looks fine');
    const { root, asked, events } = await runWith(server, '', program, [
      { id: 'write', name: 'write_file', arguments: { path: 'notes.txt', content: 'hi' } },
    ]);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.toolCallId, 'write');
    assert.equal(program.seen()?.assessment && (program.seen()!.assessment as { decision: string }).decision, 'ask');
    assert.equal(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8'), 'hi');
    // The session's own folder, whichever host or worktree it runs in.
    assert.equal(program.seen()?.workspace, root);
    const decision = events.find((event) => event.type === 'tool_approval_result');
    assert.equal(decision?.type === 'tool_approval_result' && decision.source, 'user');
  });

  it('a reviewer saying ask on a call policy allows: a person is asked, in person, with its reason', async () => {
    const program = answering('ask', 'an echo? have a look');
    const { asked, events } = await runWith(server, 'tools:\n  bash:\n    allow: ["echo*"]\n', program, [
      { id: 'echo', name: 'bash', arguments: { command: 'echo hello' } },
    ]);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.risk.inPerson, 'the reviewer program asks: an echo? have a look (bash)');
    const request = events.find((event) => event.type === 'tool_approval_request');
    assert.ok(
      request?.type === 'tool_approval_request' &&
        request.reasons?.includes('the reviewer program asks: an echo? have a look (bash)'),
    );
  });

  it('a reviewer that never answers: the call asks, saying it timed out', async () => {
    const program = sleepingForever();
    const { asked, audit } = await runWith(server, 'tools:\n  bash:\n    allow: ["echo*"]\n', program, [
      { id: 'echo', name: 'bash', arguments: { command: 'echo hi' } },
    ]);
    assert.equal(asked.length, 1);
    assert.equal(asked[0]!.risk.inPerson, 'the reviewer program timed out after 2s');
    assert.deepEqual(audit[0]!.approval, {
      approved: true,
      source: 'user',
      reviewer: { decision: 'ask', reason: 'the reviewer program timed out after 2s', failed: true },
    });
  });

  it('a reviewer saying allow never lifts a policy deny (it is not even run)', async () => {
    const program = answering('allow', 'sure');
    const { asked, events } = await runWith(server, 'tools:\n  bash:\n    deny: ["git push*"]\n', program, [
      { id: 'push', name: 'bash', arguments: { command: 'git push origin main' } },
    ]);
    assert.deepEqual(asked, []);
    assert.match(toolLines(events).get('push') ?? '', /^Refused by policy/);
    assert.deepEqual(program.pids(), []);
  });
});
