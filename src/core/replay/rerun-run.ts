/**
 * Re-runs a recorded run from step N with one thing changed (SPEC: replay and compare): the steps
 * before N are replayed from the recording — its answers, its tool results and its decisions, so
 * no token is spent and nothing is touched — and at N the run goes live: a real model client (the
 * changed model or provider, or the recorded one), the product's tools rooted in a place the
 * caller gives (a fresh worktree at the recorded commit), the usual policy and approvals. The
 * user's later prompts are sent again in order once each run ends.
 *
 * The new run is a conversation of its own, recorded whole (the replayed steps too, so the two
 * recordings line up step for step) with `forkedFrom` naming the original and N: compareRuns on
 * the two says where they part. The editor's "Re-run from here with…" calls this same function.
 */
import * as path from 'node:path';
import { Conversation } from '../agent/conversation';
import { DEFAULT_LIMITS, type AgentLimits } from '../agent/agent-loop';
import type { Hooks } from '../agent/hooks';
import type { AgentEvent } from '../events/events';
import type { LlmClient } from '../llm/llm-client';
import type { KnownSecrets } from '../llm/redact';
import { defaultToolPolicy, type ApprovalGate, type ToolPolicy } from '../policy/approval';
import type { WorkKind } from '../policy/model-routes';
import type { AnyTool } from '../tools/tool';
import { abortableSleep } from '../llm/retry';
import type { Clock, ConversationStore } from '../ports';
import { contentOf } from './content-hash';
import type { Divergence } from './divergence';
import type { LoadedRecording } from './loaded-recording';
import { recordedTools } from './recorded-tools';
import type { InterruptStep, PromptStep, RecordingStore, RunManifest } from './recording';
import { ReplayState } from './replay-state';
import { modelFor, promptContext, recordedLimits } from './recorded-basis';
import { checkRerun, type RerunChange } from './rerun-change';
import { LiveSwitch, switchingApprovals, switchingModelClient, switchingPolicy, switchingTools } from './rerun-switch';
import { RunRecorder } from './run-recorder';
import { ConversationRecorder } from '../session/conversation-recorder';

export interface RerunDeps {
  /** The live model client for a provider and model (read its key only when called). */
  modelClient(binding: { provider: string; model: string; work: WorkKind }): LlmClient;
  /** The product's tools, rooted in `place`: they run from N on. */
  tools: readonly AnyTool[];
  /** Where the live tools work: a fresh worktree at the recorded commit, or a scratch copy. */
  place: RunManifest['place'];
  /** The usual policy (a changed one wins); default: read-only tools run, the rest asks. */
  policy?: ToolPolicy;
  /** The policy's value and files, for the new recording's manifest. */
  policySource?: { value: unknown; sources: string[] };
  approvals: ApprovalGate;
  hooks?: Hooks;
  /** Where the new run is recorded. */
  recordings: RecordingStore;
  /**
   * The conversation history: when given, the new run is kept there as a conversation of its
   * own (titled as a re-run of the original), so the history, `/resume` and the panel show it.
   */
  conversations?: { store: ConversationStore; settings?: Record<string, unknown>; title?: string };
  newId(): string;
  clock: Clock;
  /** The product's version, for the new recording. */
  product: string;
  /** The preset the changed system prompt is, by name. */
  preset?: string;
  secrets?: () => KnownSecrets;
  limits?: Partial<AgentLimits>;
  /**
   * The recording came from another machine (imported): from N on, every call that is not
   * read-only is put to a person, whatever the policy or `--yes` says.
   */
  imported?: boolean;
  /** Each event of the new run, and whether the run was live then. */
  onEvent?(event: AgentEvent, live: boolean): void;
  /** A recording store failure (told once). */
  onRecordingError?(error: unknown): void;
  /** Stops the re-run (the user's Ctrl-C). */
  signal?: AbortSignal;
}

export interface RerunOutcome {
  /** The new conversation (its recording is in `deps.recordings`). */
  conversationId: string;
  /** The run reached step N and went live there. */
  wentLive: boolean;
  /** The replay of the steps before N parted from the recording: nothing ran live. */
  divergence?: Divergence;
  /** Recorded steps replayed before going live. */
  stepsReplayed: number;
  events: AgentEvent[];
  /** What the re-run did not reproduce, or did differently, in words. */
  notes: string[];
}

