/**
 * The chat's model of how runs ended (webview/chat/run-tracker.ts), fed the events a
 * conversation emits (or replays when reopened): tool lines with their outcomes, the mark on an
 * answer cut off, and each error's own Retry.
 */
import assert from 'node:assert/strict';
import type { AgentEvent, AgentEventBody } from '../../../src/core/events/events';
import { CLOSED_MID_RUN } from '../../../src/core/session/run-ends';
import { RunTracker } from '../../../webview/chat/run-tracker';
import { fixesFor } from '../../../webview/chat/error-fixes';
import { retryButtonState, toolOutcomeText } from '../../../webview/chat/turn-parts';
import type { Turn, TurnBody } from '../../../webview/chat/turns';

/** A transcript driven the way chat-view.ts drives it: the turns, and which of them changed. */
class Transcript {
  readonly turns: Turn[] = [];
  readonly touched = new Set<number>();
  readonly runs = new RunTracker(this.turns, (index) => {
    this.turns[index]!.version++;
    this.touched.add(index);
  });
  private seq = 0;
  private answer: number | undefined;

  add(body: TurnBody): number {
    this.turns.push({ ...body, version: 0 } as Turn);
    return this.turns.length - 1;
  }

  apply(...bodies: AgentEventBody[]): AgentEvent[] {
    const events = bodies.map(
      (body) => ({ conversationId: 'c1', agentId: 'lead', seq: this.seq++, time: 0, ...body }) as AgentEvent,
    );
    for (const event of events) this.one(event);
    return events;
  }

  one(event: AgentEvent): void {
    switch (event.type) {
      case 'user_message':
        this.answer = undefined;
        if (this.runs.prompt(event)) this.add({ kind: 'user', text: event.text });
        break;
      case 'text_delta':
        if (this.answer === undefined) {
          this.answer = this.add({ kind: 'assistant', text: '' });
          this.runs.answer(this.answer);
        }
        (this.turns[this.answer] as { text: string }).text += event.text;
        break;
      case 'tool_call':
        this.answer = undefined;
        if (event.agentId === 'lead') this.runs.toolCall(event, (body) => this.add(body));
        break;
      case 'tool_approval_request':
      case 'tool_approval_result':
      case 'tool_result':
        this.runs.toolEvent(event);
        break;
      case 'interrupted':
        this.answer = undefined;
        if (!this.runs.end(event)) this.add({ kind: 'status', text: event.reason });
        break;
      case 'error':
        this.answer = undefined;
        this.runs.end(event);
        this.runs.errorAdded(this.add(this.runs.errorTurn(event, fixesFor(event.kind))));
        break;
      case 'done':
        this.answer = undefined;
        this.runs.end(event);
        break;
      default:
        break;
    }
  }

  /** Each turn in words, as a reader would skim it. */
  lines(): string[] {
    return this.turns.map((turn) => {
      switch (turn.kind) {
        case 'tool':
          return `tool ${turn.name} ${turn.target} → ${toolOutcomeText(turn.outcome)}`;
        case 'assistant':
          return `answer ${turn.text}${turn.cut ? ` [${turn.cut.label} · ${turn.cut.reason}]` : ''}`;
        case 'error':
          return `error ${turn.text}${turn.retry ? ` [${retryButtonState(turn.retry.state).label}${retryButtonState(turn.retry.state).disabled ? ' (disabled)' : ''}]` : ''}`;
        case 'user':
        case 'status':
          return `${turn.kind} ${turn.text}`;
        default:
          return turn.kind;
      }
    });
  }
}

const call = (id: string, toolName: string, input: unknown): AgentEventBody => ({
  type: 'tool_call',
  toolCallId: id,
  toolName,
  input,
});
const decided = (id: string, approved: boolean, source: string, reason?: string): AgentEventBody =>
  ({ type: 'tool_approval_result', toolCallId: id, approved, source, ...(reason ? { reason } : {}) }) as AgentEventBody;
const asked = (id: string, toolName: string): AgentEventBody => ({
  type: 'tool_approval_request',
  toolCallId: id,
  toolName,
  input: {},
  summary: toolName,
});
const result = (id: string, toolName: string, output: string, isError = false): AgentEventBody => ({
  type: 'tool_result',
  toolCallId: id,
  toolName,
  output,
  isError,
  durationMs: 1,
});
const done = (stopReason = 'end_turn'): AgentEventBody => ({ type: 'done', stopReason, turns: 1 });

