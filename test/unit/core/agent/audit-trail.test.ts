/**
 * The audit trail (SPEC 4.5) of a scripted run, read back from the store: every model call
 * (provider, model, tokens, cost, latency), every tool call of the lead and of its sub-agent
 * (redacted arguments, the approval decision and by what rule, result size, duration, error),
 * the policy violation and the budget warning — and no secret anywhere in it.
 */
import assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseAgentPolicy } from '../../../../src/core/policy/agent-policy';
import { BudgetGuard } from '../../../../src/core/policy/budget';
import { toolPolicyFrom } from '../../../../src/core/policy/policy-rules';
import { createBashTool } from '../../../../src/core/tools/builtin/bash';
import { createFileTools } from '../../../../src/core/tools/builtin/file-tools';
import { ChildProcessShell } from '../../../../src/node/child-process-shell';
import { NodeWorkspace } from '../../../../src/node/node-workspace';
import { auditToCsv, auditToJsonl } from '../../../../src/store/conversation-export';
import { FakeModelServer } from '../../../fixtures/fake-model-server/server';
import { openStore, tempDir } from '../../store/store-helpers';
import { sessionOn } from '../session/session-harness';

/** Not key-shaped: only knowing it is the key in use can keep it out. */
const LOCAL_TOKEN = 'local-token-4f9a2c7e';
const SHAPED_KEY = 'sk-ant-api03-abcdefghijklmnopqrstuvwxyz012345';

