/**
 * The editor's side of replay and compare (SPEC: replay and compare), without `vscode`: which
 * conversations have recordings (for the Compare tab's pickers and "Replay Conversation"), the
 * replay with recorded tools and its outcome in words, and "Re-run from here with…" — the
 * choices it offers, and the re-run itself (rerunFrom, core) in a fresh worktree. The editor
 * gives the quick picks, notifications, approvals and places through ports; unit-tested in Node.
 */
import type { Clock, ConversationStore } from '../../core/ports';
import type { Worktree } from '../../core/session/worktree-port';
import type { LlmClient } from '../../core/llm/llm-client';
import type { KnownSecrets } from '../../core/llm/redact';
import type { ApprovalGate, ToolPolicy } from '../../core/policy/approval';
import type { WorkKind } from '../../core/policy/model-routes';
import { loadRecording, RecordingProblem, type LoadedRecording } from '../../core/replay/loaded-recording';
import { reapplyFileChanges, type ReapplyPlace } from '../../core/replay/reapply-files';
import type { RecordingStore, RunManifest } from '../../core/replay/recording';
import { checkRerun, type RerunChange } from '../../core/replay/rerun-change';
import { rerunFrom } from '../../core/replay/rerun-run';
import { replayRun, type ReplayOutcome } from '../../core/replay/replay-run';
import type { AnyTool } from '../../core/tools/tool';
import { MAX_COMPARE_CHOICES, type CompareChoice } from '../../protocol/messages';
import { oneLine } from './compare-view';
import type { CompareSource } from './panel-compare';

/** The store's recordings: the store itself, or its `recordings` (the sql.js store keeps them beside). */
export function recordingsOf(store: ConversationStore): RecordingStore | undefined {
  const isRecordings = (candidate: unknown): candidate is RecordingStore =>
    typeof (candidate as Partial<RecordingStore> | undefined)?.getRecording === 'function' &&
    typeof (candidate as Partial<RecordingStore>).getContent === 'function';
  const nested = (store as { recordings?: unknown }).recordings;
  if (isRecordings(nested)) return nested;
  return isRecordings(store) ? store : undefined;
}

/** The newest conversations, each saying whether it has a recording, and recordings loaded by id. */
export function storeRuns(openStore: () => Promise<ConversationStore>): Required<Omit<CompareSource, 'rerun'>> {
  const recordings = async () => {
    const found = recordingsOf(await openStore());
    if (!found) throw new RecordingProblem('This store keeps no recordings.');
    return found;
  };
  return {
    choices: async () => {
      const store = await openStore();
      const kept = recordingsOf(store);
      const listed = await store.listConversations({ limit: MAX_COMPARE_CHOICES });
      const choices: CompareChoice[] = [];
      for (const conversation of listed) {
        const recording = kept ? await kept.getRecording(conversation.id).catch(() => undefined) : undefined;
        choices.push({
          id: conversation.id,
          title: oneLine(conversation.title) || 'Untitled',
          createdAt: conversation.createdAt,
          recorded: recording !== undefined && recording.steps.length > 0,
        });
      }
      return choices;
    },
    load: async (conversationId) => loadRecording(await recordings(), conversationId),
  };
}

export interface ReplayFlowDeps {
  runs: Pick<CompareSource, 'choices' | 'load'>;
  /** The quick pick: a conversation's id, or undefined when the user let it be. */
  pick(choices: readonly CompareChoice[]): Promise<string | undefined>;
  /** The product's tools now, for their traits (none runs). */
  currentTools?(): readonly AnyTool[];
  policy?: ToolPolicy;
  /** Shows the outcome; resolves true when the user asked to see it in the developer panel. */
  tell(outcome: { level: 'info' | 'warning'; text: string }): Promise<boolean>;
  showCompare(a: string, b: string, replay: { reproduced: boolean; divergence?: ReplayOutcome['divergence'] }): void;
}

/** "OpenAgent: Replay Conversation": pick a recorded conversation, replay it with recorded tools, tell. */
export async function replayConversation(deps: ReplayFlowDeps): Promise<ReplayOutcome | undefined> {
  const choices = await deps.runs.choices();
  if (!choices.some((choice) => choice.recorded)) {
    await deps.tell({
      level: 'info',
      text: 'No conversation has a recording yet: a conversation is recorded as it runs, then it can be replayed.',
    });
    return undefined;
  }
  const id = await deps.pick(choices);
  if (id === undefined) return undefined;
  const choice = choices.find((candidate) => candidate.id === id);
  if (!choice?.recorded) {
    await deps.tell({
      level: 'warning',
      text: `“${choice?.title ?? id.slice(0, 40)}” has no recording: it ran before recording existed, or recording was off.`,
    });
    return undefined;
  }
  let outcome: ReplayOutcome;
  try {
    const loaded = await deps.runs.load(id);
    outcome = await replayRun(loaded, {
      ...(deps.currentTools ? { currentTools: deps.currentTools() } : {}),
      ...(deps.policy ? { policy: deps.policy } : {}),
    });
  } catch (error) {
    await deps.tell({ level: 'warning', text: `Cannot replay “${choice.title}”: ${messageOf(error)}` });
    return undefined;
  }
  const show = await deps.tell(describeReplay(choice.title, outcome));
  if (show)
    deps.showCompare(id, id, {
      reproduced: outcome.reproduced,
      ...(outcome.divergence ? { divergence: outcome.divergence } : {}),
    });
  return outcome;
}

