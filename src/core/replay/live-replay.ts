/**
 * Replays a recorded run with live tools (SPEC: replay and compare, item 2's second mode): the
 * model's answers come from the recording (the replay model client), but every tool call runs
 * for real, through the product's tools rooted in a fresh place (a worktree at the recorded
 * commit, or a scratch copy) under the usual policy and approvals. Each tool result is set
 * beside the recorded one, and at the end the files the two runs changed are compared: the
 * report says where the world answered differently.
 *
 * The rule for a differing result: the replay goes on — the other calls of the same answer
 * still run and are compared — until the next model call. That call's request now carries the
 * live result, so it is not the request the recorded answer answered: it is reported as the
 * first divergence and the replay stops there. Going further would act on the world (write
 * files, run commands, ask the user to approve them) for reasons the model never had, with
 * answers given to a question it was not asked; stopping keeps every live action one the
 * recording's model would have taken in this world.
 *
 * A call denied then is denied now without running (the replay follows the recorded path); an
 * imported run asks a person about every call that is not read-only, whatever the policy says.
 */
import * as path from 'node:path';
import { Conversation } from '../agent/conversation';
import type { AgentLimits } from '../agent/agent-loop';
import type { Hooks } from '../agent/hooks';
import type { AgentEvent } from '../events/events';
import { defaultToolPolicy, type ApprovalGate, type ToolPolicy } from '../policy/approval';
import type { WorkKind } from '../policy/model-routes';
import type { AnyTool, ToolContext, ToolOutput } from '../tools/tool';
import { isInside } from '../workspace/workspace-path';
import { preview, sameValue, type Divergence } from './divergence';
import type { LoadedRecording, RecordedResult } from './loaded-recording';
import { describeDecision, matchRecordedCall, recordedTools, stopped } from './recorded-tools';
import type { InterruptStep, PromptStep, ToolStep } from './recording';
import { replayModelClient } from './replay-model-client';
import { describeStep } from './recorded-basis';
import { ReplayState } from './replay-state';
import { checkAllUsed, checkUntil, modelFor, promptContext, recordedLimits } from './recorded-basis';
import { firstDifference, fileComparisons, type FileComparison } from './live-replay-files';

export type { FileComparison } from './live-replay-files';

export interface LiveReplayDeps {
  /** The product's tools rooted in the fresh place: they run for real. */
  tools: readonly AnyTool[];
  /** The place's folder (absolute): the files compared at the end are read there. */
  root: string;
  /** The usual policy (default: read-only tools run, the rest asks). */
  policy?: ToolPolicy;
  /** The usual approval gate (the terminal's, the editor's). */
  approvals: ApprovalGate;
  hooks?: Hooks;
  /** The recording came from another machine: every call that is not read-only is put to a person. */
  imported?: boolean;
  limits?: Partial<AgentLimits>;
  /** A file of the place as text now (path relative to its root), undefined when absent or unreadable. */
  readFile(relativePath: string): Promise<string | undefined>;
  /** Each event of the replay, as it comes. */
  onEvent?(event: AgentEvent): void;
  /** Stops the replay (the user's Ctrl-C). */
  signal?: AbortSignal;
}

/** One recorded tool call run live: its result beside the recorded one. */
export interface ToolComparison {
  step: number;
  agentId: string;
  toolName: string;
  /** A short form of the call's input (a path, a command). */
  call: string;
  same: boolean;
  recorded?: RecordedResult;
  live: { output: string; isError: boolean };
  /** Where the two results part, in a line (absent when they are the same). */
  difference?: string;
}

export interface LiveReplayOutcome {
  /** Every tool answered as recorded, every file compared is the same, and the run followed the recording. */
  sameWorld: boolean;
  /** The run parted from the recording here (a model request that differs, a call not recorded). */
  divergence?: Divergence;
  ended: 'complete' | 'until' | 'truncated' | 'divergence' | 'stopped';
  tools: ToolComparison[];
  files: FileComparison[];
  stepsReplayed: number;
  lastStep: number;
  events: AgentEvent[];
  warnings: string[];
}