describe('audit trail', () => {
  let server: FakeModelServer;
  beforeEach(async () => {
    server = await FakeModelServer.start();
  });
  afterEach(() => server.close());

  it('records every model call, tool call and approval decision of a run, with secrets redacted', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-audit-'));
    fs.writeFileSync(path.join(root, 'config.txt'), 'mode=fast\n');
    const usage = { input: 10_000, output: 1_000 };
    server.setScenario({
      name: 'audited',
      turns: [
        {
          toolCalls: [
            // Allowed by bash.allow without asking; the key in use is in its arguments.
            { id: 'echo', name: 'bash', arguments: { command: `echo ${LOCAL_TOKEN}` } },
            // Denied by bash.deny: a policy violation.
            { id: 'push', name: 'bash', arguments: { command: 'echo ok && git push origin main' } },
            // Asks: the user approves; a key-shaped secret is in the content.
            { id: 'write', name: 'write_file', arguments: { path: 'notes.txt', content: `KEY=${SHAPED_KEY}\n` } },
            // Asks: the user denies.
            { id: 'remove', name: 'write_file', arguments: { path: 'config.txt', content: '' } },
            {
              id: 'sub',
              name: 'task',
              arguments: { kind: 'explore', description: 'Read config', prompt: 'Read config.txt.' },
            },
          ],
          usage,
        },
        // The sub-agent reads a file (read-only: no one asked) and answers.
        { toolCalls: [{ id: 'read', name: 'read_file', arguments: { path: 'config.txt' } }], usage },
        { text: 'mode=fast', usage },
        { text: 'Done.', usage },
      ],
    });
    const directory = tempDir();
    const { store } = await openStore(directory);
    const policy = parseAgentPolicy(
      'tools:\n  bash:\n    allow: ["echo*"]\n    deny: ["git push*"]\nbudget:\n  per_conversation_tokens: 55000\n',
    ).policy;
    const { session, run, events } = sessionOn(server, {
      store: async () => store,
      secrets: { getApiKey: async () => LOCAL_TOKEN },
      readSettings: () => ({ provider: 'anthropic', model: 'claude-sonnet-4-6', baseUrl: server.anthropicBaseUrl }),
      clock: { now: () => Date.now() },
      workspace: () => new NodeWorkspace(root),
      tools: (workspace) => [...createFileTools(workspace!), createBashTool(new ChildProcessShell(), () => root)],
      toolPolicy: { ...toolPolicyFrom(() => policy), offers: () => true },
      budget: new BudgetGuard({ policy: () => policy?.budget, now: () => Date.now() }),
      approvals: {
        request: async (request) =>
          request.toolCallId === 'remove'
            ? { approved: false, source: 'user', reason: 'Keep the config.' }
            : { approved: true, source: 'user' },
      },
    });
    const errors = () => events.filter((event) => event.type === 'error');
    await Promise.race([
      run('Do the audited things.'),
      new Promise((_, reject) =>
        session.onEvent((event) => event.type === 'error' && reject(new Error(event.message))),
      ),
    ]);
    assert.deepEqual(errors(), []);
    await session.flush();
    const records = await store.listAudit({ conversationId: 'c1' });

    // Four model calls: lead, sub-agent twice, lead; with who, what work, tokens, cost and latency.
    const models = records.filter((record) => record.kind === 'model_call').map((record) => record.data);
    assert.deepEqual(
      models.map((data) => [data.agentId, data.provider, data.model, data.work, data.inputTokens, data.outputTokens]),
      [
        ['lead', 'anthropic', 'claude-sonnet-4-6', 'chat', 10_000, 1_000],
        ['lead', 'anthropic', 'claude-sonnet-4-6', 'subagent', 10_000, 1_000],
        ['lead', 'anthropic', 'claude-sonnet-4-6', 'subagent', 10_000, 1_000],
        ['lead', 'anthropic', 'claude-sonnet-4-6', 'chat', 10_000, 1_000],
      ],
    );
    assert.ok(models.every((data) => data.costUsd === 0.045 && typeof data.latencyMs === 'number'));

    // Every tool call, the sub-agent's included, with its decision and the rule behind it.
    const tools = records.filter((record) => record.kind === 'tool_call').map((record) => record.data);
    const byCall = new Map(tools.map((data) => [data.toolCallId, data]));
    assert.deepEqual([...byCall.keys()].sort(), ['echo', 'push', 'read', 'remove', 'sub', 'write']);
    assert.deepEqual(byCall.get('echo')!.approval, { approved: true, source: 'policy', rule: 'bash.allow "echo*"' });
    assert.deepEqual(byCall.get('push')!.approval, {
      approved: false,
      source: 'policy',
      rule: '`git push origin main` matches bash.deny "git push*" in .openagent/agent.yaml.',
    });
    assert.equal(byCall.get('push')!.isError, true);
    assert.match(String(byCall.get('push')!.error), /^Denied by policy/);
    assert.deepEqual(byCall.get('write')!.approval, { approved: true, source: 'user' });
    assert.deepEqual(byCall.get('remove')!.approval, { approved: false, source: 'user', rule: 'Keep the config.' });
    assert.deepEqual(byCall.get('read')!.approval, { approved: true, source: 'read_only' });
    assert.match(String(byCall.get('read')!.agentId), /^sub-/);
    for (const data of tools) {
      assert.equal(typeof data.durationMs, 'number');
      assert.equal(typeof data.resultChars, 'number');
    }

    // The policy violation on its own, and the budget's 80 % warning (44,000 of 55,000 tokens).
    const violations = records.filter((record) => record.kind === 'policy');
    assert.equal(violations.length, 1);
    assert.equal(violations[0]!.data.toolCallId, 'push');
    const budgets = records.filter((record) => record.kind === 'budget').map((record) => record.data);
    assert.deepEqual(
      budgets.map((data) => [data.level, data.scope, data.unit, data.spent]),
      [['warning', 'conversation', 'tokens', 44_000]],
    );

    // No secret in the trail, its exports, or anywhere in the store file.
    assert.match(JSON.stringify(byCall.get('echo')!.input), /\[REDACTED\]/);
    assert.match(JSON.stringify(byCall.get('write')!.input), /\[REDACTED\]/);
    for (const text of [JSON.stringify(records), auditToJsonl(records), auditToCsv(records)]) {
      assert.ok(!text.includes(LOCAL_TOKEN) && !text.includes(SHAPED_KEY));
    }
    await store.close();
    for (const file of fs.readdirSync(directory)) {
      const bytes = fs.readFileSync(path.join(directory, file));
      if (!fs.statSync(path.join(directory, file)).isFile()) continue;
      assert.ok(!bytes.includes(LOCAL_TOKEN) && !bytes.includes(SHAPED_KEY), `a secret in ${file}`);
    }
  });
  it("records a tool call read from the model's text like any other, saying so", async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'openagent-audit-'));
    server.setScenario({
      name: 'text-call',
      turns: [
        // A local server left the call in the text, its JSON in single quotes.
        { text: "<tool_call>{'name': 'write_file', 'arguments': {'path': 'notes.txt', 'content': 'hi'}}</tool_call>" },
        { text: 'Written.' },
      ],
    });
    const { store } = await openStore(tempDir());
    const asked: string[] = [];
    const { session, run } = sessionOn(server, {
      store: async () => store,
      readSettings: () => ({ provider: 'openai-compatible', model: 'qwen', baseUrl: server.openAiBaseUrl }),
      workspace: () => new NodeWorkspace(root),
      tools: (workspace) => createFileTools(workspace!),
      approvals: {
        request: async (request) => {
          asked.push(request.summary);
          return { approved: true, source: 'user' };
        },
      },
    });
    await run('Write notes.');
    await session.flush();
    assert.equal(fs.readFileSync(path.join(root, 'notes.txt'), 'utf8'), 'hi');
    assert.equal(asked.length, 1);
    const records = await store.listAudit({ conversationId: 'c1' });
    const [call] = records.filter((record) => record.kind === 'tool_call').map((record) => record.data);
    assert.equal(call?.tool, 'write_file');
    assert.deepEqual(call?.approval, { approved: true, source: 'user' });
    assert.deepEqual(call?.fromText, { format: 'tool_call_tag', repaired: true });
  });
});
