/**
 * Records runs for replay (recording.ts): per conversation, the manifest when its first run
 * begins, then a step for each model call attempt (through withRecording), each tool call, each
 * prompt and redirect, each interruption — the lead's, its sub-agents' and its teammates'.
 * Steps are numbered as they begin; what they hold is redacted, hashed and stored afterwards, in
 * order, off the loop's path (the loop never waits for it). A store that fails is reported
 * once and never breaks the run.
 */
import type { AgentEvent } from '../events/events';
import { LlmError, type LlmClient, type LlmStreamPart, type ToolDefinition } from '../llm/llm-client';
import { redactValue, type KnownSecrets } from '../llm/redact';
import { boundedAnswer } from './bounded-answer';
import { CanonicalJsonError, contentOf } from './content-hash';
import { keepLongText, LONG_TEXT_CHARS, RequestSplitter, type Content, type RequestSnapshot } from './recorded-request';
import { withRecording, type ModelCallSink } from './recording-client';
import { RedactedTexts } from './redacted-texts';
import {
  RECORDING_FORMAT,
  type ContentRef,
  type RecordedDecision,
  type RecordedStep,
  type RecordingStore,
  type RunManifest,
  type ToolStep,
} from './recording';

/** What a run depends on beyond what its calls show (read when a conversation's first run begins). */
export interface ManifestBasis {
  product: string;
  place: RunManifest['place'];
  models: RunManifest['models'];
  preset?: string;
  policy: RunManifest['policy'];
  limits: RunManifest['limits'];
  forkedFrom?: RunManifest['forkedFrom'];
  /** The system prompt the conversation was built with (the first call's replaces it). */
  system?: string;
}

export interface RunRecorderOptions {
  /** Where recordings go; undefined: nothing is recorded. */
  store: () => Promise<RecordingStore | undefined>;
  basis: (conversationId: string) => Promise<ManifestBasis> | ManifestBasis;
  /** The held secrets: removed, with key-shaped strings, from everything before it is hashed. */
  secrets?: () => KnownSecrets;
  now: () => number;
  /** A store failure: told once per recorder. */
  onError: (error: unknown) => void;
  /** The files the current turn has changed so far (absolute paths), to tell which a tool call changed. */
  changedFiles?: (conversationId: string) => { turn: number; root: string; paths: readonly string[] } | undefined;
}

interface OpenTool {
  local: number;
  started: number;
  toolCallId: string;
  toolName: string;
  agentId: string;
  input: unknown;
  decision?: RecordedDecision;
  filesBefore?: ReadonlySet<string>;
}

/** One conversation's recording in progress. */
class Track {
  /** Steps begun here (numbers go on after `base`, the steps it had in the store). */
  begun = 0;
  base = 0;
  /** A reopened conversation recorded before replay existed: nothing of it is recorded. */
  skip = false;
  started = false;
  manifest: RunManifest | undefined;
  firstCallSeen = false;
  subagent: string | undefined;
  lastBegun: number | undefined;
  redirecting = false;
  /** Teammates seen (their prompts): their loops run on when the lead's run ends or stops. */
  readonly teammates = new Set<string>();
  readonly tools = new Map<string, OpenTool>();
  constructor(readonly resumed: boolean) {}
}

const CALL_FAILED_ABORT = new Set(['AbortError', 'APIUserAbortError']);

export class RunRecorder implements ModelCallSink {
  private readonly tracks = new Map<string, Track>();
  private readonly splitter: RequestSplitter;
  /** Long texts already redacted (a tool output is redacted for its step and in each request). */
  private readonly redactedTexts = new RedactedTexts();
  private chain: Promise<void> = Promise.resolve();
  private store: Promise<RecordingStore | undefined> | undefined;
  private failed = false;

  constructor(private readonly options: RunRecorderOptions) {
    this.splitter = new RequestSplitter((value) => this.redact(value));
  }

  /** A conversation this recorder records; `resumed`: reopened from the store (its steps go on). */
  follow(conversationId: string, options: { resumed?: boolean } = {}): void {
    if (!this.tracks.has(conversationId)) this.tracks.set(conversationId, new Track(options.resumed ?? false));
  }

  /** The model client of one agent and kind of work, recording each call it makes. */
  wrapModel(client: LlmClient, call: { conversationId: string; agentId: string; work: string }): LlmClient {
    return withRecording(client, this, call);
  }

