/**
 * The gates a tool call passes before it runs, in order: its arguments parsed, the tool offered,
 * PreToolUse hooks (which may block or change the input), the input schema, what the call can
 * reach (a refusal for what can never run), policy rules, and the user's approval. Each gate
 * either clears the call or refuses it with words for the model; decisions made on the way are
 * events (the audit trail records who decided, by which rule).
 */
import { untilAborted } from '../abort';
import { hashArguments } from '../policy/approval';
import { calledPaths, isWarning, mustAsk, NO_RISK, withTraits, type CallRisk } from '../policy/call-risk';
import type { AnyTool } from '../tools/tool';
import type { ReceivedToolCall } from './model-turn';
import type { ToolExecutorDeps } from './tool-executor';
import { DENIED_MESSAGE, HOOK_PREFIX, POLICY_PREFIX, REVIEWER_PREFIX } from '../events/tool-outcome';
import { reviewCall, type ReviewNote } from './tool-review';

export { DENIED_MESSAGE } from '../events/tool-outcome';

/** A call cleared to run: its tool, its checked input, what it can reach, and whether it runs unconfined. */
export interface ClearedCall {
  tool: AnyTool;
  input: unknown;
  risk: CallRisk;
  /** The user approved this very call knowing it needs out of the sandbox. */
  unconfined: boolean;
}

type Gate<T> = Promise<T | { refusal: string }>;

export async function passGates(
  call: ReceivedToolCall,
  deps: ToolExecutorDeps,
  signal: AbortSignal,
): Gate<ClearedCall> {
  if (!call.valid) {
    // A call read from the text carries its whole explanation (text-tool-call-recovery.ts).
    if (call.fromText) return { refusal: call.error };
    return {
      refusal: `The arguments for ${call.name} were not valid JSON (${call.error}). Send the call again with valid JSON${call.rawArguments ? `. What arrived: ${call.rawArguments.slice(0, 500)}` : ', and smaller.'}`,
    };
  }
  const tool = offeredTool(call.name, deps);
  if ('refusal' in tool) return tool;
  const checked = await checkedInput(call, tool, deps, signal);
  if ('refusal' in checked) return checked;
  const { input, hookAsk } = checked;
  // The traits count even where nothing assesses calls: a plan is put to a person regardless.
  // Assessing reads the file system (links, real paths): a hung mount must not hold a Stop.
  const assessed = withTraits(
    tool,
    input,
    deps.assess ? await untilAborted(deps.assess(tool, input), signal) : NO_RISK,
  );
  // A hook that asks puts this call to a person whatever a rule or "Always" says (not a reason
  // to let it out of the sandbox: reasons are what an approval lets out).
  const risk = hookAsk === undefined ? assessed : { ...assessed, inPerson: assessed.inPerson ?? hookAsk };
  signal.throwIfAborted();
  // What could never run is refused before anyone is asked about it.
  if (risk.refusal !== undefined) {
    emitDecision(deps, call.id, { approved: false, source: 'policy', reason: risk.refusal });
    return { refusal: risk.refusal };
  }
  const unconfined = await decide(call, tool, input, risk, deps, signal);
  if (typeof unconfined !== 'boolean') return unconfined;
  return { tool, input, risk, unconfined };
}

/** The tool called, if it exists and is offered right now (plan mode offers fewer). */
function offeredTool(name: string, deps: ToolExecutorDeps): AnyTool | { refusal: string } {
  const tool = deps.tools.get(name);
  if (tool && deps.isOffered(tool)) return tool;
  const available = deps.tools
    .list()
    .filter(deps.isOffered)
    .map((candidate) => candidate.name);
  return {
    refusal: `There is no tool named "${name}" available now. Available tools: ${available.join(', ') || 'none'}.`,
  };
}

