/**
 * The pieces of a re-run that switch from the recording to the world at step N: a model client,
 * the tools, the policy and the approval gate, each answering from the recording while the run
 * is before N (the replay's own pieces, so nothing is spent and nothing touched) and handing over
 * to the live one from N on. The switch is one flag, set the first time anything reaches N (a
 * model call whose recorded step is N or later, a tool call of step N, the prompt of step N) and
 * never unset: everything after it is live, whatever ids a live model gives its calls.
 */
import type { ApprovalDecisionSource } from '../events/events';
import { approvalDecisionSourceSchema } from '../events/events';
import type { LlmClient, LlmRequest, LlmStreamPart } from '../llm/llm-client';
import type { ApprovalGate, PolicyVerdict, ToolPolicy } from '../policy/approval';
import type { AnyTool, ToolContext, ToolOutput } from '../tools/tool';
import { canonicalJson } from './divergence';
import { recordedApprovals, wasAsked, type RecordedToolSet } from './recorded-tools';
import type { ToolStep } from './recording';
import { replayModelClient } from './replay-model-client';
import type { ReplayState } from './replay-state';

export class LiveSwitch {
  private isLive = false;
  private readonly listeners: Array<() => void> = [];

  constructor(
    /** The recorded step the run goes live at. */
    readonly from: number,
  ) {}

  get live(): boolean {
    return this.isLive;
  }

  goLive(): void {
    if (this.isLive) return;
    this.isLive = true;
    for (const listener of this.listeners.splice(0)) listener();
  }

  onLive(listener: () => void): void {
    if (this.isLive) listener();
    else this.listeners.push(listener);
  }
}

export interface SwitchingModelOptions {
  work: string;
  /** The recorded provider of this work (the replay client's name). */
  provider: string;
  /** Wraps each side for recording (the new run's recorder), with the call it is. */
  record: (client: LlmClient) => LlmClient;
  /** The live client, made when first needed (no key is read for a re-run that never goes live). */
  live: () => LlmClient;
  /** The model the live calls name. */
  liveModel: string;
  /** The recorded lead system prompt, and the one to send instead from N on (a changed preset). */
  system?: { recorded: string; changed: string };
  /** The changed preset's tool list: a live request declares only the tools it lists. */
  offersTool?: (toolName: string) => boolean;
}

/** Recorded answers before N, the live model's from N on. */
export function switchingModelClient(state: ReplayState, live: LiveSwitch, options: SwitchingModelOptions): LlmClient {
  const replay = options.record(replayModelClient(state, { work: options.work, provider: options.provider }));
  let liveClient: LlmClient | undefined;
  return {
    provider: options.provider,
    listModels: (signal) => (liveClient ?? replay).listModels(signal),
    async *stream(request: LlmRequest): AsyncIterable<LlmStreamPart> {
      if (!live.live) {
        const next = state.peekModelStep(state.currentAgent());
        if (next && next.step < live.from) {
          yield* replay.stream(request);
          return;
        }
        live.goLive();
      }
      liveClient ??= options.record(options.live());
      const system =
        options.system && request.system === options.system.recorded ? options.system.changed : request.system;
      const offers = options.offersTool;
      const tools = offers ? request.tools.filter((tool) => offers(tool.name)) : request.tools;
      yield* liveClient.stream({ ...request, model: options.liveModel, system, tools });
    },
  };
}

export interface SwitchingToolsOptions {
  /** The product's tools rooted in the re-run's place: they run from N on. */
  liveTools: readonly AnyTool[];
  /** Step N's changed result, when the change is a tool's result. */
  changedResult?: { output: string; isError: boolean };
  /** A recorded call before N returned, with the files it changed then; a live call ran. */
  onRecorded?(step: ToolStep): void;
  onLive?(tool: AnyTool, input: unknown, output: ToolOutput): void;
}

