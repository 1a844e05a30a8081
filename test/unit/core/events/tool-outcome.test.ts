import assert from 'node:assert/strict';
import type { AgentEvent } from '../../../../src/core/events/events';
import {
  describeToolOutcome,
  endedOutcome,
  failureReason,
  nextToolOutcome,
  resultOutcome,
  resultSummary,
  toolCallTarget,
  type ToolOutcome,
} from '../../../../src/core/events/tool-outcome';

const base = { conversationId: 'c', agentId: 'lead', seq: 1, time: 0, toolCallId: 't1' };
const request = { ...base, type: 'tool_approval_request' as const, toolName: 'bash', input: {}, summary: 's' };
function decision(approved: boolean, source: string, reason?: string): AgentEvent & { type: 'tool_approval_result' } {
  return {
    ...base,
    type: 'tool_approval_result',
    approved,
    source: source as 'user',
    ...(reason ? { reason } : {}),
  };
}
function result(output: string, isError: boolean): AgentEvent & { type: 'tool_result' } {
  return { ...base, type: 'tool_result', toolName: 'bash', output, isError, durationMs: 3 };
}

/** The outcome after the events of one call, in order. */
function outcomeAfter(...events: Parameters<typeof nextToolOutcome>[1][]): ToolOutcome {
  return events.reduce<ToolOutcome>((outcome, event) => nextToolOutcome(outcome, event), { state: 'running' });
}

describe('tool call outcomes from events', () => {
  it('a call approved by the user that ran shows its exit code and how much it printed', () => {
    const outcome = outcomeAfter(request, decision(true, 'user'), result('one\ntwo\nExit code 0.', false));
    assert.deepEqual(outcome, { state: 'ran', summary: 'exit code 0 (2 lines of output)' });
    assert.deepEqual(describeToolOutcome(outcome), { label: 'Ran', detail: 'exit code 0 (2 lines of output)' });
  });

  it('waits for approval after the request, and runs once approved', () => {
    assert.deepEqual(outcomeAfter(request), { state: 'awaiting_approval' });
    assert.deepEqual(outcomeAfter(request, decision(true, 'user')), { state: 'running' });
    assert.equal(describeToolOutcome(outcomeAfter(request)).label, 'Waiting for your approval');
  });

  it('a call the user denied stays denied by the user: the refusal result does not turn it into a failure', () => {
    const outcome = outcomeAfter(
      request,
      decision(false, 'user', 'not now'),
      result('User denied this tool call. Reason: not now', true),
    );
    assert.deepEqual(outcome, { state: 'denied', by: 'user', reason: 'not now' });
    assert.deepEqual(describeToolOutcome(outcome), { label: 'Denied by you', detail: 'not now' });
  });

  it('an unanswered approval is denied by the timeout, not by the user', () => {
    const outcome = outcomeAfter(request, decision(false, 'timeout', 'No answer within 5 minutes.'));
    assert.deepEqual(describeToolOutcome(outcome), {
      label: 'Denied: no answer in time',
      detail: 'No answer within 5 minutes.',
    });
  });

  it('a call refused by policy names the rule as the refusal does', () => {
    const rule = 'bash command "curl x | sh" matches tools.bash.deny "curl*" (.openagent/agent.yaml)';
    const outcome = outcomeAfter(decision(false, 'policy', rule), result(`Denied by policy: ${rule}`, true));
    assert.deepEqual(outcome, { state: 'refused', by: 'policy', reason: rule });
    assert.deepEqual(describeToolOutcome(outcome), { label: 'Refused by policy', detail: rule });
  });

  it('a hook that blocked a call is said to be a hook', () => {
    const outcome = outcomeAfter(decision(false, 'hook', 'no pushes on Fridays'));
    assert.deepEqual(describeToolOutcome(outcome), { label: 'Blocked by a hook', detail: 'no pushes on Fridays' });
  });

  it('a failing command shows its exit code and its last words', () => {
    const outcome = outcomeAfter(
      request,
      decision(true, 'user'),
      result('building\nerror: missing semicolon\n\nExit code 2.', true),
    );
    assert.deepEqual(outcome, { state: 'failed', reason: 'exit code 2: error: missing semicolon' });
  });

  it('a tool that failed (no approval needed) shows the first line of its error', () => {
    assert.deepEqual(outcomeAfter(result('missing.txt does not exist.\nmore', true)), {
      state: 'failed',
      reason: 'missing.txt does not exist.',
    });
  });

  it('a command that timed out says so', () => {
    assert.equal(failureReason('(no output)\nTimed out after 120 s (stopped).'), 'Timed out after 120 s (stopped)');
  });

  it('a call still running or waiting when its run ended did not finish; a settled one keeps its outcome', () => {
    assert.deepEqual(endedOutcome({ state: 'running' }, 'Stopped by the user.'), {
      state: 'not_finished',
      reason: 'Stopped by the user.',
    });
    assert.deepEqual(endedOutcome({ state: 'awaiting_approval' }, 'x').state, 'not_finished');
    const ran: ToolOutcome = { state: 'ran', summary: 'done' };
    assert.equal(endedOutcome(ran, 'x'), ran);
  });

  it('a late or replayed event does not reopen a settled outcome', () => {
    const denied = outcomeAfter(decision(false, 'user'));
    assert.deepEqual(nextToolOutcome(denied, request), denied);
    assert.deepEqual(nextToolOutcome(denied, decision(true, 'user')), denied);
  });

  it('recognises refusals by their words in conversations stored before decisions were kept', () => {
    assert.deepEqual(resultOutcome('User denied this tool call.', true), { state: 'denied', by: 'user' });
    assert.deepEqual(resultOutcome('Denied by policy: tools.deny "bash"', true), {
      state: 'refused',
      by: 'policy',
      reason: 'tools.deny "bash"',
    });
    assert.deepEqual(resultOutcome('Blocked by a hook: nope', true), { state: 'refused', by: 'hook', reason: 'nope' });
  });

  it('summarises results in one line: short text as it is, long output by its size', () => {
    assert.equal(resultSummary('Wrote notes.md (12 bytes).'), 'Wrote notes.md (12 bytes).');
    assert.equal(resultSummary('1\ta\n2\tb\n3\tc'), '3 lines');
    assert.equal(resultSummary('(no output)\nExit code 0.'), 'exit code 0 (0 lines of output)');
    assert.equal(resultSummary(''), 'done');
    assert.equal(resultSummary('x'.repeat(10_000)).length, 160);
  });

  it('shows what a call works on with every hiding character escaped, newlines included', () => {
    assert.equal(toolCallTarget({ command: 'npm test' }), 'npm test');
    assert.equal(toolCallTarget({ pattern: 'TODO', path: 'src' }), 'TODO in src');
    assert.equal(toolCallTarget({ command: 'git status\ncurl x | sh' }), 'git status\\ncurl x | sh');
    assert.equal(toolCallTarget({ command: 'echo ok\rrm -rf ~ \u202e' }), 'echo ok\\rrm -rf ~ \\u202e');
    assert.equal(toolCallTarget({ command: 'x'.repeat(5_000) }).length, 200);
    assert.equal(toolCallTarget(null), '');
    assert.equal(toolCallTarget({ count: 3 }), '');
  });

  it('escapes control characters in results and reasons too', () => {
    assert.equal(resultSummary('\x1b[2Jcleared'), '\\x1b[2Jcleared');
    assert.deepEqual(outcomeAfter(decision(false, 'user', 'fine\r\x1b[31mAPPROVED')), {
      state: 'denied',
      by: 'user',
      reason: 'fine\\r\\x1b[31mAPPROVED',
    });
  });
});
