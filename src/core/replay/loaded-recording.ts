/**
 * A recording made ready to replay or compare: its shape checked, its format version read, and
 * every piece of content its steps refer to fetched once into memory, so a replay never waits
 * on the store and a recording that lacks something is refused before anything runs, naming
 * what it lacks. A recording is untrusted input (it may come from another machine): whatever is
 * wrong with it is a `RecordingProblem` with words for the user, never a crash mid-replay.
 */
import { z } from 'zod';
import type { LlmRequest, LlmStreamPart, ModelMessage } from '../llm/llm-client';
import { joinRequest, joinToolResult } from './recorded-request';
import {
  RECORDING_FORMAT,
  type ContentRef,
  type ModelStep,
  type RecordedStep,
  type RecordingStore,
  type RunRecording,
  type ToolStep,
} from './recording';

/** What is wrong with a recording, in words for the user. */
export class RecordingProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordingProblem';
  }
}

/** The most steps a recording may have (a 50-turn run with sub-agents has a few hundred). */
export const MAX_RECORDED_STEPS = 100_000;

const ref = z.string().regex(/^sha256:[0-9a-f]{64}$/, 'a content reference (sha256:<64 hex>)');
const text = z.string().max(100_000);
const number = z.number().finite();

const modelStepSchema = z.object({
  kind: z.literal('model'),
  step: z.number().int().positive(),
  agentId: text.min(1),
  work: text.min(1),
  provider: text,
  model: text,
  request: ref,
  answer: ref,
  stopReason: z.enum(['end_turn', 'tool_use', 'max_tokens', 'refusal', 'other']).optional(),
  error: z.object({ message: text, kind: text.optional(), status: number.optional() }).optional(),
  startedAt: number,
  durationMs: number,
});
const toolStepSchema = z.object({
  kind: z.literal('tool'),
  step: z.number().int().positive(),
  agentId: text.min(1),
  toolCallId: text.min(1),
  toolName: text.min(1),
  input: ref,
  decision: z
    .object({
      approved: z.boolean(),
      source: text,
      rule: text.optional(),
      reason: text.optional(),
      asked: z.boolean().optional(),
    })
    .optional(),
  result: ref.optional(),
  files: z
    .array(z.object({ path: text, checkpointId: text }))
    .max(10_000)
    .optional(),
  startedAt: number,
  durationMs: number,
});
const promptStepSchema = z.object({
  kind: z.literal('prompt'),
  step: z.number().int().positive(),
  /** The agent the prompt went to (a teammate's name; absent: the lead). */
  agentId: text.min(1).optional(),
  text: ref,
  context: ref.optional(),
  redirect: z.boolean().optional(),
});
const interruptStepSchema = z.object({
  kind: z.literal('interrupt'),
  step: z.number().int().positive(),
  during: z.number().int().positive().optional(),
  redirect: z.boolean(),
});
const stepSchema = z.discriminatedUnion('kind', [
  modelStepSchema,
  toolStepSchema,
  promptStepSchema,
  interruptStepSchema,
]);

const manifestSchema = z.object({
  format: z.number(),
  product: text,
  conversationId: text.min(1),
  startedAt: number,
  place: z.object({ kind: z.enum(['workspace', 'worktree']), root: text }).loose(),
  models: z.array(z.object({ work: text, provider: text, model: text })).max(1_000),
  preset: text.optional(),
  system: ref,
  tools: z.array(z.object({ name: z.string().max(10_000), schema: ref })).max(10_000),
  policy: z.object({ hash: text, sources: z.array(text).max(1_000) }),
  limits: z.record(z.string(), number.optional()),
});

/** The value behind a tool step's `result` ref. */
export interface RecordedResult {
  output: string;
  isError: boolean;
}

/** A recording with its content at hand. */
export interface LoadedRecording {
  recording: RunRecording;
  /** Steps by number. */
  byNumber: ReadonlyMap<number, RecordedStep>;
  system: string;
  /** A model step's request (without signal) and the parts of its answer. */
  request(step: ModelStep): Omit<LlmRequest, 'signal' | 'onSilence'>;
  answer(step: ModelStep): LlmStreamPart[];
  toolInput(step: ToolStep): unknown;
  toolResult(step: ToolStep): RecordedResult | undefined;
  /** Any value by its ref (a prompt's text, a tool schema). */
  content(ref: ContentRef): unknown;
  /** The last step's number (0 for none). */
  lastStep: number;
}

/** Reads a conversation's recording from `store`; a RecordingProblem when it has none or it cannot be used. */
export async function loadRecording(store: RecordingStore, conversationId: string): Promise<LoadedRecording> {
  const recording = await store.getRecording(conversationId);
  if (!recording)
    throw new RecordingProblem(
      `Conversation ${conversationId} has no recording: it ran before recording existed, or recording was off.`,
    );
  return prepareRecording(recording, (contentRef) => store.getContent(contentRef));
}

