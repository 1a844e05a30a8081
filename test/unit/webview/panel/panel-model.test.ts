import assert from 'node:assert/strict';
import type { AgentEvent, AgentEventBody } from '../../../../src/core/events/events';
import { formatCost, formatDuration, formatJson, formatTime, toolTarget } from '../../../../webview/panel/panel-format';
import { PanelModel } from '../../../../webview/panel/panel-model';

/** Stamps event bodies the way a conversation does. */
function stamper(conversationId = 'c1') {
  let seq = 0;
  return (body: AgentEventBody, agentId = 'lead'): AgentEvent =>
    ({ ...body, conversationId, agentId, seq: seq++, time: 1_700_000_000_000 + seq * 10 }) as AgentEvent;
}

const usage = (input: number, output: number, cacheRead = 0, cacheWrite = 0) => ({
  inputTokens: input,
  outputTokens: output,
  cacheReadTokens: cacheRead,
  cacheWriteTokens: cacheWrite,
});

describe('developer panel model', () => {
  it('builds a tool block from call, approval and result, with its full input', () => {
    const event = stamper();
    const model = new PanelModel();
    const input = { path: 'notes/a.md', content: '# A\n' };
    const changes = model.apply([
      event({ type: 'user_message', text: 'write a note' }),
      event({ type: 'tool_call', toolCallId: 't1', toolName: 'write_file', input }),
    ]);
    assert.equal(changes.tools, true);
    assert.equal(model.running, true);
    let block = model.tool('t1')!;
    assert.deepEqual(block.input, input);
    assert.equal(block.state, 'running');

    model.apply([
      event({
        type: 'tool_approval_request',
        toolCallId: 't1',
        toolName: 'write_file',
        input,
        summary: 'write notes/a.md',
      }),
    ]);
    assert.equal(block.state, 'awaiting_approval');
    assert.deepEqual(block.approvalRequest, { summary: 'write notes/a.md' });
    const revision = block.revision;

    model.apply([
      event({ type: 'tool_approval_result', toolCallId: 't1', approved: true, source: 'session_rule', reason: 'Auto' }),
      event({
        type: 'tool_result',
        toolCallId: 't1',
        toolName: 'write_file',
        output: 'Wrote 4 bytes',
        isError: false,
        durationMs: 12,
      }),
      event({ type: 'done', stopReason: 'end_turn', turns: 2 }),
    ]);
    block = model.tool('t1')!;
    assert.equal(block.state, 'succeeded');
    assert.deepEqual(block.approval, { approved: true, source: 'session_rule', reason: 'Auto' });
    assert.deepEqual(block.result, { output: 'Wrote 4 bytes', isError: false, durationMs: 12 });
    assert.ok(block.revision > revision, 'a changed block has a new revision');
    assert.equal(model.running, false);
  });

  it('marks failed and denied calls, and keeps a block for a result whose call it never saw', () => {
    const event = stamper();
    const model = new PanelModel();
    model.apply([
      event({ type: 'tool_call', toolCallId: 'bad', toolName: 'bash', input: { command: 'false' } }),
      event({
        type: 'tool_result',
        toolCallId: 'bad',
        toolName: 'bash',
        output: 'Exit code 1',
        isError: true,
        durationMs: 5,
      }),
      event({ type: 'tool_call', toolCallId: 'no', toolName: 'write_file', input: { path: 'x' } }),
      event({ type: 'tool_approval_result', toolCallId: 'no', approved: false, source: 'user' }),
      event({
        type: 'tool_result',
        toolCallId: 'no',
        toolName: 'write_file',
        output: 'User denied',
        isError: true,
        durationMs: 1,
      }),
      event({
        type: 'tool_result',
        toolCallId: 'orphan',
        toolName: 'read_file',
        output: 'bad JSON',
        isError: true,
        durationMs: 0,
      }),
    ]);
    assert.equal(model.tool('bad')?.state, 'failed');
    assert.equal(model.tool('no')?.state, 'denied', 'a denied call stays denied after its error result');
    assert.equal(model.tool('orphan')?.toolName, 'read_file');
    assert.deepEqual(
      [...model.tools.values()].map((block) => block.toolCallId),
      ['bad', 'no', 'orphan'],
    );
  });

  it('adds up token usage per turn and in total, the run figures closing each turn', () => {
    const event = stamper();
    const model = new PanelModel();
    model.apply([
      event({
        type: 'usage',
        scope: 'call',
        model: 'm',
        usage: usage(300, 40, 100, 50),
        costUsd: 0.002,
        reported: true,
      }),
    ]);
    assert.equal(model.usageRows.length, 1);
    assert.equal(model.usageRows[0]?.complete, false, 'a turn still running adds up its calls');
    model.apply([
      event({ type: 'usage', scope: 'call', model: 'm', usage: usage(420, 9), costUsd: 0.001, reported: true }),
      event({
        type: 'usage',
        scope: 'turn',
        model: 'm',
        usage: usage(720, 49, 100, 50),
        costUsd: 0.003,
        reported: true,
      }),
      event({ type: 'usage', scope: 'call', model: 'm', usage: usage(10, 5), costUsd: 0, reported: false }),
      event({ type: 'usage', scope: 'turn', model: 'm', usage: usage(10, 5), costUsd: 0, reported: false }),
    ]);
    const [first, second] = model.usageRows;
    assert.deepEqual(
      {
        turn: first?.turn,
        calls: first?.calls,
        input: first?.inputTokens,
        cost: first?.costUsd,
        complete: first?.complete,
      },
      { turn: 1, calls: 2, input: 720, cost: 0.003, complete: true },
    );
    assert.equal(second?.turn, 2);
    assert.equal(second?.reported, false);
    assert.deepEqual(
      { ...model.total, costUsd: Number(model.total.costUsd.toFixed(6)) },
      {
        inputTokens: 730,
        outputTokens: 54,
        cacheReadTokens: 100,
        cacheWriteTokens: 50,
        costUsd: 0.003,
        calls: 3,
        reported: false,
      },
    );
  });

  it('lists every model call with the provider, model and kind of work that served it', () => {
    const event = stamper();
    const model = new PanelModel();
    const call = (model: string, work: string, durationMs: number, provider = 'anthropic') =>
      event({
        type: 'usage',
        scope: 'call',
        model,
        provider,
        work,
        durationMs,
        usage: usage(100, 10),
        costUsd: 0.01,
        reported: true,
      });
    model.apply([
      call('claude-sonnet-4-6', 'chat', 1_200),
      call('qwen3-coder', 'subagent', 3_400, 'ollama'),
      call('claude-haiku-4-5', 'compaction', 800),
      event({
        type: 'usage',
        scope: 'turn',
        model: 'claude-sonnet-4-6',
        usage: usage(300, 30),
        costUsd: 0.03,
        reported: true,
      }),
    ]);
    assert.deepEqual(
      model.calls.map((row) => [row.index, row.work, `${row.provider}/${row.model}`, row.durationMs]),
      [
        [1, 'chat', 'anthropic/claude-sonnet-4-6', 1_200],
        [2, 'subagent', 'ollama/qwen3-coder', 3_400],
        [3, 'compaction', 'anthropic/claude-haiku-4-5', 800],
      ],
    );
    // The turn's row names every model its calls went to.
    assert.equal(model.usageRows[0]?.model, 'claude-sonnet-4-6, qwen3-coder, claude-haiku-4-5');
  });

  it('keeps each agent’s turns apart in the usage rows', () => {
    const event = stamper();
    const model = new PanelModel();
    model.apply([
      event({ type: 'usage', scope: 'call', model: 'm', usage: usage(1, 1), costUsd: 0, reported: true }),
      event({ type: 'usage', scope: 'call', model: 's', usage: usage(2, 2), costUsd: 0, reported: true }, 'sub-1'),
      event({ type: 'usage', scope: 'turn', model: 's', usage: usage(2, 2), costUsd: 0, reported: true }, 'sub-1'),
    ]);
    assert.deepEqual(
      model.usageRows.map((row) => [row.agentId, row.turn, row.complete]),
      [
        ['lead', 1, false],
        ['sub-1', 1, true],
      ],
    );
    assert.equal(model.total.calls, 2);
  });

  it('shows sub-agents with their usage, teammates and the task board from synthetic events', () => {
    const event = stamper();
    const model = new PanelModel();
    model.apply([
      event({ type: 'subagent_start', subagentId: 'sa1', kind: 'explore', description: 'Find the config loader' }),
      event({ type: 'teammate_status', name: 'reviewer', status: 'working' }),
      event({ type: 'task_update', taskId: '1', subject: 'Write tests', status: 'pending' }),
      event({ type: 'task_update', taskId: '2', subject: 'Fix bug', status: 'in_progress', owner: 'reviewer' }),
      event({ type: 'task_update', taskId: '3', subject: 'Old idea', status: 'pending' }),
    ]);
    assert.equal(model.subagents.get('sa1')?.end, undefined);
    const changes = model.apply([
      event({
        type: 'subagent_end',
        subagentId: 'sa1',
        summary: 'It is in src/config.ts',
        usage: usage(1000, 200, 30, 40),
        costUsd: 0.01,
      }),
      event({ type: 'teammate_status', name: 'reviewer', status: 'idle' }),
      event({ type: 'task_update', taskId: '1', subject: 'Write tests', status: 'completed', owner: 'lead' }),
      event({ type: 'task_update', taskId: '3', subject: 'Old idea', status: 'deleted' }),
    ]);
    assert.equal(changes.agents, true);
    const card = model.subagents.get('sa1')!;
    assert.equal(card.kind, 'explore');
    assert.equal(card.end?.summary, 'It is in src/config.ts');
    assert.deepEqual(card.end?.usage, usage(1000, 200, 30, 40));
    assert.equal(model.teammates.get('reviewer')?.status, 'idle');
    const board = model.taskBoard;
    assert.deepEqual(board.pending, []);
    assert.deepEqual(
      board.in_progress.map((task) => [task.subject, task.owner]),
      [['Fix bug', 'reviewer']],
    );
    assert.deepEqual(
      board.completed.map((task) => task.subject),
      ['Write tests'],
    );
    assert.equal(model.tasks.has('3'), false, 'a deleted task leaves the board');
  });

  it('pairs LLM traces by request id, even when ids restart with a new model binding', () => {
    const event = stamper();
    const model = new PanelModel();
    const request = (requestId: string, payload: unknown) =>
      event({ type: 'llm_request', requestId, provider: 'anthropic', model: 'm', payload });
    const response = (requestId: string, payload: unknown) =>
      event({ type: 'llm_response', requestId, provider: 'anthropic', model: 'm', payload, durationMs: 40 });
    model.apply([request('llm-1', { n: 1 }), response('llm-1', { text: 'one' })]);
    model.apply([request('llm-1', { n: 2 })]);
    assert.equal(model.traces[1]?.response, undefined, 'a request waits for its response');
    model.apply([response('llm-1', { text: 'two' }), response('llm-9', { text: 'orphan' })]);
    assert.deepEqual(
      model.traces.map((pair) => [pair.index, pair.request?.payload, pair.response?.payload]),
      [
        [1, { n: 1 }, { text: 'one' }],
        [2, { n: 2 }, { text: 'two' }],
        [3, undefined, { text: 'orphan' }],
      ],
    );
  });

  it('tells the conversation and whether it runs', () => {
    const model = new PanelModel();
    const changes = model.apply([stamper('conv-9')({ type: 'user_message', text: 'hi' })]);
    assert.equal(changes.status, true);
    assert.equal(model.conversationId, 'conv-9');
    assert.equal(model.running, true);
    model.apply([stamper('conv-9')({ type: 'error', kind: 'connection', message: 'down' })]);
    assert.equal(model.running, false);
  });
});

describe('developer panel formatting', () => {
  it('writes costs, durations, times and tool targets for people', () => {
    assert.equal(formatCost(0.0034), '$0.0034');
    assert.equal(formatCost(0.0123), '$0.0123');
    assert.equal(formatCost(1.5), '$1.50');
    assert.equal(formatCost(0), '$0.00');
    assert.equal(formatCost(0.0034, false), '~$0.0034');
    assert.equal(formatDuration(12), '12 ms');
    assert.equal(formatDuration(1530), '1.5 s');
    assert.equal(formatDuration(125_000), '2 min 5 s');
    assert.match(formatTime(Date.UTC(2025, 0, 1, 12, 3, 7, 42)), /^\d\d:03:07\.042$/);
    assert.equal(toolTarget({ command: 'npm test' }), 'npm test');
    assert.equal(toolTarget({ path: 'src/a.ts', content: 'x' }), 'src/a.ts');
    assert.equal(toolTarget('not json'), undefined);
    assert.equal(formatJson({ a: [1] }), '{\n  "a": [\n    1\n  ]\n}');
    assert.equal(formatJson('{"raw": '), '{"raw": ', 'unparsed tool input is shown as it came');
  });
});