  beginModelCall(call: {
    conversationId: string;
    agentId: string;
    work: string;
    provider: string;
    request: RequestSnapshot;
  }): (outcome: { parts: LlmStreamPart[]; error?: unknown }) => void {
    const track = this.track(call.conversationId);
    // A sub-agent's calls go through the lead's sub-agent model while its `task` call runs.
    const agentId =
      call.agentId === 'lead' && call.work === 'subagent' && track.subagent ? track.subagent : call.agentId;
    const local = this.begin(track);
    const startedAt = this.options.now();
    const first = !track.firstCallSeen && agentId === 'lead';
    if (first) track.firstCallSeen = true;
    return ({ parts, error }) => {
      const durationMs = Math.max(0, this.options.now() - startedAt);
      this.enqueue(call.conversationId, (store, put) => {
        let note: string | undefined;
        let request: ContentRef;
        try {
          const split = this.splitter.split(call.request);
          split.contents.forEach(put);
          request = split.ref;
          if (first) this.manifestFromCall(track, call.request, store, put);
        } catch (failure) {
          ({ note, ref: request } = unrecordable(failure, put));
        }
        const bounded = boundedAnswer(parts);
        const answer = this.keep({ parts: this.redactAnswer(bounded.parts) }, put);
        const finish = parts.findLast((part) => part.type === 'finish');
        return {
          kind: 'model',
          step: track.base + local,
          agentId,
          work: call.work,
          provider: call.provider,
          model: call.request.model,
          request,
          answer: answer.ref,
          ...(finish?.type === 'finish' ? { stopReason: finish.stopReason } : {}),
          ...(error !== undefined ? { error: this.describeError(error) } : {}),
          startedAt,
          durationMs,
          ...(note || answer.note || bounded.note
            ? { note: [note, bounded.note, answer.note].filter(Boolean).join(' ') }
            : {}),
        };
      });
    };
  }

  /** Feeds one event of a conversation (the session's subscription; a teammate's prompts too). */
  observe(event: AgentEvent): void {
    const track = this.track(event.conversationId);
    if (track.skip) return;
    switch (event.type) {
      case 'user_message': {
        const redirect = track.redirecting;
        track.redirecting = false;
        if (!track.started) this.start(event.conversationId, track, event.time);
        if (!redirect && event.agentId === 'lead') this.running(event.conversationId, true);
        if (event.agentId !== 'lead') track.teammates.add(event.agentId);
        const local = this.begin(track);
        this.enqueue(event.conversationId, (_store, put) => ({
          kind: 'prompt',
          step: track.base + local,
          ...(event.agentId !== 'lead' ? { agentId: event.agentId } : {}),
          text: this.keep(event.text, put).ref,
          ...(event.context ? { context: this.keep(event.context, put).ref } : {}),
          ...(redirect ? { redirect: true } : {}),
        }));
        break;
      }
      case 'interrupted': {
        const during = track.lastBegun;
        const redirect = event.feedback !== undefined;
        this.endTools(event.conversationId, track);
        const local = this.begin(track);
        if (redirect) track.redirecting = true;
        else this.running(event.conversationId, false);
        this.enqueue(event.conversationId, () => ({
          kind: 'interrupt',
          step: track.base + local,
          ...(during !== undefined ? { during: track.base + during } : {}),
          redirect,
        }));
        break;
      }
      case 'done':
      case 'error':
        if (event.agentId !== 'lead') break;
        this.endTools(event.conversationId, track);
        this.running(event.conversationId, false);
        break;
      case 'subagent_start':
        track.subagent = event.subagentId;
        break;
      case 'subagent_end':
        track.subagent = undefined;
        break;
      case 'tool_call': {
        const files = this.options.changedFiles?.(event.conversationId);
        track.tools.set(`${event.agentId}\u0000${event.toolCallId}`, {
          local: this.begin(track),
          started: event.time,
          toolCallId: event.toolCallId,
          toolName: event.toolName,
          agentId: event.agentId,
          input: event.input,
          ...(files ? { filesBefore: new Set(files.paths) } : {}),
        });
        break;
      }
      case 'tool_approval_result': {
        const open = track.tools.get(`${event.agentId}\u0000${event.toolCallId}`);
        if (open)
          open.decision = {
            approved: event.approved,
            source: event.source,
            ...(event.source === 'policy' && event.reason ? { rule: event.reason } : {}),
            ...(event.reason ? { reason: event.reason } : {}),
          };
        break;
      }
      case 'tool_result': {
        const key = `${event.agentId}\u0000${event.toolCallId}`;
        const open = track.tools.get(key);
        if (!open) break;
        track.tools.delete(key);
        this.endTool(event.conversationId, track, open, { output: event.output, isError: event.isError });
        break;
      }
      default:
        break;
    }
  }