/** A replay's outcome as a notification: reproduced, or the first divergence (step, expected, happened). */
export function describeReplay(title: string, outcome: ReplayOutcome): { level: 'info' | 'warning'; text: string } {
  const steps = `${outcome.stepsReplayed} of ${outcome.lastStep} steps`;
  const name = `“${oneLine(title)}”`;
  const divergence = outcome.divergence;
  if (divergence)
    return {
      level: 'warning',
      text: `Replay of ${name} diverged at step ${divergence.step}: ${oneLine(divergence.what)}. Expected: ${oneLine(divergence.expected)}. Happened: ${oneLine(divergence.actual)}. (${steps} replayed.)`,
    };
  const end =
    outcome.ended === 'truncated'
      ? ' as far as it was recorded (it never finished)'
      : outcome.ended === 'until'
        ? ' up to the step asked'
        : '';
  return { level: 'info', text: `Replay of ${name} reproduced the run${end} (${steps}, recorded tools).` };
}

/** One thing "Re-run from here with…" may change, as the quick pick lists it. */
export interface RerunOption {
  label: string;
  description?: string;
  kind: 'model' | 'preset' | 'message';
  /** The model or the preset's name. */
  value?: string;
}

/**
 * What may change from step `step`: another model (the configured ones and the recorded ones,
 * the one recorded there marked), another preset, and — at a prompt — the user's message.
 */
export function rerunOptions(
  loaded: LoadedRecording,
  step: number,
  available: { models: readonly string[]; presets: readonly string[] },
): RerunOption[] {
  const recorded = loaded.recording.steps.find((candidate) => candidate.step === step);
  const recordedModels = loaded.recording.manifest.models.map((entry) => entry.model);
  const current = recorded?.kind === 'model' ? recorded.model : recordedModels[0];
  const models = [...new Set([...available.models, ...recordedModels])].filter((model) => model.trim() !== '');
  const options: RerunOption[] = models.slice(0, 100).map((model) => ({
    label: `Model: ${oneLine(model)}`,
    ...(model === current ? { description: 'as recorded' } : {}),
    kind: 'model',
    value: model,
  }));
  for (const preset of available.presets.slice(0, 100))
    options.push({
      label: `Preset: ${oneLine(preset)}`,
      ...(preset === loaded.recording.manifest.preset ? { description: 'as recorded' } : {}),
      kind: 'preset',
      value: preset,
    });
  if (recorded?.kind === 'prompt') options.push({ label: 'Another message…', kind: 'message' });
  return options;
}

export interface RerunFlowDeps {
  /** The change chosen (a quick pick, and an input box for a message); undefined: let be. */
  chooseChange(options: RerunOption[]): Promise<{ option: RerunOption; message?: string } | undefined>;
  models(): Promise<readonly string[]>;
  presets(): Promise<readonly string[]>;
  /** A preset's system prompt, and its tool list when it has one (a custom agent's). */
  presetSystem(name: string): Promise<{ system: string; offersTool?: (toolName: string) => boolean }>;
  /** A fresh worktree at the recorded commit (makeRerunPlace, node), named by `short`. */
  place(
    manifest: RunManifest,
    short: string,
  ): Promise<{ root: string; manifestPlace: RunManifest['place']; notices: string[]; worktree?: Worktree }>;
  /**
   * A re-run made in a worktree becomes a session of the window (the Sessions list): its chat,
   * Review, Apply, Keep Branch and Discard, as any worktree session's.
   */
  keepAsSession?(name: string, worktree: Worktree, conversationId: string): Promise<void>;
  /** The product's tools rooted in `root`, and that folder for putting back the recorded writes. */
  tools(root: string): { tools: readonly AnyTool[]; workspace: ReapplyPlace };
  modelClient(binding: { provider: string; model: string; work: WorkKind }): LlmClient;
  /** The editor's approval notifications. */
  approvals: ApprovalGate;
  policy?: ToolPolicy;
  /**
   * What every session of the window gets on top of its gate and policy, for the place the
   * re-run works in (named approvers: a guarded call becomes a request to the team, with paths
   * relative to the re-run's worktree). A re-run runs live tools: it is guarded like a session.
   */
  guard?(
    root: string,
    guarded: { approvals: ApprovalGate; policy?: ToolPolicy },
  ): { approvals: ApprovalGate; policy?: ToolPolicy };
  recordings(): Promise<RecordingStore>;
  /** The conversation history the re-run is kept in (absent: a recording only). */
  conversations?(): Promise<ConversationStore>;
  newId(): string;
  clock: Clock;
  product: string;
  secrets?: () => KnownSecrets;
  /** Progress and notes for the user. */
  tell(level: 'info' | 'warning', text: string): void;
  /** Runs the re-run under a progress notification (default: as it is). */
  progress?<T>(title: string, work: () => Promise<T>): Promise<T>;
}