/** Re-runs `loaded` from step `from` with `change`; a RecordingProblem (nothing run) when N or the change does not fit. */
export async function rerunFrom(
  loaded: LoadedRecording,
  from: number,
  change: RerunChange,
  deps: RerunDeps,
): Promise<RerunOutcome> {
  const start = checkRerun(loaded, from, change);
  const manifest = loaded.recording.manifest;
  const id = deps.newId();
  const live = new LiveSwitch(from);
  const notes: string[] = [];
  const prompts = loaded.recording.steps.filter((step): step is PromptStep => step.kind === 'prompt');
  const state = new ReplayState(loaded, {
    stop: () => conversation.stop(),
    interrupt: (step) => interrupt(step),
  });
  const promptText = (prompt: PromptStep) =>
    prompt.step === from && change.message ? change.message.text : (loaded.content(prompt.text) as string);
  const interrupt = (step: InterruptStep) => {
    const redirect = step.redirect
      ? prompts.find((prompt) => prompt.redirect && prompt.step > step.step && !state.used.has(prompt.step))
      : undefined;
    if (redirect && redirect.step >= from) {
      live.goLive();
      state.used.add(redirect.step);
      void conversation.interrupt(promptText(redirect));
    } else if (redirect && state.reach(redirect)) void conversation.interrupt(promptText(redirect));
    else conversation.stop();
  };

  // Files the new run changed, for its recording (the replayed steps' as recorded).
  const touched = new Set<string>();
  let turn = 0;
  const recorder = new RunRecorder({
    store: () => Promise.resolve(deps.recordings),
    basis: () => ({
      product: deps.product,
      place: deps.place,
      models: manifest.models.map((entry) => ({ ...entry, ...liveBinding(entry) })),
      ...(deps.preset ? { preset: deps.preset } : manifest.preset ? { preset: manifest.preset } : {}),
      policy: deps.policySource
        ? { hash: contentOf(deps.policySource.value ?? null).ref, sources: deps.policySource.sources }
        : manifest.policy,
      limits: { ...DEFAULT_LIMITS, ...manifest.limits, ...deps.limits },
      forkedFrom: { conversationId: manifest.conversationId, seq: 0, step: from },
      system: loaded.system,
    }),
    secrets: deps.secrets,
    now: () => clock.now(),
    onError: (error) => deps.onRecordingError?.(error),
    changedFiles: () => ({ turn, root: deps.place.root, paths: [...touched] }),
  });
  recorder.follow(id);

  const liveBinding = (recorded: { provider: string; model: string }) => ({
    provider: change.provider ?? recorded.provider,
    model: change.model ?? recorded.model,
  });
  const binding = (work: WorkKind) => {
    const recorded = modelFor(loaded, work);
    const chosen = liveBinding(recorded);
    return {
      model: recorded.model,
      llm: switchingModelClient(state, live, {
        work,
        provider: recorded.provider,
        record: (client) => recorder.wrapModel(client, { conversationId: id, agentId: 'lead', work }),
        live: () => deps.modelClient({ ...chosen, work }),
        liveModel: chosen.model,
        ...(change.system !== undefined ? { system: { recorded: loaded.system, changed: change.system } } : {}),
        ...(change.offersTool ? { offersTool: change.offersTool } : {}),
      }),
    };
  };
  const clock: Clock = { now: () => (live.live ? deps.clock.now() : state.now()) };
  const recordedSet = recordedTools(state, deps.tools);
  for (const skipped of recordedSet.skipped) notes.push(`A recorded tool was left out: ${skipped}`);
  const lastRecorded = change.toolResult ? from : from - 1;
  const usual = change.policy ?? deps.policy ?? defaultToolPolicy;
  const livePolicy = deps.imported ? inPersonPolicy(usual) : usual;
  const conversation = new Conversation({
    id,
    model: binding('chat'),
    compactionModel: binding('compaction'),
    finalSummaryModel: binding('final_summary'),
    subagentModel: binding('subagent'),
    system: loaded.system,
    clock,
    subagents: recordedSet.subagents,
    tools: switchingTools(state, live, recordedSet, {
      liveTools: deps.tools,
      ...(change.toolResult
        ? { changedResult: { output: change.toolResult.output, isError: change.toolResult.isError } }
        : {}),
      onRecorded: (step) => {
        for (const file of step.files ?? []) touched.add(path.resolve(deps.place.root, file.path));
      },
      onLive: (tool, input, output) => {
        const written = tool.traits?.writes && !output.isError ? tool.traits.path?.(input) : undefined;
        if (typeof written === 'string') touched.add(path.resolve(deps.place.root, written));
      },
    }),
    ...(deps.hooks ? { hooks: deps.hooks } : {}),
    policy: switchingPolicy(state, live, livePolicy, lastRecorded),
    approvals: switchingApprovals(state, live, deps.approvals, lastRecorded),
    limits: { ...recordedLimits(manifest.limits), ...deps.limits },
    // The replayed steps offered what they offered; once live, the changed preset's tools only
    // (a live request declares only those: switchingModelClient), and no other runs.
    ...(change.offersTool ? { offerTool: (tool: AnyTool) => !live.live || change.offersTool!(tool.name) } : {}),
    // Recorded failures are retried at once; live ones wait as any run does.
    retry: { sleep: (ms, signal) => (live.live ? abortableSleep(ms, signal) : Promise.resolve()) },
  });
  const events: AgentEvent[] = [];
  const history = deps.conversations
    ? new ConversationRecorder({
        store: deps.conversations.store,
        conversationId: id,
        now: () => clock.now(),
        settings: { ...deps.conversations.settings, rerunOf: { conversationId: manifest.conversationId, step: from } },
        ...(deps.secrets ? { secrets: deps.secrets } : {}),
        onError: (error) => deps.onRecordingError?.(error),
      })
    : undefined;
  conversation.subscribe((event) => {
    state.observe(event);
    recorder.observe(event);
    history?.record(event);
    if (event.type === 'user_message' && event.agentId === 'lead') turn++;
    events.push(event);
    deps.onEvent?.(event, live.live);
  });
  const onAbort = () => {
    stopped = true;
    conversation.stop();
  };
  let stopped = false;
  deps.signal?.addEventListener('abort', onAbort, { once: true });

  try {
    for (const prompt of prompts) {
      if (state.ended || stopped || deps.signal?.aborted) break;
      if (state.used.has(prompt.step)) continue;
      if (prompt.step >= from) {
        live.goLive();
        state.used.add(prompt.step);
      } else if (!state.reach(prompt)) break;
      if (prompt.redirect && prompt.step > from)
        notes.push(`Step ${prompt.step} redirected the recorded run mid-way: the re-run sends it as a new prompt.`);
      const context = prompt.step === from && change.message ? undefined : promptContext(loaded, prompt);
      await conversation.submit(promptText(prompt), context);
    }
  } finally {
    deps.signal?.removeEventListener('abort', onAbort);
    await recorder.flush();
    if (history) await keepInHistory(history, deps.conversations!, id);
  }
  const divergence = state.divergence;
  if (!live.live && !divergence)
    notes.push(`The replay ended before it reached step ${from} (${start.kind}): nothing ran live.`);
  const laterInterrupts = loaded.recording.steps.filter((step) => step.kind === 'interrupt' && step.step >= from);
  if (live.live && laterInterrupts.length > 0)
    notes.push(
      `The recorded run was stopped by the user at step${laterInterrupts.length === 1 ? '' : 's'} ${laterInterrupts.map((step) => step.step).join(', ')}: a live run is not stopped there.`,
    );
  return {
    conversationId: id,
    wentLive: live.live,
    ...(divergence ? { divergence } : {}),
    stepsReplayed: [...state.used].filter((step) => step < from).length,
    events,
    notes,
  };
}

/** From N on, an imported run asks a person about every call that is not read-only. */
function inPersonPolicy(policy: ToolPolicy): ToolPolicy {
  return {
    evaluate(call) {
      const verdict = policy.evaluate(call);
      if (call.readOnly || verdict.action === 'deny') return verdict;
      return { action: 'ask', inPerson: 'This run was imported from another machine: every change it makes is asked.' };
    },
  };
}

/** The re-run's conversation written whole, then titled as a re-run (its first prompt is the original's). */
async function keepInHistory(
  history: ConversationRecorder,
  conversations: NonNullable<RerunDeps['conversations']>,
  id: string,
): Promise<void> {
  await history.flush();
  if (!conversations.title) return;
  const stored = await conversations.store.getConversation(id);
  if (stored) await conversations.store.saveConversation({ ...stored, title: conversations.title.slice(0, 120) });
}