  /** Resolves when everything recorded so far has been handed to the store and written. */
  async flush(): Promise<void> {
    await this.chain;
    const store = await this.store?.catch(() => undefined);
    await (store as { settled?: () => Promise<void> } | undefined)?.settled?.();
  }

  private track(conversationId: string): Track {
    let track = this.tracks.get(conversationId);
    if (!track) this.tracks.set(conversationId, (track = new Track(false)));
    return track;
  }

  private begin(track: Track): number {
    const local = ++track.begun;
    track.lastBegun = local;
    return local;
  }

  /** The first run of this recorder in the conversation: where its steps go on, and its manifest. */
  private start(conversationId: string, track: Track, time: number): void {
    track.started = true;
    this.enqueueRaw(async (store) => {
      const stored = await store.getRecording(conversationId);
      if (stored) {
        track.base = stored.steps.at(-1)?.step ?? 0;
        track.manifest = stored.manifest;
        return;
      }
      const basis = await this.options.basis(conversationId);
      // Reopened, never recorded (an older version): without its beginning it could not be replayed.
      if (track.resumed && !basis.forkedFrom) {
        track.skip = true;
        return;
      }
      const { system, ...rest } = basis;
      track.manifest = {
        format: RECORDING_FORMAT,
        ...rest,
        conversationId,
        startedAt: time,
        system: contentOf(this.redact(system ?? '')).ref,
        tools: [],
      };
      await Promise.all([
        store.putContent(track.manifest.system, this.redact(system ?? '')),
        store.saveManifest(track.manifest),
      ]);
    });
  }

  /** The system prompt and tools as the first call sent them (the manifest is saved again). */
  private manifestFromCall(
    track: Track,
    request: RequestSnapshot,
    store: RecordingStore,
    put: (content: Content) => void,
  ): void {
    if (!track.manifest) return;
    const keep = (value: unknown) => this.keep(value, put).ref;
    const tools = request.tools.map((tool: ToolDefinition) => ({
      name: tool.name,
      schema: this.splitter.toolRef(tool, keep),
    }));
    track.manifest = { ...track.manifest, system: keep(this.redact(request.system)), tools };
    void store.saveManifest(track.manifest).catch((error: unknown) => this.fail(error));
  }

  private running(conversationId: string, running: boolean): void {
    this.enqueueRaw(async (store) => {
      if (!this.tracks.get(conversationId)?.skip) await store.markRunning?.(conversationId, running);
    });
  }

  /** Writes the tool calls still open (the run stopped before they returned). */
  /** The lead's run ended or stopped: its calls (and its sub-agents') still open never finished. */
  private endTools(conversationId: string, track: Track): void {
    for (const [key, open] of track.tools) {
      // A teammate's call in flight finishes on its own: its result is recorded when it comes.
      if (track.teammates.has(open.agentId)) continue;
      this.endTool(conversationId, track, open, undefined);
      track.tools.delete(key);
    }
  }

  private endTool(
    conversationId: string,
    track: Track,
    open: OpenTool,
    result: { output: string; isError: boolean } | undefined,
  ): void {
    const ended = this.options.now();
    const after = this.options.changedFiles?.(conversationId);
    const files =
      after && open.filesBefore
        ? after.paths
            .filter((file) => !open.filesBefore!.has(file))
            .map((file) => ({ path: relativeTo(after.root, file), checkpointId: `turn-${after.turn}` }))
        : [];
    this.enqueue(conversationId, (_store, put) => {
      const input = this.keep(open.input, put);
      const step: ToolStep = {
        kind: 'tool',
        step: track.base + open.local,
        agentId: open.agentId,
        toolCallId: open.toolCallId,
        toolName: open.toolName,
        input: input.ref,
        ...(open.decision ? { decision: open.decision } : {}),
        ...(result ? { result: this.keepResult(result, put) } : {}),
        ...(files.length ? { files } : {}),
        startedAt: open.started,
        durationMs: Math.max(0, ended - open.started),
        ...(input.note ? { note: input.note } : {}),
      };
      return step;
    });
  }

