/**
 * What every way of running a recording again (replay with recorded tools, replay with live
 * tools, re-run from a step) reads off it the same way: the model each kind of work used, the
 * limits, a prompt's attached context, the step range asked for, and whether the run went as
 * far as the recording.
 */
import { DEFAULT_LIMITS, type AgentLimits } from '../agent/agent-loop';
import type { WorkKind } from '../policy/model-routes';
import { preview } from './divergence';
import { RecordingProblem, type LoadedRecording } from './loaded-recording';
import type { PromptStep, RecordedStep } from './recording';
import type { ReplayState } from './replay-state';

/** A recorded step in a few words (divergence reports, Compare rows). */
export function describeStep(loaded: LoadedRecording, step: RecordedStep): string {
  switch (step.kind) {
    case 'model':
      return `model call (${step.work}, ${step.model})${step.error ? ` failing: ${preview(step.error.message, 80)}` : ''}`;
    case 'tool':
      return `${step.toolName} ${preview(loaded.toolInput(step), 120)}`;
    case 'prompt':
      return `${step.redirect ? 'redirect' : 'prompt'} ${preview(loaded.content(step.text), 120)}`;
    case 'interrupt':
      return step.redirect ? 'redirect by the user' : 'stop by the user';
  }
}

/** The model recorded for a kind of work: its own entry, else the main (chat) one, else the first call's. */
export function modelFor(loaded: LoadedRecording, work: WorkKind): { provider: string; model: string } {
  const models = loaded.recording.manifest.models;
  const entry =
    models.find((candidate) => candidate.work === work) ?? models.find((candidate) => candidate.work === 'chat');
  if (entry) return { provider: entry.provider, model: entry.model };
  const first = loaded.recording.steps.find((step) => step.kind === 'model');
  if (first?.kind === 'model') return { provider: first.provider, model: first.model };
  return models[0] ?? { provider: 'recording', model: 'recorded-model' };
}

/** The recorded limits that are limits (finite, not negative), as the loop takes them. */
export function recordedLimits(recorded: Record<string, number | undefined>): Partial<AgentLimits> {
  const limits: Partial<AgentLimits> = {};
  for (const key of Object.keys(DEFAULT_LIMITS).concat(['tokenBudget', 'contextWindow', 'callCostWarningUsd'])) {
    const value = recorded[key];
    if (typeof value === 'number' && Number.isFinite(value) && value >= 0) limits[key as keyof AgentLimits] = value;
  }
  return limits;
}

/** A prompt step's attached context (mentions), as the loop takes it. */
export function promptContext(
  loaded: LoadedRecording,
  step: PromptStep,
): { labels: string[]; text: string } | undefined {
  if (!step.context) return undefined;
  const context = loaded.content(step.context);
  if (typeof context === 'string') return { labels: [], text: context };
  const shaped = context as { labels?: unknown; text?: unknown } | null;
  if (shaped && typeof shaped.text === 'string')
    return {
      labels: Array.isArray(shaped.labels) ? shaped.labels.filter((label) => typeof label === 'string') : [],
      text: shaped.text,
    };
  return undefined;
}

/** `--until` within the recording's steps, or a RecordingProblem saying which steps there are. */
export function checkUntil(loaded: LoadedRecording, until: number | undefined): void {
  if (until === undefined) return;
  const last = loaded.lastStep;
  if (last === 0) throw new RecordingProblem('This recording has no steps to replay.');
  if (!Number.isSafeInteger(until) || until < 1 || until > last)
    throw new RecordingProblem(`Step ${preview(until, 24)} is out of range: this recording has steps 1 to ${last}.`);
}

/** A run that ended with recorded steps left over did less than the recording. */
export function checkAllUsed(state: ReplayState): void {
  const until = state.until ?? Number.POSITIVE_INFINITY;
  const left = state.loaded.recording.steps.find((step) => step.step <= until && !state.used.has(step.step));
  if (!left) return;
  state.diverge({
    step: left.step,
    ...('agentId' in left ? { agentId: left.agentId } : {}),
    what: 'the run ended before this step',
    expected: describeStep(state.loaded, left),
    actual: 'the run ended',
  });
}
