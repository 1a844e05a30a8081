/**
 * Runs the tool calls of one model turn, in order, each through the same gates: arguments
 * parsed and validated, PreToolUse hooks, policy, the user's approval, the tool itself, output
 * capped, PostToolUse hooks. Whatever goes wrong with a call becomes an error result the
 * model reads and adapts to; only a throwing hook or a cancellation stops the run.
 */
import type { ImagePart, ToolResultPart } from '../llm/llm-client';
import { imageReference } from '../images/user-images';
import type { ApprovalGate, ToolPolicy } from '../policy/approval';
import type { CallRisk } from '../policy/call-risk';
import type { ToolRegistry } from '../tools/registry';
import type { AnyTool, ToolOutput } from '../tools/tool';
import type { EmitEvent } from '../events/events';
import type { Hooks } from './hooks';
import type { ReceivedToolCall } from './model-turn';
import { capToolOutput } from './context/tool-output';
import { passGates, type ClearedCall } from './tool-gates';
import { untilAborted } from '../abort';

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
  /** Keeps a tool result's images in the store before its event names them (never throws). */
  keepImages?: (images: readonly ImagePart[]) => Promise<void>;
}

export async function executeToolCall(
  call: ReceivedToolCall,
  deps: ToolExecutorDeps,
  signal: AbortSignal,
): Promise<ToolResultPart> {
  const started = deps.now();
  const finish = async (output: ToolOutput | string): Promise<ToolResultPart> => {
    const result =
      typeof output === 'string'
        ? { output, isError: false }
        : { output: output.output, isError: output.isError ?? false, images: output.images };
    const capped = capToolOutput(result.output, deps.maxToolOutputChars);
    const durationMs = Math.max(0, deps.now() - started);
    // The bytes reach the store before the event that names them (which carries no bytes).
    if (result.images?.length) await deps.keepImages?.(result.images);
    deps.emit({
      type: 'tool_result',
      toolCallId: call.id,
      toolName: call.name,
      output: capped,
      isError: result.isError,
      durationMs,
      ...(result.images?.length ? { images: result.images.map(imageReference) } : {}),
    });
    return {
      type: 'tool_result',
      toolCallId: call.id,
      toolName: call.name,
      output: capped,
      isError: result.isError,
      ...(result.images?.length ? { images: result.images } : {}),
    };
  };

  const cleared = await passGates(call, deps, signal);
  if ('refusal' in cleared) return finish({ output: cleared.refusal, isError: true });
  const result = await finish(await runTool(call, cleared, deps, signal));
  const notes = await deps.hooks.postToolUse({
    conversationId: deps.conversationId,
    agentId: deps.agentId,
    toolCallId: call.id,
    toolName: cleared.tool.name,
    input: cleared.input,
    output: result.output,
    isError: result.isError,
    signal,
  });
  // What PostToolUse hooks said about the result reaches the model with it.
  return notes.length === 0 ? result : { ...result, output: [result.output, ...notes].join('\n\n') };
}

/** The tool's outcome as a promise: one that throws at once is a rejection like any other. */
function callTool(
  tool: AnyTool,
  input: unknown,
  context: Parameters<AnyTool['execute']>[1],
): Promise<ToolOutput | string> {
  return new Promise((resolve) => resolve(tool.execute(input as never, context)));
}

/** Runs a call that passed every gate; what it throws becomes an error result (a cancellation goes through). */
async function runTool(
  call: ReceivedToolCall,
  { tool, input, risk, unconfined }: ClearedCall,
  deps: ToolExecutorDeps,
  signal: AbortSignal,
): Promise<ToolOutput | string> {
  let output: ToolOutput | string;
  try {
    // Raced with the Stop: a tool that does not listen to its signal (an MCP server that hangs,
    // an extension's tool) is left to end on its own, and the run stops at once.
    output = await untilAborted(
      callTool(tool, input, {
        conversationId: deps.conversationId,
        agentId: deps.agentId,
        toolCallId: call.id,
        signal,
        ...(risk.checkedPath !== undefined ? { checkedPath: risk.checkedPath } : {}),
        // The call named a secret, so it was asked about (mustAsk) and the user said yes to it.
        ...(risk.secret !== undefined ? { approvedSecret: risk.secret } : {}),
        ...(unconfined ? { unconfined } : {}),
      }),
      signal,
    );
  } catch (error) {
    // A cancelled run is not a tool failure: let the cancellation through.
    signal.throwIfAborted();
    output = {
      output: `${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`,
      isError: true,
    };
  }
  signal.throwIfAborted();
  return output;
}
