/**
 * Recorded tools and recorded approvals: the tool set of the recording's run, whose calls return
 * what they returned then and never touch the world, and an approval gate that answers each
 * question as it was answered then. Policy, hooks and the loop run for real around them, so a
 * changed policy shows: a call asked now that was not asked then ("policy now asks"), or one
 * that ran without asking now but was asked then ("policy now allows").
 *
 * What a tool is (read-only, needs approval, its traits) comes from the product's current tool
 * of the same name; a tool the product no longer has is treated as one that asks.
 */
import { z } from 'zod';
import { abortError, onAbort } from '../abort';
import type { ApprovalDecisionSource } from '../events/events';
import { approvalDecisionSourceSchema } from '../events/events';
import type { ToolDefinition } from '../llm/llm-client';
import type { ApprovalDecision, ApprovalGate, ApprovalRequest } from '../policy/approval';
import type { AnyTool, ToolContext, ToolOutput } from '../tools/tool';
import { preview } from './divergence';
import type { ModelStep, RecordedDecision, ToolStep } from './recording';
import type { ReplayState } from './replay-state';

/** Tools every conversation makes itself: the real ones run in a replay (they act on the conversation only). */
export const CONVERSATION_TOOLS: ReadonlySet<string> = new Set(['think', 'compact', 'task']);

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export interface RecordedToolSet {
  tools: AnyTool[];
  /** Whether the run offered `task` (sub-agents). */
  subagents: boolean;
  /** Recorded tools that were left out, and why (a name no registry accepts, a name given twice). */
  skipped: string[];
}

/**
 * The recording's tools as replay tools, in the order the run offered them: every tool a recorded
 * request offered (the lead's first request first), as it was defined there. A manifest tool no
 * request offered is left out (a replay offers what the run offered); without any request (a
 * recording that ended before its first call) the manifest's list is used.
 */
export function recordedTools(state: ReplayState, currentTools: readonly AnyTool[] = []): RecordedToolSet {
  const current = new Map(currentTools.map((tool) => [tool.name, tool] as const));
  const offered = offeredDefinitions(state);
  const tools: AnyTool[] = [];
  const skipped: string[] = [];
  const seen = new Set<string>();
  let subagents = false;
  const add = (name: string, definition: () => ToolDefinition) => {
    if (name === 'task') subagents = true;
    if (CONVERSATION_TOOLS.has(name)) return;
    if (!TOOL_NAME.test(name)) return void skipped.push(`${preview(name, 80)}: not a name a tool can have`);
    if (seen.has(name)) return void skipped.push(`${name}: listed twice`);
    seen.add(name);
    tools.push(replayTool(state, definition(), current.get(name)));
  };
  for (const definition of offered.values()) add(definition.name, () => definition);
  for (const entry of state.loaded.recording.manifest.tools) {
    if (offered.size === 0)
      add(entry.name, () => asDefinition(entry.name, state.loaded.content(entry.schema), current.get(entry.name)));
    else if (!offered.has(entry.name) && !CONVERSATION_TOOLS.has(entry.name))
      skipped.push(`${preview(entry.name, 80)}: no recorded request offered it`);
    else if (offered.has(entry.name) && entry !== firstOf(state, entry.name))
      skipped.push(`${entry.name}: listed twice`);
  }
  return { tools, subagents, skipped };
}

/** The manifest's first entry of that name (later ones are duplicates). */
function firstOf(state: ReplayState, name: string): unknown {
  return state.loaded.recording.manifest.tools.find((entry) => entry.name === name);
}

/** Every tool definition the recorded requests offered, by name, the lead's first request first. */
function offeredDefinitions(state: ReplayState): Map<string, ToolDefinition> {
  const models = state.loaded.recording.steps.filter((step): step is ModelStep => step.kind === 'model');
  const first = models.findIndex((step) => step.agentId === state.leadId);
  if (first > 0) models.unshift(...models.splice(first, 1));
  const byName = new Map<string, ToolDefinition>();
  for (const step of models) {
    for (const tool of state.loaded.request(step).tools as unknown[]) {
      const candidate = tool as Partial<ToolDefinition> | null;
      if (!candidate || typeof candidate.name !== 'string' || byName.has(candidate.name)) continue;
      if (!isObject(candidate.inputSchema)) continue;
      byName.set(candidate.name, {
        name: candidate.name,
        description: typeof candidate.description === 'string' ? candidate.description : '',
        inputSchema: candidate.inputSchema,
      });
    }
  }
  return byName;
}

/** A schema ref's value: the whole definition, or the input schema alone. */
function asDefinition(name: string, value: unknown, current: AnyTool | undefined): ToolDefinition {
  if (isObject(value) && isObject(value.inputSchema))
    return {
      name,
      description: typeof value.description === 'string' ? value.description : (current?.description ?? ''),
      inputSchema: value.inputSchema,
    };
  return { name, description: current?.description ?? '', inputSchema: isObject(value) ? value : { type: 'object' } };
}

