/**
 * The reviewer program as the core sees it (issue 37): a port that is shown each tool call our
 * assessment would allow or ask about, and answers allow, ask or deny with a reason. Its answer
 * can only make the decision stricter (`stricterDecision`): our deny is never put to it, our ask
 * never becomes an allow. The program itself, its process and its answer's format are the
 * node side's (node/reviewer-program.ts); what it is sent and how its answer is read are here,
 * so both hosts and the tests share one definition.
 */
import { z } from 'zod';
import { visibleText } from '../text/visible-text';

export type ReviewDecision = 'allow' | 'ask' | 'deny';

/** One call put to the reviewer. */
export interface ReviewRequest {
  conversationId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
  /** The call's arguments as the model sent them (the port redacts them before they leave). */
  input: unknown;
  /** The command line the call runs, if any. */
  command?: string;
  /** The folder the session works in. */
  workspace?: string;
  /** Our own decision, and why. */
  assessment: { decision: 'allow' | 'ask'; reason: string };
}

export interface ReviewAnswer {
  decision: ReviewDecision;
  reason: string;
  /** The program did not answer properly (crash, timeout, garbage): the `ask` is ours, `reason` says why. */
  failed?: boolean;
}

/** Undefined: no reviewer program is set (the call goes on as we decided). */
export interface ToolReviewer {
  review(request: ReviewRequest, signal: AbortSignal): Promise<ReviewAnswer | undefined>;
}

const RANK: Record<ReviewDecision, number> = { allow: 0, ask: 1, deny: 2 };

/** The stricter of our decision and the reviewer's: it can tighten ours, never loosen it. */
export function stricterDecision(ours: ReviewDecision, reviewer: ReviewDecision): ReviewDecision {
  return RANK[reviewer] > RANK[ours] ? reviewer : ours;
}

/** The most of its answer read: a program that prints more is stopped, and its call asks. */
export const MAX_ANSWER_BYTES = 64 * 1024;
/** A reason longer than this is cut: it is shown in one chat line and kept in the audit trail. */
export const MAX_REASON_CHARS = 1_000;

const answerSchema = z.strictObject({
  decision: z.enum(['allow', 'ask', 'deny']),
  reason: z.string().optional(),
});

/**
 * The program's answer, read strictly: one JSON object on the first line,
 * `{"decision":"allow"|"ask"|"deny","reason":"..."}` (reason optional, no other keys), and
 * nothing but whitespace after it. Anything else is a failed answer that asks, saying what was
 * wrong — a reviewer whose answer is misread must not allow by accident.
 */
export function readReviewAnswer(stdout: string): ReviewAnswer {
  const text = stdout.trim();
  if (text === '') return failed('the reviewer program printed no answer');
  const newline = text.indexOf('\n');
  if (newline >= 0) return failed('the reviewer program printed more than one line (its answer is one JSON line)');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return failed(`the reviewer program's answer is not JSON: ${preview(text)}`);
  }
  const parsed = answerSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.code === 'unrecognized_keys' ? `unknown key "${issue.keys[0]}"` : issue.path.join('.');
    return failed(
      `the reviewer program's answer is not {"decision":"allow"|"ask"|"deny","reason":"..."} (${where || 'not an object'})`,
    );
  }
  const reason = parsed.data.reason?.trim() ?? '';
  return {
    decision: parsed.data.decision,
    reason: reason.length > MAX_REASON_CHARS ? `${reason.slice(0, MAX_REASON_CHARS - 1)}…` : reason,
  };
}

export function failed(reason: string): ReviewAnswer {
  return { decision: 'ask', reason, failed: true };
}

function preview(text: string): string {
  // Escaped: a terminal escape or a bidi override in its output must not dress up our words.
  const line = visibleText(text.slice(0, 80), { keepNewlines: false });
  return text.length > 80 ? `${line}…` : line;
}

/**
 * What the program reads on stdin: one JSON object (then end of input). Names follow the shared
 * hook format's (`tool_name`, `tool_input`, `session_id`), so a script written for hooks reads it.
 */
export interface ReviewerInput {
  version: 1;
  tool_name: string;
  /** Redacted as in the audit trail: keys in use and key-shaped strings are replaced. */
  tool_input: unknown;
  command?: string;
  workspace?: string;
  assessment: { decision: 'allow' | 'ask'; reason: string };
  session_id: string;
  agent_id: string;
  tool_use_id: string;
  /** The team member whose agent asks (with a team configured). */
  member?: string;
}

export function reviewerInput(request: ReviewRequest, redactedInput: unknown, member?: string): ReviewerInput {
  return {
    version: 1,
    tool_name: request.toolName,
    tool_input: redactedInput,
    ...(request.command !== undefined ? { command: request.command } : {}),
    ...(request.workspace !== undefined ? { workspace: request.workspace } : {}),
    assessment: request.assessment,
    session_id: request.conversationId,
    agent_id: request.agentId,
    tool_use_id: request.toolCallId,
    ...(member !== undefined ? { member } : {}),
  };
}
