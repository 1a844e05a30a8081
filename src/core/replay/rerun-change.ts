/**
 * What a re-run from step N changes (SPEC: replay and compare, "Re-run from step N with one thing
 * changed"), and whether that change applies at N. Checked before anything runs or is made: a
 * step out of range, a change for another kind of step, or one for another step is refused with
 * words for the user, and nothing is spent.
 */
import type { ToolPolicy } from '../policy/approval';
import { preview } from './divergence';
import { RecordingProblem, type LoadedRecording } from './loaded-recording';
import type { RecordedStep } from './recording';

/** One thing changed from step N on (several may be given; each must apply at N). */
export interface RerunChange {
  /** Another model from N on (every kind of work); default: the recorded one. */
  model?: string;
  /** Another provider from N on; default: the recorded one. */
  provider?: string;
  /** Another system prompt (a preset's prompt) for the calls from N on. */
  system?: string;
  /**
   * The changed preset's tool list (a custom agent's `tools:`): from N on, a tool it does not
   * list is neither offered nor run, as in a conversation under that preset.
   */
  offersTool?: (toolName: string) => boolean;
  /** Another policy for the tool calls from N on; default: the caller's usual one. */
  policy?: ToolPolicy;
  /** Step N is a tool call: it returns this instead of running. */
  toolResult?: { step: number; output: string; isError: boolean };
  /** Step N is a prompt: it is sent with this text instead. */
  message?: { step: number; text: string };
}

/** The longest replacement text or tool output a change may carry. */
export const MAX_CHANGED_TEXT_CHARS = 1_000_000;

/** The recorded step N a re-run goes live at; a RecordingProblem when N or the change does not fit. */
export function checkRerun(loaded: LoadedRecording, from: number, change: RerunChange): RecordedStep {
  const last = loaded.lastStep;
  if (last === 0) throw new RecordingProblem('This recording has no steps to re-run from.');
  if (!Number.isSafeInteger(from) || from < 1 || from > last)
    throw new RecordingProblem(`Step ${preview(from, 24)} is out of range: this recording has steps 1 to ${last}.`);
  const step = loaded.byNumber.get(from);
  if (!step) throw new RecordingProblem(`This recording has no step ${from} (its steps are not numbered one by one).`);
  if (step.kind === 'interrupt')
    throw new RecordingProblem(
      `Step ${from} is where the user stopped the run, not something to re-run: start from the step before or after it.`,
    );
  const kind = describeKind(step);
  if (change.message) {
    if (change.message.step !== from)
      throw new RecordingProblem(
        `The new message is for step ${change.message.step}, but the re-run starts at step ${from}.`,
      );
    if (step.kind !== 'prompt')
      throw new RecordingProblem(
        `A new message replaces a prompt, and step ${from} is ${kind}: re-run from a prompt step to change what the user said.`,
      );
    if (typeof change.message.text !== 'string' || change.message.text.trim() === '')
      throw new RecordingProblem('The new message is empty.');
    if (change.message.text.length > MAX_CHANGED_TEXT_CHARS)
      throw new RecordingProblem(`The new message is longer than ${MAX_CHANGED_TEXT_CHARS} characters.`);
  }
  if (change.toolResult) {
    if (change.toolResult.step !== from)
      throw new RecordingProblem(
        `The new tool result is for step ${change.toolResult.step}, but the re-run starts at step ${from}.`,
      );
    if (step.kind !== 'tool')
      throw new RecordingProblem(
        `A new tool result replaces a tool call's, and step ${from} is ${kind}: re-run from a tool step to change what a tool returned.`,
      );
    if (typeof change.toolResult.output !== 'string' || change.toolResult.output.length > MAX_CHANGED_TEXT_CHARS)
      throw new RecordingProblem(`The new tool result must be text of at most ${MAX_CHANGED_TEXT_CHARS} characters.`);
  }
  for (const [name, value] of [
    ['model', change.model],
    ['provider', change.provider],
  ] as const) {
    if (
      value !== undefined &&
      (value.trim() === '' || value.length > 200 || [...value].some((char) => char.charCodeAt(0) < 0x20))
    )
      throw new RecordingProblem(`The ${name} "${preview(value, 40)}" is not a ${name} name.`);
  }
  if (change.system !== undefined && change.system.length > MAX_CHANGED_TEXT_CHARS)
    throw new RecordingProblem(`The new system prompt is longer than ${MAX_CHANGED_TEXT_CHARS} characters.`);
  return step;
}

export function describeKind(step: RecordedStep): string {
  switch (step.kind) {
    case 'model':
      return `a model call (${step.work}, ${step.model})`;
    case 'tool':
      return `a ${step.toolName} call`;
    case 'prompt':
      return step.redirect ? 'a redirect by the user' : 'a prompt';
    case 'interrupt':
      return 'a stop by the user';
  }
}