/** Checks a recording and fetches every piece of content it refers to. */
export async function prepareRecording(
  raw: unknown,
  getContent: (contentRef: ContentRef) => Promise<unknown> | unknown,
): Promise<LoadedRecording> {
  const recording = checkShape(raw);
  const refs = new Map<ContentRef, string>();
  const want = (contentRef: ContentRef | undefined, what: string) => {
    if (contentRef && !refs.has(contentRef)) refs.set(contentRef, what);
  };
  want(recording.manifest.system, 'the system prompt');
  for (const tool of recording.manifest.tools) want(tool.schema, `the schema of tool "${tool.name.slice(0, 64)}"`);
  for (const step of recording.steps) {
    if (step.kind === 'model') {
      want(step.request, `step ${step.step}'s request`);
      want(step.answer, `step ${step.step}'s answer`);
    } else if (step.kind === 'tool') {
      want(step.input, `step ${step.step}'s tool input`);
      want(step.result, `step ${step.step}'s tool result`);
    } else if (step.kind === 'prompt') {
      want(step.text, `step ${step.step}'s prompt`);
      want(step.context, `step ${step.step}'s attached context`);
    }
  }
  const fetcher = new ContentFetcher(getContent);
  await Promise.all([...refs].map(([contentRef, what]) => fetcher.get(contentRef, what)));
  // Requests and results kept by parts (RecordedRequest, RecordedText) are joined whole again.
  const requests = new Map<number, unknown>();
  const results = new Map<number, unknown>();
  const joined = new Map<ContentRef, Promise<ModelMessage>>();
  await Promise.all(
    recording.steps.map(async (step) => {
      if (step.kind === 'model') requests.set(step.step, await joinStepRequest(fetcher, step, joined));
      else if (step.kind === 'tool' && step.result) results.set(step.step, await joinStepResult(fetcher, step));
    }),
  );
  const missing = fetcher.missing;
  if (missing.length > 0) {
    missing.sort();
    const listed = missing.slice(0, 5).join('; ');
    const more = missing.length > 5 ? `; and ${missing.length - 5} more` : '';
    throw new RecordingProblem(
      `The recording of ${recording.manifest.conversationId} lacks ${missing.length} piece${missing.length === 1 ? '' : 's'} of content: ${listed}${more}. It cannot be replayed.`,
    );
  }
  return loaded(recording, fetcher.content, requests, results);
}

/** Fetches content once per ref, noting what is missing (with what it was for) instead of failing at once. */
class ContentFetcher {
  readonly content = new Map<ContentRef, unknown>();
  private readonly pending = new Map<ContentRef, Promise<unknown>>();
  readonly missing: string[] = [];

  constructor(private readonly read: (contentRef: ContentRef) => Promise<unknown> | unknown) {}

  get(contentRef: ContentRef, what: string): Promise<unknown> {
    let pending = this.pending.get(contentRef);
    if (!pending) {
      pending = Promise.resolve()
        .then(() => this.read(contentRef))
        .catch(() => undefined)
        .then((value) => {
          if (value === undefined) this.missing.push(`${what} (${String(contentRef).slice(0, 19)}…)`);
          else this.content.set(contentRef, value);
          return value;
        });
      this.pending.set(contentRef, pending);
    }
    return pending;
  }
}

const isRef = (value: unknown): value is ContentRef => typeof value === 'string' && /^sha256:[0-9a-f]{64}$/.test(value);

/**
 * A step's request whole: as kept (an LlmRequest without its signal), or by parts (RecordedRequest,
 * joined by recorded-request.ts). A missing part is noted by the fetcher (and reported with the
 * others), so the step's request is then left out here.
 */
async function joinStepRequest(
  fetcher: ContentFetcher,
  step: ModelStep,
  joined: Map<ContentRef, Promise<ModelMessage>>,
): Promise<unknown> {
  const value = fetcher.content.get(step.request) as Record<string, unknown> | undefined;
  if (!value || !isRef(value.system)) return value;
  const what = `step ${step.step}'s request`;
  return joinRequest(step.request, (part) => fetcher.get(part, what), joined).catch(() => undefined);
}

/** A tool step's result, its output whole again (kept whole, by ref or in pieces). */
function joinStepResult(fetcher: ContentFetcher, step: ToolStep): Promise<unknown> {
  const what = `step ${step.step}'s tool result`;
  return joinToolResult(step.result!, (part) => fetcher.get(part, what)).catch(() => undefined);
}

