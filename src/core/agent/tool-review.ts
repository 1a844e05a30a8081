/**
 * The reviewer program's gate (issue 37): after policy has decided allow or ask, and before the
 * call runs or anyone is asked, the reviewer (approvals.reviewer, through ToolPolicy.review) is
 * shown the call and our decision. Its answer only tightens: a deny refuses the call; an ask
 * puts it to a person in person (no "Always", auto-approval or `--yes` answers it), with its
 * reason shown in the question; an allow changes nothing. A reviewer that fails (crash,
 * timeout, garbage) asks, saying why.
 */
import { untilAborted } from '../abort';
import type { PolicyVerdict, ToolPolicy } from '../policy/approval';
import type { CallRisk } from '../policy/call-risk';
import { stricterDecision, type ReviewAnswer, type ReviewRequest } from '../policy/reviewer';
import type { AnyTool } from '../tools/tool';
import type { ReceivedToolCall } from './model-turn';
import type { ToolExecutorDeps } from './tool-executor';

/** What the reviewer answered, as the decision events carry it. */
export type ReviewNote = Pick<ReviewAnswer, 'decision' | 'reason' | 'failed'>;

export type Reviewed =
  | { verdict: Exclude<PolicyVerdict, { action: 'deny' }>; risk: CallRisk; note?: ReviewNote }
  | { denied: string; note: ReviewNote };

export async function reviewCall(
  call: ReceivedToolCall,
  tool: AnyTool,
  input: unknown,
  verdict: Exclude<PolicyVerdict, { action: 'deny' }>,
  risk: CallRisk,
  deps: ToolExecutorDeps,
  signal: AbortSignal,
): Promise<Reviewed> {
  if (!deps.policy.review) return { verdict, risk };
  const command = tool.traits?.command?.(input);
  const answer = await untilAborted(
    deps.policy.review(
      {
        conversationId: deps.conversationId,
        agentId: deps.agentId,
        toolCallId: call.id,
        toolName: tool.name,
        input,
        ...(command !== undefined ? { command } : {}),
        assessment:
          verdict.action === 'allow'
            ? { decision: 'allow', reason: allowReason(verdict) }
            : { decision: 'ask', reason: askReason(verdict, risk) },
      },
      signal,
    ),
    signal,
  );
  signal.throwIfAborted();
  if (!answer) return { verdict, risk };
  const note: ReviewNote = {
    decision: answer.decision,
    reason: answer.reason,
    ...(answer.failed ? { failed: true } : {}),
  };
  const decision = stricterDecision(verdict.action, answer.decision);
  if (decision === 'deny') return { denied: answer.reason || 'the reviewer program said no', note };
  if (answer.decision !== 'ask') return { verdict, risk, note };
  // Its ask is put to a person: no standing answer covers what the reviewer wanted looked at.
  const words = answer.failed ? answer.reason : `the reviewer program asks${answer.reason ? `: ${answer.reason}` : ''}`;
  return {
    verdict: { action: 'ask', ...(verdict.action === 'ask' && verdict.inPerson ? { inPerson: verdict.inPerson } : {}) },
    // A caution, not a reason: reasons are what an approval lets out of the sandbox.
    risk: { ...risk, cautions: [...risk.cautions, words], inPerson: risk.inPerson ?? words },
    note,
  };
}

function allowReason(verdict: Extract<PolicyVerdict, { action: 'allow' }>): string {
  if (verdict.rule) return `allowed by ${verdict.rule}`;
  return verdict.source === 'read_only' ? 'the tool only reads' : `allowed (${verdict.source})`;
}

function askReason(verdict: Extract<PolicyVerdict, { action: 'ask' }>, risk: CallRisk): string {
  const why = [verdict.inPerson, risk.inPerson, ...risk.reasons, ...risk.cautions].filter(
    (reason): reason is string => reason !== undefined,
  );
  return why.length ? `asks: ${why.join('; ')}` : 'asks: the tool changes things, and no rule allows it';
}

/** `policy` with the session's folder added to each review request (a worktree session's own). */
export function reviewedIn<P extends ToolPolicy>(
  policy: P | undefined,
  workspace?: () => string | undefined,
): P | undefined {
  const review = policy?.review;
  if (!policy || !review || !workspace) return policy;
  return Object.assign(Object.create(policy) as P, {
    review: (request: ReviewRequest, signal: AbortSignal) => {
      const folder = workspace();
      return review.call(policy, folder !== undefined ? { ...request, workspace: folder } : request, signal);
    },
  });
}