/** "Re-run from here with…": asks what to change, re-runs, resolves with the new conversation's id. */
export async function rerunInEditor(
  loaded: LoadedRecording,
  step: number,
  deps: RerunFlowDeps,
): Promise<string | undefined> {
  // Out of range: refused before anything is asked or made.
  checkRerun(loaded, step, {});
  const [models, presets] = await Promise.all([
    deps.models().catch(() => [] as string[]),
    deps.presets().catch(() => [] as string[]),
  ]);
  const chosen = await deps.chooseChange(rerunOptions(loaded, step, { models, presets }));
  if (!chosen) return undefined;
  const change: RerunChange = {};
  const { option } = chosen;
  if (option.kind === 'model' && option.value) change.model = option.value;
  if (option.kind === 'preset' && option.value) {
    const preset = await deps.presetSystem(option.value);
    change.system = preset.system;
    if (preset.offersTool) change.offersTool = preset.offersTool;
  }
  if (option.kind === 'message') {
    if (chosen.message === undefined || chosen.message.trim() === '') return undefined;
    change.message = { step, text: chosen.message };
  }
  checkRerun(loaded, step, change);
  const id = deps.newId();
  const place = await deps.place(loaded.recording.manifest, id.slice(0, 8));
  for (const notice of place.notices) deps.tell('info', notice);
  const { tools, workspace } = deps.tools(place.root);
  const local = { approvals: deps.approvals, ...(deps.policy ? { policy: deps.policy } : {}) };
  const guarded = deps.guard ? deps.guard(place.root, local) : local;
  const reapplied = await reapplyFileChanges(loaded, step, tools, workspace);
  for (const refused of reapplied.refused)
    deps.tell('warning', `Not put back: step ${refused.step} (${refused.path || 'no path'}): ${refused.reason}.`);
  const recordings = await deps.recordings();
  const history = await deps.conversations?.();
  const original = await history?.getConversation(loaded.recording.manifest.conversationId);
  const what =
    option.kind === 'model'
      ? `model ${option.value}`
      : option.kind === 'preset'
        ? `preset ${option.value}`
        : 'another message';
  let recordingError: unknown;
  const run = () =>
    rerunFrom(loaded, step, change, {
      modelClient: deps.modelClient,
      tools,
      place: place.manifestPlace,
      ...(guarded.policy ? { policy: guarded.policy } : {}),
      approvals: guarded.approvals,
      recordings,
      ...(history
        ? {
            conversations: {
              store: history,
              settings: change.model ? { model: change.model } : {},
              title: `Re-run of “${original?.title ?? loaded.recording.manifest.conversationId}” from step ${step} (${what})`,
            },
          }
        : {}),
      newId: () => id,
      clock: deps.clock,
      product: deps.product,
      ...(option.kind === 'preset' && option.value ? { preset: option.value } : {}),
      ...(deps.secrets ? { secrets: deps.secrets } : {}),
      onRecordingError: (error) => (recordingError ??= error),
    });
  const outcome = await (deps.progress ? deps.progress(`Re-running from step ${step}…`, run) : run());
  if (outcome.divergence)
    throw new RecordingProblem(
      `the replay of the steps before ${step} parted from the recording at step ${outcome.divergence.step}: ${outcome.divergence.what}. Nothing ran live.`,
    );
  if (recordingError) throw new RecordingProblem(`the re-run could not be recorded: ${messageOf(recordingError)}`);
  for (const note of outcome.notes) deps.tell('info', note);
  deps.tell('info', `The re-run works in ${place.root}.`);
  if (place.worktree && deps.keepAsSession)
    await deps
      .keepAsSession(`Re-run from step ${step} (${what})`, place.worktree, outcome.conversationId)
      .catch((error: unknown) =>
        deps.tell('warning', `The re-run could not be added to the Sessions list: ${messageOf(error)}`),
      );
  return outcome.conversationId;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