function checkShape(raw: unknown): RunRecording {
  const format = (raw as { manifest?: { format?: unknown } } | undefined)?.manifest?.format;
  if (typeof format === 'number' && format > RECORDING_FORMAT)
    throw new RecordingProblem(
      `This recording is in format ${format}, made by a newer OpenAgent; this one reads format ${RECORDING_FORMAT} only. Update OpenAgent to replay it.`,
    );
  if (format !== RECORDING_FORMAT)
    throw new RecordingProblem(
      `This is not a recording OpenAgent can read: its format is ${describeValue(format)}, not ${RECORDING_FORMAT}.`,
    );
  const shape = z
    .object({
      manifest: manifestSchema,
      steps: z.array(z.unknown()).max(MAX_RECORDED_STEPS),
      unfinished: z.boolean().optional(),
    })
    .safeParse(raw);
  if (!shape.success) throw new RecordingProblem(`The recording is damaged: ${firstIssue(shape.error)}.`);
  const steps: RecordedStep[] = [];
  let previous = 0;
  for (const [index, candidate] of shape.data.steps.entries()) {
    const parsed = stepSchema.safeParse(candidate);
    if (!parsed.success)
      throw new RecordingProblem(`The recording is damaged at its step #${index + 1}: ${firstIssue(parsed.error)}.`);
    if (parsed.data.step <= previous)
      throw new RecordingProblem(
        `The recording is damaged: step ${parsed.data.step} comes after step ${previous} (steps must be numbered in order).`,
      );
    previous = parsed.data.step;
    steps.push(parsed.data as RecordedStep);
  }
  return { ...(raw as RunRecording), steps };
}

function loaded(
  recording: RunRecording,
  content: Map<ContentRef, unknown>,
  requests: Map<number, unknown>,
  results: Map<number, unknown>,
): LoadedRecording {
  const byNumber = new Map(recording.steps.map((step) => [step.step, step] as const));
  const get = (contentRef: ContentRef) => content.get(contentRef);
  const system = get(recording.manifest.system);
  if (typeof system !== 'string')
    throw new RecordingProblem('The recording is damaged: its system prompt is not text.');
  for (const step of recording.steps) checkContent(step, get, requests, results);
  return {
    recording,
    byNumber,
    system,
    request: (step) => requests.get(step.step) as Omit<LlmRequest, 'signal'>,
    answer: (step) => (get(step.answer) as { parts: LlmStreamPart[] }).parts,
    toolInput: (step) => get(step.input),
    toolResult: (step) => results.get(step.step) as RecordedResult | undefined,
    content: get,
    lastStep: recording.steps.at(-1)?.step ?? 0,
  };
}

const partSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text_delta'), text: z.string() }),
  z.object({ type: z.literal('thinking_delta'), text: z.string() }),
  z.object({
    type: z.literal('thinking'),
    text: z.string(),
    signature: z.string(),
    redactedData: z.string().optional(),
  }),
  z.object({ type: z.literal('tool_call_start'), id: z.string(), name: z.string() }),
  z.object({ type: z.literal('tool_call_delta'), id: z.string(), argumentsDelta: z.string() }),
  z.object({ type: z.literal('tool_call'), id: z.string(), name: z.string(), input: z.unknown() }).loose(),
  z
    .object({
      type: z.literal('tool_call_invalid'),
      id: z.string(),
      name: z.string(),
      rawArguments: z.string(),
      error: z.string(),
    })
    .loose(),
  z.object({
    type: z.literal('usage'),
    usage: z.object({ inputTokens: number, outputTokens: number, cacheReadTokens: number, cacheWriteTokens: number }),
    reported: z.boolean(),
  }),
  z.object({
    type: z.literal('finish'),
    stopReason: z.enum(['end_turn', 'tool_use', 'max_tokens', 'refusal', 'other']),
  }),
]);
const answerSchema = z.object({ parts: z.array(partSchema) });
const requestSchema = z
  .object({ system: z.string(), messages: z.array(z.unknown()), tools: z.array(z.unknown()) })
  .loose();
const resultSchema = z.object({ output: z.string(), isError: z.boolean() });

/** The content a step refers to has the shape the replay reads (a tool's input may be anything). */
function checkContent(
  step: RecordedStep,
  get: (contentRef: ContentRef) => unknown,
  requests: Map<number, unknown>,
  results: Map<number, unknown>,
): void {
  const damaged = (what: string, error: z.ZodError) =>
    new RecordingProblem(`The recording is damaged: step ${step.step}'s ${what} ${firstIssue(error)}.`);
  if (step.kind === 'model') {
    const answer = answerSchema.safeParse(get(step.answer));
    if (!answer.success) throw damaged('answer', answer.error);
    const request = requestSchema.safeParse(requests.get(step.step));
    if (!request.success) throw damaged('request', request.error);
  } else if (step.kind === 'tool' && step.result) {
    const result = resultSchema.safeParse(results.get(step.step));
    if (!result.success) throw damaged('tool result', result.error);
  } else if (step.kind === 'prompt') {
    if (typeof get(step.text) !== 'string')
      throw new RecordingProblem(`The recording is damaged: step ${step.step}'s prompt is not text.`);
  }
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'is not as expected';
  const where = issue.path.length > 0 ? issue.path.slice(0, 8).join('.') : 'the value';
  return `${where}: ${issue.message}`.slice(0, 300);
}

function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : String(value).slice(0, 40);
  return text;
}
