/**
 * Replays a recorded run with recorded tools: a fresh Conversation with the recording's system
 * prompt and limits, its models answered by the replay model client and its tools by the
 * recording, is given the recorded prompts in order — redirects as redirects, Stops at the
 * recorded point — while policy, hooks and the loop run for real. The replay reports whether it
 * reproduced the run, or the first divergence (the step, what was expected, what happened).
 */
import { Conversation } from '../agent/conversation';
import type { AgentLimits } from '../agent/agent-loop';
import type { Hooks } from '../agent/hooks';
import type { AgentEvent } from '../events/events';
import type { ToolPolicy } from '../policy/approval';
import type { WorkKind } from '../policy/model-routes';
import type { AnyTool } from '../tools/tool';
import { preview, sameValue, type Divergence } from './divergence';
import type { LoadedRecording } from './loaded-recording';
import { firstEventDivergence, normalizeEvents, normalizeEventsWithSources } from './normalize-events';
import { describeDecision, recordedApprovals, recordedTools } from './recorded-tools';
import type { InterruptStep, PromptStep } from './recording';
import { replayModelClient } from './replay-model-client';
import { ReplayState } from './replay-state';
import { checkAllUsed, checkUntil, modelFor, promptContext, recordedLimits } from './recorded-basis';
import { ReplayTeam, recordedTeamOn } from './replay-team';
import { firstTeamEventDivergence } from './team-events';

export { describeStep } from './recorded-basis';

export interface ReplayDeps {
  /** The product's tools now: their traits (read-only, needs approval…) apply to the recorded ones. */
  currentTools?: readonly AnyTool[];
  /** The policy to run under (default: read-only tools run, the rest asks). */
  policy?: ToolPolicy;
  hooks?: Hooks;
  /** A system prompt to replay with instead of the recorded one (what would change with the current one). */
  system?: string;
  /** Limits over the recorded ones. */
  limits?: Partial<AgentLimits>;
  /** Compare every model request with the recorded one (default true). */
  checkRequests?: boolean;
  /** The original run's events, when known: the replay's are compared with them, event by event. */
  expectedEvents?: readonly AgentEvent[];
}

export interface ReplayOutcome {
  /** The replay did what the recording did, up to where it was asked to stop. */
  reproduced: boolean;
  divergence?: Divergence;
  /** How the replay ended: it ran the whole recording, stopped at --until, or at the end of an unfinished recording. */
  ended: 'complete' | 'until' | 'truncated' | 'divergence';
  /** Recorded steps the replay went through. */
  stepsReplayed: number;
  /** The recording's last step. */
  lastStep: number;
  events: AgentEvent[];
  /** Things about the recording the replay worked around (tools it could not offer). */
  warnings: string[];
}

