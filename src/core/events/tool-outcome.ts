/**
 * What became of a tool call, worked out from the conversation's events alone: the call, the
 * approval request, the decision (who decided, by which rule), the result, and how the run
 * ended. The chat's tool lines and the CLI read it the same way, live and when a conversation is
 * reopened from the store (which keeps the same events), so a denied or refused call never
 * looks like one that ran. Part of the shared vocabulary: it depends on nothing but text helpers.
 */
import type { AgentEvent } from './events';
import { visibleText } from '../text/visible-text';

/** How the model is told the user said no (the start of the refused call's result). */
export const DENIED_MESSAGE = 'User denied this tool call.';
/** How a call refused by a policy rule starts its result (a refusal of what can never run has no prefix). */
export const POLICY_PREFIX = 'Denied by policy: ';
/** How a call a PreToolUse hook blocked starts its result. */
export const HOOK_PREFIX = 'Blocked by a hook: ';
/** How a call the reviewer program (approvals.reviewer) denied starts its result. */
export const REVIEWER_PREFIX = 'Denied by the reviewer: ';

export type ToolOutcome =
  /** Received; no decision yet (a call that needs none runs at once). */
  | { state: 'running' }
  | { state: 'awaiting_approval' }
  /** It ran: what it produced, in one line. */
  | { state: 'ran'; summary: string }
  /** It ran, or tried to, and failed (or its input was rejected): why. */
  | { state: 'failed'; reason: string }
  /** The user said no, or did not answer in time. */
  | { state: 'denied'; by: 'user' | 'timeout'; reason?: string }
  /** A rule said no before anyone was asked: policy (naming the rule), a hook, or no one to ask. */
  | { state: 'refused'; by: 'policy' | 'hook' | 'no_gate' | 'reviewer'; reason: string }
  /** The run ended (stopped, redirected, failed, the window closed) before the call finished. */
  | { state: 'not_finished'; reason: string };

export type ToolOutcomeState = ToolOutcome['state'];
type Decision = Extract<AgentEvent, { type: 'tool_approval_result' }>;
type Result = Extract<AgentEvent, { type: 'tool_result' }>;

/** The outcome once `event` (an approval request, a decision or the result of this call) is known. */
export function nextToolOutcome(
  current: ToolOutcome,
  event: Pick<Extract<AgentEvent, { type: 'tool_approval_request' }>, 'type'> | Decision | Result,
): ToolOutcome {
  switch (event.type) {
    case 'tool_approval_request':
      return isSettled(current) ? current : { state: 'awaiting_approval' };
    case 'tool_approval_result':
      return isSettled(current) ? current : decisionOutcome(event);
    case 'tool_result':
      // A refused call's result is the refusal the model reads: the decision already says it.
      if (current.state === 'denied' || current.state === 'refused') return current;
      return resultOutcome(event.output, event.isError);
  }
}

/** A call still running or waiting when its run ended: it never finished. */
export function endedOutcome(current: ToolOutcome, reason: string): ToolOutcome {
  return current.state === 'running' || current.state === 'awaiting_approval'
    ? { state: 'not_finished', reason }
    : current;
}

export function isSettled(outcome: ToolOutcome): boolean {
  return outcome.state !== 'running' && outcome.state !== 'awaiting_approval';
}

function decisionOutcome(decision: Decision): ToolOutcome {
  if (decision.approved) return { state: 'running' };
  const reason = decision.reason ? oneLine(decision.reason) : undefined;
  switch (decision.source) {
    case 'user':
      return { state: 'denied', by: 'user', ...(reason ? { reason } : {}) };
    case 'timeout':
      return { state: 'denied', by: 'timeout', ...(reason ? { reason } : {}) };
    case 'hook':
      return { state: 'refused', by: 'hook', reason: reason ?? 'a PreToolUse hook blocked it' };
    case 'no_gate':
      return { state: 'refused', by: 'no_gate', reason: reason ?? 'no one is there to approve tool calls' };
    case 'reviewer':
      return { state: 'refused', by: 'reviewer', reason: reason ?? 'the reviewer program said no' };
    default:
      return { state: 'refused', by: 'policy', reason: reason ?? 'a policy rule' };
  }
}

/**
 * The outcome a result alone tells. Conversations stored before decisions were kept have no
 * decision events: their refusals are recognised by the words the model was given.
 */
export function resultOutcome(output: string, isError: boolean): ToolOutcome {
  if (!isError) return { state: 'ran', summary: resultSummary(output) };
  if (output.startsWith(DENIED_MESSAGE)) {
    const reason = oneLine(output.slice(DENIED_MESSAGE.length).replace(/^\s*Reason:\s*/, ''));
    return { state: 'denied', by: 'user', ...(reason ? { reason } : {}) };
  }
  if (output.startsWith(POLICY_PREFIX))
    return { state: 'refused', by: 'policy', reason: oneLine(output.slice(POLICY_PREFIX.length)) };
  if (output.startsWith(HOOK_PREFIX))
    return { state: 'refused', by: 'hook', reason: oneLine(output.slice(HOOK_PREFIX.length)) };
  if (output.startsWith(REVIEWER_PREFIX))
    return { state: 'refused', by: 'reviewer', reason: oneLine(output.slice(REVIEWER_PREFIX.length)) };
  return { state: 'failed', reason: failureReason(output) };
}

