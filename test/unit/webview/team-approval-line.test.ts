/**
 * A chat tool line whose call waits for a named teammate (issue 37): the words after each step,
 * driven by the events a conversation emits in the order the core emits them.
 */
import assert from 'node:assert/strict';
import type { AgentEvent, AgentEventBody } from '../../../src/core/events/events';
import { RunTracker } from '../../../webview/chat/run-tracker';
import { toolOutcomeText } from '../../../webview/chat/turn-parts';
import type { Turn, TurnBody } from '../../../webview/chat/turns';

const APPROVERS = ['alice@corp', 'team:leads'];
const PUSH = 'git push --force origin main';

class Line {
  readonly turns: Turn[] = [];
  readonly runs = new RunTracker(this.turns, (index) => void this.turns[index]!.version++);
  private seq = 0;

  apply(...bodies: AgentEventBody[]): this {
    for (const body of bodies) {
      const event = { conversationId: 'c1', agentId: 'lead', seq: this.seq++, time: 0, ...body } as AgentEvent;
      if (event.type === 'tool_call') this.runs.toolCall(event, (turn: TurnBody) => this.add(turn));
      else if (event.type === 'team_approval') this.runs.teamEvent(event);
      else if (event.type === 'done' || event.type === 'interrupted') this.runs.end(event);
      else if (
        event.type === 'tool_approval_request' ||
        event.type === 'tool_approval_result' ||
        event.type === 'tool_result'
      )
        this.runs.toolEvent(event);
    }
    return this;
  }

  text(): string {
    const turn = this.turns[0];
    assert.equal(turn?.kind, 'tool');
    return toolOutcomeText(turn.outcome, turn.team);
  }

  private add(body: TurnBody): number {
    this.turns.push({ ...body, version: 0 } as Turn);
    return this.turns.length - 1;
  }
}

const asked: AgentEventBody[] = [
  { type: 'tool_call', toolCallId: 't1', toolName: 'bash', input: { command: PUSH } },
  { type: 'tool_approval_request', toolCallId: 't1', toolName: 'bash', input: { command: PUSH }, summary: PUSH },
];
const team = (state: string, extra: object = {}): AgentEventBody =>
  ({
    type: 'team_approval',
    toolCallId: 't1',
    requestId: 'r1',
    approvers: APPROVERS,
    state,
    ...extra,
  }) as AgentEventBody;
const deadline = Date.UTC(2030, 0, 1, 14, 30);

describe('the chat tool line of a call a named approver decides', () => {
  it('says whom it waits for and until when, in the reader’s clock', () => {
    const line = new Line().apply(...asked, team('waiting', { deadline }));
    const until = new Date(deadline).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
    assert.equal(line.text(), `Waiting for alice@corp, team:leads (until ${until})`);
    assert.equal(line.turns[0]!.kind === 'tool' && line.turns[0]!.team?.state, 'waiting');
  });

  it('keeps the deadline through an outage and says the request stays pending', () => {
    const line = new Line().apply(...asked, team('waiting', { deadline }), team('unreachable', { reason: 'down' }));
    assert.match(line.text(), /^Waiting for alice@corp, team:leads \(until .+\) · the team database does not answer/);
  });

  it('names who approved it, and why, once it ran', () => {
    const line = new Line().apply(
      ...asked,
      team('waiting', { deadline }),
      team('approved', { by: 'alice@corp', reason: 'release day' }),
    );
    assert.equal(line.text(), 'Running… · approved by alice@corp: release day');
    line.apply(
      {
        type: 'tool_approval_result',
        toolCallId: 't1',
        approved: true,
        source: 'user',
        reason: 'approved by alice@corp',
      },
      {
        type: 'tool_result',
        toolCallId: 't1',
        toolName: 'bash',
        output: '(no output)\nExit code 0.',
        isError: false,
        durationMs: 5,
      },
    );
    assert.equal(line.text(), 'Ran · exit code 0 (0 lines of output) · approved by alice@corp: release day');
  });

  it('names who denied it (never "Denied by you")', () => {
    const line = new Line().apply(
      ...asked,
      team('waiting', { deadline }),
      team('denied', { by: 'carol@corp', reason: 'not before the release' }),
      {
        type: 'tool_approval_result',
        toolCallId: 't1',
        approved: false,
        source: 'user',
        reason: 'carol@corp denied it',
      },
    );
    assert.equal(line.text(), 'Denied by carol@corp · not before the release');
  });

  it('says no one answered in time', () => {
    const line = new Line().apply(...asked, team('waiting', { deadline }), team('timed_out'), {
      type: 'tool_approval_result',
      toolCallId: 't1',
      approved: false,
      source: 'timeout',
    });
    assert.equal(line.text(), 'Denied: no answer in time · no answer from alice@corp, team:leads in time');
  });

  it('says the request was withdrawn when Stop ended the run', () => {
    const line = new Line().apply(
      ...asked,
      team('waiting', { deadline }),
      team('withdrawn', { reason: 'the run was stopped' }),
      { type: 'interrupted', reason: 'Stopped by the user.' },
    );
    assert.equal(line.text(), 'Approval request withdrawn · the run was stopped');
  });

  it('reads a refusal before anyone was asked as the policy’s', () => {
    const line = new Line().apply(...asked, team('refused', { reason: 'no team database' }), {
      type: 'tool_approval_result',
      toolCallId: 't1',
      approved: false,
      source: 'policy',
      reason: 'no team database',
    });
    assert.equal(line.text(), 'Refused by policy · no team database');
  });

  it('ignores a sub-agent’s team event and one for an unknown call', () => {
    const line = new Line().apply(...asked, {
      ...team('waiting', { deadline }),
      toolCallId: 'elsewhere',
    } as AgentEventBody);
    assert.equal(line.text(), 'Waiting for your approval');
  });
});