function replayTool(state: ReplayState, definition: ToolDefinition, current: AnyTool | undefined): AnyTool {
  return {
    name: definition.name,
    description: definition.description,
    // Checked as the product checks it now; a tool it no longer has takes what was recorded.
    inputSchema: current?.inputSchema ?? z.unknown(),
    inputJsonSchema: definition.inputSchema,
    readOnly: current?.readOnly ?? false,
    needsApproval: current?.needsApproval ?? true,
    ...(current?.traits ? { traits: current.traits } : {}),
    ...(current?.summarize ? { summarize: current.summarize } : {}),
    ...(current?.version ? { version: current.version } : {}),
    execute: (_input: unknown, context: ToolContext) => recordedResult(state, definition.name, context),
  };
}

/**
 * The recorded step a call of the replay answers to, reached: undefined (a divergence said, or
 * the replay already over) when the run made a call the recording does not have, called another
 * tool there, or went past `--until`. Both replays (recorded and live tools) start from this.
 */
export function matchRecordedCall(state: ReplayState, name: string, context: ToolContext): ToolStep | undefined {
  const agentId = state.recordedAgent(context.agentId);
  const step = state.toolStep(agentId, context.toolCallId);
  if (state.ended) return undefined;
  if (!step) {
    state.pastTheEnd({
      step: state.currentStep,
      agentId,
      what: 'the run made a tool call the recording does not have',
      expected: 'no such call',
      actual: `${name} call ${preview(context.toolCallId, 60)}`,
    });
    return undefined;
  }
  if (step.toolName !== name) {
    state.diverge({
      step: step.step,
      agentId,
      what: 'the run called another tool',
      expected: step.toolName,
      actual: name,
    });
    return undefined;
  }
  return state.reach(step) ? step : undefined;
}

async function recordedResult(state: ReplayState, name: string, context: ToolContext): Promise<ToolOutput> {
  const step = matchRecordedCall(state, name, context);
  if (!step) return stopped(context.signal);
  const agentId = state.recordedAgent(context.agentId);
  if (step.decision && wasAsked(step.decision) && !state.askedNow.has(step.step)) {
    state.diverge({
      step: step.step,
      agentId,
      what: 'policy now allows',
      expected: `asked, and ${describeDecision(step.decision)}`,
      actual: 'ran without asking',
    });
    return stopped(context.signal);
  }
  const interrupt = state.interruptDuring(step.step);
  if (interrupt) {
    state.triggerInterrupt(interrupt);
    return stopped(context.signal);
  }
  const result = state.loaded.toolResult(step);
  if (!result) {
    if (state.loaded.recording.unfinished && state.isLastWork(step.step))
      state.end({ kind: 'truncated', step: step.step });
    else
      state.diverge({
        step: step.step,
        agentId,
        what: 'the call ran, but the recording has no result for it',
        expected: 'the call did not finish',
        actual: `${name} ran`,
      });
    return stopped(context.signal);
  }
  state.executed.add(step.step);
  return { output: result.output, isError: result.isError };
}

/** The gate that answers each question as the recording did (a teammate's gate: for that agent). */
export function recordedApprovals(state: ReplayState, teammate?: string): ApprovalGate {
  return {
    async request(request: ApprovalRequest): Promise<ApprovalDecision> {
      const agentId = teammate ?? state.currentAgent();
      const step = state.toolStep(agentId, request.toolCallId);
      const ended: ApprovalDecision = { approved: false, source: 'user', reason: 'The replay ended.' };
      if (state.ended) return ended;
      if (!step) {
        state.pastTheEnd({
          step: state.currentStep,
          agentId,
          what: 'the run asked about a tool call the recording does not have',
          expected: 'no such call',
          actual: `asked about ${request.toolName}`,
        });
        return ended;
      }
      if (!state.reach(step)) return ended;
      state.askedNow.add(step.step);
      const interrupt = state.interruptDuring(step.step);
      if (interrupt && !step.decision) {
        state.triggerInterrupt(interrupt);
        return ended;
      }
      if (!step.decision || !wasAsked(step.decision)) {
        state.diverge({
          step: step.step,
          agentId,
          what: 'policy now asks',
          expected: step.decision ? `${describeDecision(step.decision)} without asking` : 'not asked',
          actual: `asked about ${request.toolName}`,
        });
        return ended;
      }
      return {
        approved: step.decision.approved,
        source: decisionSource(step.decision.source),
        ...(step.decision.reason !== undefined ? { reason: step.decision.reason } : {}),
      };
    },
  };
}

const ASKED_SOURCES = new Set(['user', 'timeout', 'session_rule', 'no_gate']);

/** Whether the recorded decision came from asking (a person, a standing answer, nobody there). */
export function wasAsked(decision: RecordedDecision): boolean {
  return decision.asked ?? ASKED_SOURCES.has(decision.source);
}

export function describeDecision(decision: RecordedDecision): string {
  return `${decision.approved ? 'allowed' : 'denied'} by ${decision.source}${decision.reason ? ` (${preview(decision.reason, 80)})` : ''}`;
}

function decisionSource(source: string): ApprovalDecisionSource {
  const parsed = approvalDecisionSourceSchema.safeParse(source);
  return parsed.success ? parsed.data : 'user';
}

/** Ends a call the replay stopped: as a cancellation, once the Stop has landed. */
export async function stopped(signal: AbortSignal): Promise<never> {
  await new Promise<void>((resolve) => onAbort(signal, resolve));
  throw abortError();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