/** The input after PreToolUse hooks (which may block or rewrite it), checked against the tool's schema. */
async function checkedInput(
  call: ReceivedToolCall & { valid: true },
  tool: AnyTool,
  deps: ToolExecutorDeps,
  signal: AbortSignal,
): Gate<{ input: unknown; hookAsk?: string }> {
  let input = call.input;
  const decision = await deps.hooks.preToolUse({
    conversationId: deps.conversationId,
    agentId: deps.agentId,
    toolCallId: call.id,
    toolName: call.name,
    input,
    signal,
  });
  if (decision && 'block' in decision) {
    emitDecision(deps, call.id, { approved: false, source: 'hook', reason: decision.block });
    return { refusal: `${HOOK_PREFIX}${decision.block}` };
  }
  const rewritten = decision !== undefined && 'input' in decision;
  if (rewritten) input = decision.input;
  const hookAsk = decision && 'ask' in decision ? decision.ask : undefined;
  const parsed = tool.inputSchema.safeParse(input);
  if (parsed.success) return { input: parsed.data, ...(hookAsk !== undefined ? { hookAsk } : {}) };
  const problems = parsed.error.issues
    .map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`)
    .join('; ');
  if (rewritten) {
    const reason = `a PreToolUse hook rewrote the input of ${call.name} into one that is not valid (${problems})`;
    emitDecision(deps, call.id, { approved: false, source: 'hook', reason });
    return { refusal: `${HOOK_PREFIX}${reason}` };
  }
  return { refusal: `Invalid input for ${call.name}: ${problems}` };
}

/**
 * Policy, then the user when policy says ask (or the call's risk must ask whatever a rule
 * allows). Resolves to whether the call runs unconfined, or a refusal.
 */
async function decide(
  call: ReceivedToolCall,
  tool: AnyTool,
  input: unknown,
  assessed: CallRisk,
  deps: ToolExecutorDeps,
  signal: AbortSignal,
): Gate<boolean> {
  let risk = assessed;
  const needsApproval = typeof tool.needsApproval === 'function' ? tool.needsApproval(input) : tool.needsApproval;
  const command = tool.traits?.command?.(input);
  const fetchHost = tool.traits?.fetchHost?.(input);
  let verdict = deps.policy.evaluate({
    toolName: tool.name,
    input,
    readOnly: tool.readOnly,
    needsApproval,
    ...(command !== undefined ? { command } : {}),
    ...(risk.confined ? { confined: true } : {}),
    ...(fetchHost !== undefined ? { fetchHost } : {}),
    ...calledPaths(risk),
  });
  // A protected path, a secret, a path decided at run time…: asked whatever a rule allows.
  if (verdict.action === 'allow' && mustAsk(risk)) verdict = { action: 'ask' };
  // The policy says a person answers (a broken policy file): no standing answer covers it.
  if (verdict.action === 'ask' && verdict.inPerson !== undefined && risk.inPerson === undefined)
    risk = { ...risk, inPerson: verdict.inPerson };
  if (verdict.action === 'deny') {
    emitDecision(deps, call.id, { approved: false, source: 'policy', reason: verdict.reason });
    return { refusal: `${POLICY_PREFIX}${verdict.reason}` };
  }
  // The reviewer program may tighten what policy decided (tool-review.ts).
  const reviewed = await reviewCall(call, tool, input, verdict, risk, deps, signal);
  const reviewer = reviewed.note;
  if ('denied' in reviewed) {
    emitDecision(deps, call.id, { approved: false, source: 'reviewer', reason: reviewed.denied, reviewer });
    return { refusal: `${REVIEWER_PREFIX}${reviewed.denied}` };
  }
  ({ verdict, risk } = reviewed);
  if (verdict.action === 'allow') {
    // Plain read-only calls are not events, to keep the stream small (unless a reviewer saw them).
    if (verdict.source !== 'read_only' || reviewer)
      emitDecision(deps, call.id, { approved: true, source: verdict.source, reason: verdict.rule, reviewer });
    return false;
  }
  const summary = tool.summarize?.(input) ?? tool.name;
  deps.emit({
    type: 'tool_approval_request',
    toolCallId: call.id,
    toolName: tool.name,
    input,
    summary,
    ...(risk.reasons.length + risk.cautions.length > 0 ? { reasons: [...risk.reasons, ...risk.cautions] } : {}),
    ...(isWarning(risk) ? { warning: true } : {}),
  });
  const answer = deps.approvals
    ? await untilAborted(
        deps.approvals.request({
          conversationId: deps.conversationId,
          toolCallId: call.id,
          toolName: tool.name,
          ...(tool.version ? { toolVersion: tool.version } : {}),
          input,
          summary,
          argumentsHash: hashArguments(input),
          ...(command !== undefined ? { command } : {}),
          risk,
          signal,
          emit: deps.emit,
        }),
        signal,
      )
    : { approved: false, source: 'no_gate' as const, reason: 'No one is there to approve tool calls.' };
  signal.throwIfAborted();
  emitDecision(deps, call.id, { ...answer, reviewer });
  if (!answer.approved)
    return { refusal: answer.reason ? `${DENIED_MESSAGE} Reason: ${answer.reason}` : DENIED_MESSAGE };
  // Asked because it needs out of the sandbox, and the user said yes to this very call.
  return answer.source === 'user' && risk.reasons.length + risk.needsOut.length + risk.needsNetwork.length > 0;
}

type Decision = Extract<Parameters<ToolExecutorDeps['emit']>[0], { type: 'tool_approval_result' }>;

function emitDecision(
  deps: ToolExecutorDeps,
  toolCallId: string,
  decision: {
    approved: boolean;
    source: Decision['source'];
    reason?: string | undefined;
    reviewer?: ReviewNote | undefined;
  },
): void {
  deps.emit({
    type: 'tool_approval_result',
    toolCallId,
    approved: decision.approved,
    source: decision.source,
    ...(decision.reason ? { reason: decision.reason } : {}),
    ...(decision.reviewer ? { reviewer: decision.reviewer } : {}),
  });
}