describe('the chat model of how runs end', () => {
  it('shows each tool line with its own outcome: ran, denied by you, refused by policy, failed', () => {
    const chat = new Transcript();
    const rule = 'bash command "rm -rf build" matches tools.bash.deny "rm -rf*" (.openagent/agent.yaml)';
    chat.apply(
      { type: 'user_message', text: 'tidy up' },
      call('w1', 'write_file', { path: 'notes/a.md', content: 'x' }),
      asked('w1', 'write_file'),
      decided('w1', true, 'user'),
      result('w1', 'write_file', 'Wrote notes/a.md (1 bytes).'),
      call('w2', 'write_file', { path: 'notes/b.md', content: 'y' }),
      asked('w2', 'write_file'),
      decided('w2', false, 'user'),
      result('w2', 'write_file', 'User denied this tool call.', true),
      call('b1', 'bash', { command: 'rm -rf build' }),
      decided('b1', false, 'policy', rule),
      result('b1', 'bash', `Denied by policy: ${rule}`, true),
      call('r1', 'read_file', { path: 'missing.txt' }),
      result('r1', 'read_file', 'missing.txt does not exist.', true),
      { type: 'text_delta', text: 'Done.' },
      done(),
    );
    assert.deepEqual(chat.lines(), [
      'user tidy up',
      'tool write_file notes/a.md → Ran · Wrote notes/a.md (1 bytes).',
      'tool write_file notes/b.md → Denied by you',
      `tool bash rm -rf build → Refused by policy · ${rule}`,
      'tool read_file missing.txt → Failed · missing.txt does not exist.',
      'answer Done.',
    ]);
  });

  it('shows a call waiting for approval, then running, as it happens', () => {
    const chat = new Transcript();
    chat.apply({ type: 'user_message', text: 'go' }, call('b1', 'bash', { command: 'npm test' }), asked('b1', 'bash'));
    assert.equal(chat.lines()[1], 'tool bash npm test → Waiting for your approval');
    chat.touched.clear();
    chat.apply(decided('b1', true, 'user'));
    assert.equal(chat.lines()[1], 'tool bash npm test → Running…');
    assert.deepEqual([...chat.touched], [1], 'only the line that changed is re-rendered');
  });

  it("ignores a sub-agent's events for a call id the lead also used", () => {
    const chat = new Transcript();
    chat.apply({ type: 'user_message', text: 'go' }, call('t1', 'read_file', { path: 'a' }));
    const [subagent] = [{ ...result('t1', 'read_file', 'boom', true) }];
    chat.one({ conversationId: 'c1', agentId: 'sub-1', seq: 99, time: 0, ...subagent } as AgentEvent);
    assert.equal(chat.lines()[1], 'tool read_file a → Running…');
  });

  it('marks an answer stopped by the user, and a call the stop cut short, instead of a bare status line', () => {
    const chat = new Transcript();
    chat.apply(
      { type: 'user_message', text: 'tell a story' },
      { type: 'text_delta', text: 'Once upon a' },
      { type: 'interrupted', reason: 'Stopped by the user.' },
    );
    assert.deepEqual(chat.lines(), ['user tell a story', 'answer Once upon a [Interrupted · Stopped by the user.]']);

    chat.apply(
      { type: 'user_message', text: 'run it' },
      call('b1', 'bash', { command: 'sleep 100' }),
      decided('b1', true, 'user'),
      { type: 'interrupted', reason: 'Stopped by the user.' },
    );
    assert.equal(chat.lines().at(-1), 'tool bash sleep 100 → Did not finish · Stopped by the user.');
  });

  it('keeps the status line when a run stopped before anything was shown', () => {
    const chat = new Transcript();
    chat.apply({ type: 'user_message', text: 'hi' }, { type: 'interrupted', reason: 'Stopped by the user.' });
    assert.deepEqual(chat.lines(), ['user hi', 'status Stopped by the user.']);
  });

  it('marks a redirected answer, an answer cut by the output limit and one cut by an error', () => {
    const chat = new Transcript();
    chat.apply(
      { type: 'user_message', text: 'explain' },
      { type: 'text_delta', text: 'First' },
      { type: 'interrupted', reason: 'Redirected by the user.', feedback: 'shorter' },
      { type: 'user_message', text: 'shorter' },
      { type: 'text_delta', text: 'A long' },
      done('max_tokens'),
      { type: 'user_message', text: 'again' },
      { type: 'text_delta', text: 'Half' },
      { type: 'error', message: 'The stream broke.', kind: 'stream' },
    );
    assert.deepEqual(chat.lines(), [
      'user explain',
      'answer First [Interrupted · Redirected by the user.]',
      'user shorter',
      'answer A long [Cut off · The answer reached the output limit (max output tokens).]',
      'user again',
      'answer Half [Interrupted · An error ended the run (below).]',
      'error The stream broke. [Retry]',
    ]);
  });

  it('does not mark an answer when the run went on to a tool call after it, nor a complete one', () => {
    const chat = new Transcript();
    chat.apply(
      { type: 'user_message', text: 'look' },
      { type: 'text_delta', text: 'Let me look.' },
      call('r1', 'read_file', { path: 'a' }),
      { type: 'interrupted', reason: 'Stopped by the user.' },
      { type: 'user_message', text: 'ok' },
      { type: 'text_delta', text: 'All done.' },
      done('end_turn'),
    );
    assert.deepEqual(chat.lines(), [
      'user look',
      'answer Let me look.',
      'tool read_file a → Did not finish · Stopped by the user.',
      'user ok',
      'answer All done.',
    ]);
  });

  it('marks a run the window closed on (as a reopened conversation replays it)', () => {
    const chat = new Transcript();
    chat.apply(
      { type: 'user_message', text: 'write it' },
      { type: 'text_delta', text: 'The first half of' },
      { type: 'interrupted', reason: CLOSED_MID_RUN },
    );
    assert.equal(chat.lines().at(-1), `answer The first half of [Interrupted · ${CLOSED_MID_RUN}]`);
  });

  it('ties Retry to its error: a retried prompt is shown once, and the Retry reads "Retried"', () => {
    const chat = new Transcript();
    const [, error] = chat.apply(
      { type: 'user_message', text: 'fix the bug' },
      { type: 'error', message: 'Server error (500).', kind: 'server' },
    );
    const errorIndex = chat.turns.findIndex((turn) => turn.kind === 'error');
    assert.deepEqual(chat.runs.retryClicked(errorIndex), { conversationId: 'c1', errorSeq: error!.seq });
    assert.equal(chat.runs.retryClicked(errorIndex), undefined, 'a second click sends nothing');
    assert.deepEqual(chat.lines(), ['user fix the bug', 'error Server error (500). [Retry (disabled)]']);

    chat.apply(
      { type: 'user_message', text: 'fix the bug', retryOf: error!.seq },
      { type: 'text_delta', text: 'Fixed.' },
      done(),
    );
    assert.deepEqual(chat.lines(), [
      'user fix the bug',
      'error Server error (500). [Retried (disabled)]',
      'answer Fixed.',
    ]);
  });

  it('disables an old Retry once a newer prompt was sent, and never offers it again', () => {
    const chat = new Transcript();
    chat.apply(
      { type: 'user_message', text: 'one' },
      { type: 'error', message: 'Rate limited.', kind: 'rate_limit' },
      { type: 'user_message', text: 'two' },
      { type: 'error', message: 'Rate limited again.', kind: 'rate_limit' },
    );
    assert.deepEqual(chat.lines(), [
      'user one',
      'error Rate limited. [Retry (disabled)]',
      'user two',
      'error Rate limited again. [Retry]',
    ]);
    const old = chat.turns.findIndex((turn) => turn.kind === 'error');
    assert.equal(chat.runs.retryClicked(old), undefined);
  });

  it("shows a retry of an error it does not know as a prompt (nothing is hidden), and gives no Retry to a sub-agent's error", () => {
    const chat = new Transcript();
    chat.apply({ type: 'user_message', text: 'again', retryOf: 1234 });
    assert.deepEqual(chat.lines(), ['user again']);
    chat.one({
      conversationId: 'c1',
      agentId: 'sub-1',
      seq: 50,
      time: 0,
      type: 'error',
      message: 'sub-agent failed',
      kind: 'server',
    });
    const turn = chat.turns.at(-1)!;
    assert.ok(turn.kind === 'error' && !turn.retry);
    assert.deepEqual(turn.kind === 'error' && turn.actions.map((action) => action.action), []);
  });

  it('resets with the transcript (a new chat)', () => {
    const chat = new Transcript();
    chat.apply({ type: 'user_message', text: 'go' }, call('t1', 'bash', { command: 'x' }));
    chat.runs.reset();
    chat.turns.length = 0;
    chat.apply({ type: 'user_message', text: 'fresh' }, result('t1', 'bash', 'late', false), done());
    assert.deepEqual(chat.lines(), ['user fresh']);
  });
});
