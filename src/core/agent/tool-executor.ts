/**
 * Runs the tool calls of one model turn, in order, each through the same gates: arguments
 * parsed and validated, PreToolUse hooks, policy, the user's approval, the tool itself, output
 * capped, PostToolUse hooks. Whatever goes wrong with a call becomes an error result the
 * model reads and adapts to; only a throwing hook or a cancellation stops the run.
 */
import type { ToolResultPart } from '../llm/llm-client';
import type { ApprovalGate, ToolPolicy } from '../policy/approval';
import { hashArguments } from '../policy/approval';
import { isWarning, mustAsk, NO_RISK, type CallRisk } from '../policy/call-risk';
import type { ToolRegistry } from '../tools/registry';
import type { AnyTool, ToolOutput } from '../tools/tool';
import type { EmitEvent } from '../events/events';
import type { Hooks } from './hooks';
import type { ReceivedToolCall } from './model-turn';
import { capToolOutput } from './context/tool-output';

export interface ToolExecutorDeps {
  conversationId: string;
  agentId: string;
  tools: ToolRegistry;
  /** Tools not offered right now (plan mode) are refused if called anyway. */
  isOffered: (tool: AnyTool) => boolean;
  hooks: Hooks;
  policy: ToolPolicy;
  /** What a call can reach, decided before policy or anyone is asked (call-risk.ts). */
  assess?: (tool: AnyTool, input: unknown) => Promise<CallRisk>;
  approvals: ApprovalGate | undefined;
  maxToolOutputChars: number;
  emit: EmitEvent;
  now: () => number;
}

export const DENIED_MESSAGE = 'User denied this tool call.';

export async function executeToolCall(
  call: ReceivedToolCall,
  deps: ToolExecutorDeps,
  signal: AbortSignal,
): Promise<ToolResultPart> {
  const started = deps.now();
  const finish = (output: ToolOutput | string): ToolResultPart => {
    const result =
      typeof output === 'string'
        ? { output, isError: false }
        : { output: output.output, isError: output.isError ?? false };
    const capped = capToolOutput(result.output, deps.maxToolOutputChars);
    deps.emit({
      type: 'tool_result',
      toolCallId: call.id,
      toolName: call.name,
      output: capped,
      isError: result.isError,
      durationMs: Math.max(0, deps.now() - started),
    });
    return { type: 'tool_result', toolCallId: call.id, toolName: call.name, output: capped, isError: result.isError };
  };
  const fail = (message: string) => finish({ output: message, isError: true });

  if (!call.valid) {
    return fail(
      `The arguments for ${call.name} were not valid JSON (${call.error}). Send the call again with valid JSON${call.rawArguments ? `. What arrived: ${call.rawArguments.slice(0, 500)}` : ', and smaller.'}`,
    );
  }
  const tool = deps.tools.get(call.name);
  if (!tool || !deps.isOffered(tool)) {
    const available = deps.tools
      .list()
      .filter(deps.isOffered)
      .map((candidate) => candidate.name);
    return fail(
      `There is no tool named "${call.name}" available now. Available tools: ${available.join(', ') || 'none'}.`,
    );
  }

  let input = call.input;
  const decision = await deps.hooks.preToolUse({
    conversationId: deps.conversationId,
    agentId: deps.agentId,
    toolCallId: call.id,
    toolName: call.name,
    input,
  });
  if (decision && 'block' in decision) {
    deps.emit({
      type: 'tool_approval_result',
      toolCallId: call.id,
      approved: false,
      source: 'hook',
      reason: decision.block,
    });
    return fail(`Blocked by a hook: ${decision.block}`);
  }
  if (decision && 'input' in decision) input = decision.input;

  const parsed = tool.inputSchema.safeParse(input);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(input)'}: ${issue.message}`)
      .join('; ');
    return fail(`Invalid input for ${call.name}: ${problems}`);
  }
  input = parsed.data;

  const risk = deps.assess ? await deps.assess(tool, input) : NO_RISK;
  signal.throwIfAborted();
  // What could never run is refused before anyone is asked about it.
  if (risk.refusal !== undefined) {
    deps.emit({
      type: 'tool_approval_result',
      toolCallId: call.id,
      approved: false,
      source: 'policy',
      reason: risk.refusal,
    });
    return fail(risk.refusal);
  }
  const needsApproval = typeof tool.needsApproval === 'function' ? tool.needsApproval(input) : tool.needsApproval;
  const command = tool.traits?.command?.(input);
  let verdict = deps.policy.evaluate({
    toolName: tool.name,
    input,
    readOnly: tool.readOnly,
    needsApproval,
    ...(command !== undefined ? { command } : {}),
    ...(risk.confined ? { confined: true } : {}),
  });
  // A protected path, a secret, a path decided at run time…: asked whatever a rule allows.
  if (verdict.action === 'allow' && mustAsk(risk)) verdict = { action: 'ask' };
  // Decisions made without asking are events too (the audit trail records who decided, by which
  // rule); plain read-only calls are not, to keep the stream small.
  if (verdict.action === 'deny') {
    deps.emit({
      type: 'tool_approval_result',
      toolCallId: call.id,
      approved: false,
      source: 'policy',
      reason: verdict.reason,
    });
    return fail(`Denied by policy: ${verdict.reason}`);
  }
  if (verdict.action === 'allow' && verdict.source !== 'read_only')
    deps.emit({
      type: 'tool_approval_result',
      toolCallId: call.id,
      approved: true,
      source: verdict.source,
      ...(verdict.rule ? { reason: verdict.rule } : {}),
    });
  let unconfined = false;
  if (verdict.action === 'ask') {
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
      ? await deps.approvals.request({
          conversationId: deps.conversationId,
          toolCallId: call.id,
          toolName: tool.name,
          ...(tool.version ? { toolVersion: tool.version } : {}),
          input,
          summary,
          argumentsHash: hashArguments(input),
          risk,
          signal,
        })
      : { approved: false, source: 'no_gate' as const, reason: 'No one is there to approve tool calls.' };
    signal.throwIfAborted();
    deps.emit({
      type: 'tool_approval_result',
      toolCallId: call.id,
      approved: answer.approved,
      source: answer.source,
      ...(answer.reason ? { reason: answer.reason } : {}),
    });
    if (!answer.approved) return fail(answer.reason ? `${DENIED_MESSAGE} Reason: ${answer.reason}` : DENIED_MESSAGE);
    // Asked because it needs out of the sandbox, and the user said yes to this very call.
    unconfined = answer.source === 'user' && risk.reasons.length + risk.needsOut.length + risk.needsNetwork.length > 0;
  }

  let output: ToolOutput | string;
  try {
    output = await tool.execute(input, {
      conversationId: deps.conversationId,
      agentId: deps.agentId,
      toolCallId: call.id,
      signal,
      ...(risk.checkedPath !== undefined ? { checkedPath: risk.checkedPath } : {}),
      ...(unconfined ? { unconfined } : {}),
    });
  } catch (error) {
    // A cancelled run is not a tool failure: let the cancellation through.
    signal.throwIfAborted();
    output = {
      output: `${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`,
      isError: true,
    };
  }
  signal.throwIfAborted();
  const result = finish(output);
  await deps.hooks.postToolUse({
    conversationId: deps.conversationId,
    agentId: deps.agentId,
    toolCallId: call.id,
    toolName: tool.name,
    input,
    output: result.output,
    isError: result.isError,
  });
  return result;
}