/** Replays a loaded recording; rejects with a RecordingProblem only for a step out of range. */
export async function replayRun(
  loaded: LoadedRecording,
  deps: ReplayDeps = {},
  options: { until?: number } = {},
): Promise<ReplayOutcome> {
  checkUntil(loaded, options.until);
  const steps = loaded.recording.steps;
  // A teammate's prompts reach it through the team (replay-team.ts), not from here.
  const prompts = steps.filter(
    (step): step is PromptStep => step.kind === 'prompt' && (step.agentId ?? 'lead') === 'lead',
  );
  const state = new ReplayState(loaded, {
    until: options.until,
    stop: () => {
      conversation.stop();
      void team?.stop();
    },
    interrupt: (step) => interrupt(step),
  });
  const interrupt = (step: InterruptStep) => {
    const redirect = step.redirect
      ? prompts.find((prompt) => prompt.redirect && prompt.step > step.step && !state.used.has(prompt.step))
      : undefined;
    if (redirect && state.reach(redirect)) void conversation.interrupt(promptText(loaded, redirect).text);
    else conversation.stop();
  };
  const toolSet = recordedTools(state, deps.currentTools);
  const manifest = loaded.recording.manifest;
  const limits = { ...recordedLimits(manifest.limits), ...deps.limits };
  const system = deps.system ?? loaded.system;
  const retry = { sleep: () => Promise.resolve(), random: () => 0 };
  // A run with a team replays with a real team whose teammates answer from the recording.
  const team: ReplayTeam | undefined = recordedTeamOn(toolSet.tools)
    ? new ReplayTeam({
        state,
        tools: toolSet.tools,
        lead: (): Conversation => conversation,
        shared: {
          clock: { now: state.now },
          limits,
          retry,
          ...(deps.hooks ? { hooks: deps.hooks } : {}),
          ...(deps.policy ? { policy: deps.policy } : {}),
        },
        system,
        provider: (work) => modelFor(loaded, work as WorkKind),
        checkRequests: deps.checkRequests,
      })
    : undefined;
  const binding = (work: WorkKind) => {
    const model = modelFor(loaded, work);
    const llm = replayModelClient(state, { work, provider: model.provider, checkRequests: deps.checkRequests });
    return { model: model.model, llm: team ? team.leadModel(llm) : llm };
  };
  const conversation: Conversation = new Conversation({
    id: manifest.conversationId,
    model: binding('chat'),
    compactionModel: binding('compaction'),
    finalSummaryModel: binding('final_summary'),
    subagentModel: binding('subagent'),
    system,
    clock: { now: state.now },
    subagents: toolSet.subagents,
    tools: team ? team.leadTools : toolSet.tools,
    ...(team ? { inboxes: [team.leadInbox] } : {}),
    ...(deps.hooks ? { hooks: deps.hooks } : {}),
    ...(deps.policy ? { policy: deps.policy } : {}),
    approvals: recordedApprovals(state),
    limits,
    // The real retry logic runs on recorded failures, without waiting between attempts.
    retry,
  });
  const events: AgentEvent[] = [];
  const eventSteps: number[] = [];
  conversation.subscribe((event) => {
    state.observe(event);
    team?.observe(event);
    if (state.ended) return;
    events.push(event);
    eventSteps.push(state.currentStep);
    checkEvent(state, event);
  });

  for (const prompt of prompts) {
    if (state.ended) break;
    if (state.used.has(prompt.step)) continue;
    if (!state.reach(prompt)) break;
    const { text, context } = promptText(loaded, prompt);
    if (team) await team.lead(() => conversation.submit(text, context));
    else await conversation.submit(text, context);
  }
  await team?.finish();
  if (!state.ended) checkAllUsed(state);
  let divergence = state.divergence;
  if (deps.expectedEvents) {
    const actual = normalizeEventsWithSources(events);
    const expected = normalizeEvents(deps.expectedEvents);
    // Agents of a team run concurrently: each agent's own sequence is compared, not the interleaving.
    const found = team
      ? firstTeamEventDivergence(expected, actual.events, state.ended !== undefined)
      : firstEventDivergence(expected, actual.events);
    const step = found ? (eventSteps[actual.sources[found.index] ?? -1] ?? state.currentStep) : undefined;
    if (found && step !== undefined && (!divergence || step < divergence.step))
      divergence = { step, what: found.what, expected: found.expected, actual: found.actual };
  }
  const ending = state.ended;
  return {
    reproduced: divergence === undefined,
    ...(divergence ? { divergence } : {}),
    ended: divergence
      ? 'divergence'
      : ending?.kind === 'until' || ending?.kind === 'truncated'
        ? ending.kind
        : 'complete',
    stepsReplayed: state.used.size,
    lastStep: loaded.lastStep,
    events,
    warnings: toolSet.skipped.map((skipped) => `A recorded tool was left out: ${skipped}`),
  };
}

/** Tool results and decisions as the loop made them, against the recorded ones. */
function checkEvent(state: ReplayState, event: AgentEvent): void {
  if (event.type !== 'tool_result' && event.type !== 'tool_approval_result') return;
  const agentId = state.recordedAgent(event.agentId);
  const step = state.toolStep(agentId, event.toolCallId);
  if (!step) {
    state.pastTheEnd({
      step: state.currentStep,
      agentId,
      what: 'the run made a tool call the recording does not have',
      expected: 'no such call',
      actual: preview(event),
    });
    return;
  }
  if (!state.used.has(step.step) && !state.reach(step)) return;
  if (event.type === 'tool_approval_result') {
    const recorded = step.decision;
    // Allowed without a question then (no decision event for plain reads) and now: the same.
    if (recorded ? recorded.approved === event.approved : event.approved) return;
    state.diverge({
      step: step.step,
      agentId,
      what: recorded ? `policy now ${event.approved ? 'allows' : 'denies'}` : 'the call was decided now, not then',
      expected: recorded ? describeDecision(recorded) : 'no decision',
      actual: describeDecision({ approved: event.approved, source: event.source, reason: event.reason }),
    });
    return;
  }
  const result = state.loaded.toolResult(step);
  const actual = { output: event.output, isError: event.isError };
  if (result && sameValue(result, actual)) return;
  state.diverge({
    step: step.step,
    agentId,
    what: `the result of ${step.toolName} differs`,
    expected: result ? preview(result) : '(no result recorded)',
    actual: preview(actual),
  });
}

function promptText(
  loaded: LoadedRecording,
  step: PromptStep,
): { text: string; context?: { labels: string[]; text: string } } {
  const context = promptContext(loaded, step);
  return { text: loaded.content(step.text) as string, ...(context ? { context } : {}) };
}