/**
 * The recorded tool set (offered as the run offered it) whose calls before N return what they
 * returned then; from N on each runs the product's tool of that name, live.
 */
export function switchingTools(
  state: ReplayState,
  live: LiveSwitch,
  recorded: RecordedToolSet,
  options: SwitchingToolsOptions,
): AnyTool[] {
  const liveByName = new Map(options.liveTools.map((tool) => [tool.name, tool] as const));
  return recorded.tools.map((tool) => ({
    ...tool,
    execute: async (input: unknown, context: ToolContext): Promise<ToolOutput | string> => {
      const step = recordedStepOf(state, context);
      if (!live.live && step && step.step < live.from && !state.executed.has(step.step)) {
        const output = await tool.execute(input, context);
        options.onRecorded?.(step);
        return output;
      }
      live.goLive();
      if (step?.step === live.from && options.changedResult && !state.executed.has(step.step)) {
        state.executed.add(step.step);
        return { ...options.changedResult };
      }
      const liveTool = liveByName.get(tool.name);
      if (!liveTool)
        return {
          output: `${tool.name} is not available in this re-run (the product has no such tool now).`,
          isError: true,
        };
      const ran = await liveTool.execute(input, context);
      const output = typeof ran === 'string' ? { output: ran } : ran;
      options.onLive?.(liveTool, input, output);
      return output;
    },
  }));
}

function recordedStepOf(state: ReplayState, context: ToolContext): ToolStep | undefined {
  return state.toolStep(state.recordedAgent(context.agentId), context.toolCallId);
}

/**
 * Decides the calls before N as they were decided then (asked again only where they were asked,
 * answered by the recorded gate), so the replayed part is the recorded one whatever the policy is
 * now; from N on, the usual (or changed) policy. Step N keeps its recorded decision when its
 * result is the change: the call is not run, so nothing is asked about it.
 */
export function switchingPolicy(
  state: ReplayState,
  live: LiveSwitch,
  livePolicy: ToolPolicy,
  lastRecorded: number,
): ToolPolicy {
  const decided = new Set<number>();
  return {
    evaluate(call) {
      if (live.live) return livePolicy.evaluate(call);
      const input = canonicalJson(call.input);
      const step = state.loaded.recording.steps.find(
        (candidate): candidate is ToolStep =>
          candidate.kind === 'tool' &&
          candidate.step <= lastRecorded &&
          candidate.toolName === call.toolName &&
          !decided.has(candidate.step) &&
          !state.executed.has(candidate.step) &&
          canonicalJson(state.loaded.toolInput(candidate)) === input,
      );
      if (!step) return livePolicy.evaluate(call);
      decided.add(step.step);
      return recordedVerdict(step);
    },
  };
}

function recordedVerdict(step: ToolStep): PolicyVerdict {
  const decision = step.decision;
  if (!decision) return { action: 'allow', source: 'read_only' };
  if (wasAsked(decision)) return { action: 'ask' };
  if (!decision.approved) return { action: 'deny', reason: decision.reason ?? decision.rule ?? 'Denied then.' };
  return {
    action: 'allow',
    source: decisionSource(decision.source),
    ...(decision.rule ? { rule: decision.rule } : {}),
  };
}

/** The recorded gate before N (and for step N when its result is the change), the live one after. */
export function switchingApprovals(
  state: ReplayState,
  live: LiveSwitch,
  liveGate: ApprovalGate,
  lastRecorded: number,
): ApprovalGate {
  const recorded = recordedApprovals(state);
  return {
    request(request) {
      if (!live.live) {
        const step = state.toolStep(state.currentAgent(), request.toolCallId);
        if (step && step.step <= lastRecorded && !state.executed.has(step.step)) return recorded.request(request);
      }
      return liveGate.request(request);
    },
  };
}

function decisionSource(source: string): ApprovalDecisionSource {
  const parsed = approvalDecisionSourceSchema.safeParse(source);
  return parsed.success ? parsed.data : 'policy';
}