  /** `{ output, isError }` with a long output kept by ref, as the requests keep it (stored once). */
  private keepResult(result: { output: string; isError: boolean }, put: (content: Content) => void): ContentRef {
    const output = this.redact(result.output);
    const kept = output.length >= LONG_TEXT_CHARS ? keepLongText(output, (value) => this.keep(value, put).ref) : output;
    return this.keep({ output: kept, isError: result.isError }, put).ref;
  }

  /** A value kept (redacted first); one canonical JSON cannot write becomes a note. */
  private keep(value: unknown, put: (content: Content) => void): { ref: ContentRef; note?: string } {
    try {
      const safe = this.redact(value);
      const made = contentOf(safe);
      put({ ...made, value: safe });
      return { ref: made.ref };
    } catch (failure) {
      return unrecordable(failure, put);
    }
  }

  /** The parts, redacted; a held secret cut across text deltas is found in their joined text. */
  private redactAnswer(parts: LlmStreamPart[]): LlmStreamPart[] {
    const redacted = this.redact(parts);
    const joined = parts.flatMap((part) => (part.type === 'text_delta' ? [part.text] : [])).join('');
    const safeJoined = this.redact(joined);
    const pieces = redacted.flatMap((part) => (part.type === 'text_delta' ? [part.text] : [])).join('');
    if (pieces === safeJoined) return redacted;
    // Merged into one delta where the secret began: the boundaries are lost, never the secret kept.
    const first = redacted.findIndex((part) => part.type === 'text_delta');
    return redacted.flatMap((part, index): LlmStreamPart[] =>
      part.type !== 'text_delta' ? [part] : index === first ? [{ type: 'text_delta', text: safeJoined }] : [],
    );
  }

  private describeError(error: unknown): { message: string; kind?: string; status?: number } {
    const message = this.redact(error instanceof Error ? error.message : String(error));
    if (error instanceof LlmError)
      return { message, kind: error.kind, ...(error.status !== undefined ? { status: error.status } : {}) };
    if (error instanceof Error && CALL_FAILED_ABORT.has(error.name)) return { message, kind: 'interrupted' };
    return { message };
  }

  private redact<T>(value: T): T {
    const secrets = this.options.secrets?.() ?? [];
    return redactValue(value, secrets, this.redactedTexts.for(secrets));
  }

  /** A step made later, in order: its contents first, then the step, as one batch. */
  private enqueue(
    conversationId: string,
    make: (store: RecordingStore, put: (content: Content) => void) => RecordedStep,
  ): void {
    this.enqueueRaw(async (store) => {
      const track = this.tracks.get(conversationId);
      if (track?.skip) return;
      const writes: Array<Promise<void>> = [];
      const put = (content: Content) => writes.push(store.putContent(content.ref, content.value));
      const step = make(store, put);
      writes.push(store.putStep(conversationId, step));
      // Not awaited here: the next step is made meanwhile, and the store writes them in order.
      void Promise.all(writes).catch((error: unknown) => this.fail(error));
    });
  }

  private enqueueRaw(work: (store: RecordingStore) => Promise<void>): void {
    this.chain = this.chain
      // Off the loop's path: after the I/O the loop is waiting for has had its turn.
      .then(() => new Promise<void>((resolve) => setImmediate(resolve)))
      .then(async () => {
        const store = await (this.store ??= this.options.store());
        if (store) await work(store);
      })
      .catch((error: unknown) => this.fail(error));
  }

  private fail(error: unknown): void {
    if (this.failed) return;
    this.failed = true;
    this.options.onError(error);
  }
}

/** A value that could not be recorded: a note saying why, kept in its place. */
function unrecordable(failure: unknown, put: (content: Content) => void): { ref: ContentRef; note: string } {
  const why = failure instanceof CanonicalJsonError ? failure.message : `It could not be recorded: ${String(failure)}`;
  const value = { unrecorded: why };
  const made = contentOf(value);
  put({ ...made, value });
  return { ref: made.ref, note: why };
}

function relativeTo(root: string, file: string): string {
  const prefix = root.endsWith('/') || root.endsWith('\\') ? root : `${root}/`;
  return file.startsWith(prefix) ? file.slice(prefix.length).replaceAll('\\', '/') : file;
}