/** Replays `loaded` with live tools; rejects with a RecordingProblem only for a step out of range. */
export async function replayWithLiveTools(
  loaded: LoadedRecording,
  deps: LiveReplayDeps,
  options: { until?: number } = {},
): Promise<LiveReplayOutcome> {
  checkUntil(loaded, options.until);
  const manifest = loaded.recording.manifest;
  const prompts = loaded.recording.steps.filter((step): step is PromptStep => step.kind === 'prompt');
  const state = new ReplayState(loaded, {
    ...(options.until !== undefined ? { until: options.until } : {}),
    stop: () => conversation.stop(),
    interrupt: (step) => interrupt(step),
  });
  const interrupt = (step: InterruptStep) => {
    const redirect = step.redirect
      ? prompts.find((prompt) => prompt.redirect && prompt.step > step.step && !state.used.has(prompt.step))
      : undefined;
    if (redirect && state.reach(redirect)) void conversation.interrupt(loaded.content(redirect.text) as string);
    else conversation.stop();
  };
  const recordedSet = recordedTools(state, deps.tools);
  const liveByName = new Map(deps.tools.map((tool) => [tool.name, tool] as const));
  // Paths the live run wrote through a file tool (relative to the place's root).
  const writtenNow = new Set<string>();
  const tools: AnyTool[] = recordedSet.tools.map((tool) => ({
    ...tool,
    execute: async (input: unknown, context: ToolContext): Promise<ToolOutput | string> => {
      const step = recordedCall(state, tool.name, context);
      if (!step) return stopped(context.signal);
      const liveTool = liveByName.get(tool.name);
      if (!liveTool)
        return { output: `${tool.name} is not available here (the product has no such tool now).`, isError: true };
      state.executed.add(step.step);
      const outside = leavesPlace(deps.root, liveTool, input, context);
      if (outside) return { output: outside, isError: true };
      const ran = await liveTool.execute(input, context);
      const output = typeof ran === 'string' ? { output: ran } : ran;
      const written = liveTool.traits?.writes && !output.isError ? liveTool.traits.path?.(input) : undefined;
      if (typeof written === 'string') writtenNow.add(written);
      return output;
    },
  }));
  const binding = (work: WorkKind) => {
    const model = modelFor(loaded, work);
    return { model: model.model, llm: replayModelClient(state, { work, provider: model.provider }) };
  };
  const usual = deps.policy ?? defaultToolPolicy;
  const conversation = new Conversation({
    id: manifest.conversationId,
    model: binding('chat'),
    compactionModel: binding('compaction'),
    finalSummaryModel: binding('final_summary'),
    subagentModel: binding('subagent'),
    system: loaded.system,
    clock: { now: state.now },
    subagents: recordedSet.subagents,
    tools,
    ...(deps.hooks ? { hooks: deps.hooks } : {}),
    policy: deps.imported ? askInPerson(usual) : usual,
    approvals: followRecordedDenials(state, deps.approvals),
    limits: { ...recordedLimits(manifest.limits), ...deps.limits },
    // Recorded failures are retried at once: the model is the recording.
    retry: { sleep: () => Promise.resolve(), random: () => 0 },
  });
  const events: AgentEvent[] = [];
  const comparisons: ToolComparison[] = [];
  conversation.subscribe((event) => {
    state.observe(event);
    if (state.ended) return;
    events.push(event);
    deps.onEvent?.(event);
    if (event.type === 'tool_result') {
      const step = state.toolStep(state.recordedAgent(event.agentId), event.toolCallId);
      // A call that never ran (denied now, refused by validation) was still reached: its step counts.
      if (!step || (!state.used.has(step.step) && !state.reach(step))) return;
      comparisons.push(compareResult(loaded, step, { output: event.output, isError: event.isError }));
    }
  });
  let stoppedByUser = false;
  const onStop = () => {
    stoppedByUser = true;
    conversation.stop();
  };
  deps.signal?.addEventListener('abort', onStop, { once: true });
  try {
    for (const prompt of prompts) {
      if (state.ended || stoppedByUser) break;
      if (state.used.has(prompt.step)) continue;
      if (!state.reach(prompt)) break;
      await conversation.submit(loaded.content(prompt.text) as string, promptContext(loaded, prompt));
    }
  } finally {
    deps.signal?.removeEventListener('abort', onStop);
  }
  if (!state.ended && !stoppedByUser) checkAllUsed(state);
  const files = await fileComparisons(loaded, state.used, liveByName, writtenNow, deps);
  const divergence = state.divergence;
  const ending = state.ended;
  const ended: LiveReplayOutcome['ended'] = divergence
    ? 'divergence'
    : stoppedByUser
      ? 'stopped'
      : ending?.kind === 'until' || ending?.kind === 'truncated'
        ? ending.kind
        : 'complete';
  return {
    sameWorld:
      !divergence &&
      !stoppedByUser &&
      comparisons.every((comparison) => comparison.same) &&
      files.every((file) => file.same !== false),
    ...(divergence ? { divergence } : {}),
    ended,
    tools: comparisons,
    files,
    stepsReplayed: state.used.size,
    lastStep: loaded.lastStep,
    events,
    warnings: recordedSet.skipped.map((skipped) => `A recorded tool was left out: ${skipped}`),
  };
}