const MAX_LINE = 160;
const MAX_TARGET = 200;
/** Input fields that say what a call works on, in the order they are shown. */
const TARGET_FIELDS = ['command', 'path', 'pattern', 'query', 'url', 'subject', 'description', 'jobId', 'taskId'];
const EXIT_LINE = /^Exit code (\d+)\.$/;
const TIMED_OUT_LINE = /^Timed out after .*\(stopped\)\.$/;

/**
 * What a call works on, in one line: its command, path, pattern… Every character that could
 * hide something is shown escaped, newlines included: `git status\ncurl x | sh` must not read
 * as `git status`.
 */
export function toolCallTarget(input: unknown, max = MAX_TARGET): string {
  const fields = input !== null && typeof input === 'object' ? (input as Record<string, unknown>) : {};
  // Searches: what is looked for, then where.
  if (typeof fields.pattern === 'string' && typeof fields.path === 'string')
    return capped(`${fields.pattern} in ${fields.path}`, max);
  let parts = TARGET_FIELDS.map((key) => fields[key]).filter(
    (value): value is string | number => typeof value === 'string' || typeof value === 'number',
  );
  if (parts.length === 0) parts = Object.values(fields).filter((value): value is string => typeof value === 'string');
  return capped(parts.map(String).join(' '), max);
}

/** A successful result in one line: a command's exit code and how much it printed, a short answer, or its size. */
export function resultSummary(output: string): string {
  const lines = output.trimEnd().split('\n');
  const exit = EXIT_LINE.exec(lines.at(-1) ?? '');
  if (exit) {
    const printed = printedLines(lines);
    return `exit code ${exit[1]} (${printed} line${printed === 1 ? '' : 's'} of output)`;
  }
  if (lines.length <= 1) return oneLine(output) || 'done';
  return `${lines.length} lines`;
}

/** Why a call failed, in one line: a command's exit code and its last words, or the first line of the error. */
export function failureReason(output: string): string {
  const lines = output.trimEnd().split('\n');
  const last = lines.at(-1) ?? '';
  const exit = EXIT_LINE.exec(last);
  if (exit || TIMED_OUT_LINE.test(last)) {
    const status = exit ? `exit code ${exit[1]}` : last.replace(/\.$/, '');
    const said = printedLines(lines) > 0 ? lines.slice(0, -1).findLast((line) => line.trim() !== '') : undefined;
    return oneLine(said ? `${status}: ${said}` : status);
  }
  return oneLine(output) || 'failed';
}

/** Lines a command printed, its status line aside ("(no output)" is none). */
function printedLines(lines: string[]): number {
  return lines.length === 2 && lines[0] === '(no output)' ? 0 : lines.length - 1;
}

/** The first non-empty line, escaped, at most MAX_LINE characters. */
export function oneLine(text: string): string {
  const line = text.split('\n').find((candidate) => candidate.trim() !== '') ?? '';
  return capped(line.trim(), MAX_LINE);
}

function capped(text: string, max: number): string {
  const visible = visibleText(text, { keepNewlines: false });
  return visible.length > max ? `${visible.slice(0, max - 1)}…` : visible;
}

const REFUSED_LABELS: Record<Extract<ToolOutcome, { state: 'refused' }>['by'], string> = {
  policy: 'Refused by policy',
  hook: 'Blocked by a hook',
  no_gate: 'Refused',
  reviewer: 'Denied by the reviewer',
};

/** The outcome in words: a short label ("Denied by you") and, when there is one, the detail. */
export function describeToolOutcome(outcome: ToolOutcome): { label: string; detail?: string } {
  switch (outcome.state) {
    case 'running':
      return { label: 'Running…' };
    case 'awaiting_approval':
      return { label: 'Waiting for your approval' };
    case 'ran':
      return { label: 'Ran', detail: outcome.summary };
    case 'failed':
      return { label: 'Failed', detail: outcome.reason };
    case 'denied':
      return outcome.by === 'user'
        ? { label: 'Denied by you', ...(outcome.reason ? { detail: outcome.reason } : {}) }
        : { label: 'Denied: no answer in time', ...(outcome.reason ? { detail: outcome.reason } : {}) };
    case 'refused':
      return {
        label: REFUSED_LABELS[outcome.by],
        detail: outcome.reason,
      };
    case 'not_finished':
      return { label: 'Did not finish', detail: outcome.reason };
  }
}