/**
 * The recorded step of this call, reached; undefined (and the replay ends) when the run made a
 * call the recording does not have, called another tool, was stopped then, or the call was
 * denied then (a replay never runs what was refused).
 */
function recordedCall(state: ReplayState, name: string, context: ToolContext): ToolStep | undefined {
  const step = matchRecordedCall(state, name, context);
  if (!step) return undefined;
  const agentId = state.recordedAgent(context.agentId);
  if (step.decision && !step.decision.approved) {
    state.diverge({
      step: step.step,
      agentId,
      what: 'a call denied then would run now',
      expected: describeDecision(step.decision),
      actual: `${name} allowed`,
    });
    return undefined;
  }
  const interrupt = state.interruptDuring(step.step);
  if (interrupt) {
    state.triggerInterrupt(interrupt);
    return undefined;
  }
  return step;
}

/**
 * Why a call must not run here: its path (as given, or as the loop checked it) is outside the
 * place. A recording names the paths of the place it ran in (absolute ones too); a live replay
 * touches its own place only, whatever the approvals say. The tools check links themselves.
 */
function leavesPlace(root: string, tool: AnyTool, input: unknown, context: ToolContext): string | undefined {
  let given: string | undefined;
  try {
    given = tool.traits?.path?.(input as never);
  } catch {
    return undefined; // an input the tool refuses itself
  }
  for (const candidate of [given, context.checkedPath]) {
    if (typeof candidate !== 'string' || candidate === '') continue;
    if (!isInside(root, path.resolve(root, candidate)))
      return `${preview(candidate, 200)} is outside this replay's place (${root}): a live replay touches nothing else.`;
  }
  return undefined;
}

/** The usual gate, except that a call denied then is denied again, in the recorded words, without asking. */
function followRecordedDenials(state: ReplayState, gate: ApprovalGate): ApprovalGate {
  return {
    request(request) {
      const step = state.toolStep(state.currentAgent(), request.toolCallId);
      if (state.ended) return Promise.resolve({ approved: false, source: 'user', reason: 'The replay ended.' });
      if (step?.decision && !step.decision.approved)
        return Promise.resolve({
          approved: false,
          source: 'user',
          reason: step.decision.reason ?? 'Denied in the recorded run.',
        });
      return gate.request(request);
    },
  };
}

/** An imported run asks a person about every call that is not read-only (the policy may still deny). */
function askInPerson(policy: ToolPolicy): ToolPolicy {
  return {
    evaluate(call) {
      const verdict = policy.evaluate(call);
      if (call.readOnly || verdict.action === 'deny') return verdict;
      return {
        action: 'ask',
        inPerson: 'This run was imported from another machine: every change its replay makes is asked.',
      };
    },
  };
}

function compareResult(
  loaded: LoadedRecording,
  step: ToolStep,
  live: { output: string; isError: boolean },
): ToolComparison {
  const recorded = loaded.toolResult(step);
  const same = recorded !== undefined && sameValue(recorded, live);
  let difference: string | undefined;
  if (!same)
    difference = !recorded
      ? 'the recording has no result for this call'
      : recorded.isError !== live.isError
        ? `${recorded.isError ? 'failed' : 'succeeded'} then, ${live.isError ? 'fails' : 'succeeds'} now; ${firstDifference(recorded.output, live.output)}`
        : firstDifference(recorded.output, live.output);
  return {
    step: step.step,
    agentId: step.agentId,
    toolName: step.toolName,
    call: describeStep(loaded, step),
    same,
    ...(recorded ? { recorded } : {}),
    live,
    ...(difference ? { difference } : {}),
  };
}
