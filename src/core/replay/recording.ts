/**
 * What a recorded run is (SPEC: replay and compare): enough of a conversation to run its loop
 * again with nothing live — every model call as sent and as answered, every tool call with its
 * decision and result, the prompts, the interruptions, and what the run depended on. Recording,
 * replaying, comparing, exporting and importing all speak this one format.
 *
 * Steps are numbered from 1 in the order they began, across the whole conversation (every agent:
 * the lead, sub-agents and teammates), and never reused. Large and repeated content (requests,
 * answers, tool inputs and results, tool schemas, the system prompt) is kept once, by the SHA-256
 * of its canonical JSON (`ContentRef`), in a content store; the steps hold only references. Every
 * value is redacted before it is hashed or kept: a recording never holds a secret.
 */
import type { LlmStreamPart, ModelMessage, StopReason } from '../llm/llm-client';

/** The version of this format; a recording of another version is replayed or refused by name. */
export const RECORDING_FORMAT = 1;

/** `sha256:<64 hex>` of a value's canonical JSON (keys sorted; see content-hash.ts). */
export type ContentRef = `sha256:${string}`;

/** What the run depended on, read when the conversation's first run began. */
export interface RunManifest {
  format: typeof RECORDING_FORMAT;
  /** The product's version that recorded it. */
  product: string;
  conversationId: string;
  /**
   * The conversation this one was forked from, and at which message (replays of a fork start
   * there). A re-run (rerun-run.ts) has `step`: the recorded step of that conversation it went live
   * at; its own recording is whole from step 1 (the steps before were replayed into it), `seq` 0.
   */
  forkedFrom?: { conversationId: string; seq: number; step?: number };
  startedAt: number;
  /** Where the run worked: a workspace folder or a worktree, and the commit HEAD named then (if git). */
  place: { kind: 'workspace' | 'worktree'; root: string; commit?: string; branch?: string };
  /** Every model the run used, by kind of work (chat, compaction, final_summary, subagent). */
  models: Array<{ work: string; provider: string; model: string }>;
  preset?: string;
  /** The system prompt as sent on the first call. */
  system: ContentRef;
  /** The tool set offered on the first call: names with their schemas' refs. */
  tools: Array<{ name: string; schema: ContentRef }>;
  /** A hash of the effective policy (the same text gives the same hash) and where it came from. */
  policy: { hash: string; sources: string[] };
  limits: Record<string, number | undefined>;
}

/** One model call (one attempt: a retried call is several steps, the failed ones with `error`). */
export interface ModelStep {
  kind: 'model';
  step: number;
  agentId: string;
  /** chat, compaction, final_summary, subagent. */
  work: string;
  provider: string;
  model: string;
  /** The LlmRequest as sent, without its signal: system, messages, tools, toolChoice, maxOutputTokens. */
  request: ContentRef;
  /**
   * The answer as received: the stream's parts in order (text deltas kept as they came, so a
   * replay can stream them the same way). Its ref holds `RecordedAnswer`.
   */
  answer: ContentRef;
  stopReason?: StopReason;
  /** The call failed (after the parts it streamed): the error as the loop saw it. */
  error?: { message: string; kind?: string; status?: number };
  startedAt: number;
  durationMs: number;
}

/**
 * The value behind a ModelStep's `request` ref: the request as sent with its parts kept once —
 * the system prompt, each tool definition and each message by ref, so a call stores only what
 * is new since the last one (read it back whole with joinRequest in recorded-request.ts).
 */
export interface RecordedRequest {
  model: string;
  /** Holds the system prompt (a string). */
  system: ContentRef;
  /** Each holds a ToolDefinition (the manifest's tool schema refs are the same refs). */
  tools: ContentRef[];
  /** Each holds a RecordedMessage (empty when `messagePages` holds them). */
  messages: ContentRef[];
  /**
   * The message refs in pages of MESSAGE_PAGE refs, each page kept once (a ContentRef[]): the
   * history only grows, so every call's request shares all but its last page with the one
   * before, instead of storing a list as long as the conversation each time.
   */
  messagePages?: ContentRef[];
  toolChoice?: 'auto' | 'none';
  maxOutputTokens: number;
}

/**
 * A long text (a file read, a tool's output) kept by ref inside a RecordedMessage or a tool
 * result: whole (`ref`), or — from CHUNKED_TEXT_CHARS on — in pieces cut where its content says
 * (`chunks`, joined in order), so a copy the history shortened shares the pieces it kept.
 */
export type RecordedText = { ref: ContentRef } | { chunks: ContentRef[] };

/**
 * A ModelMessage as recorded: texts and tool outputs of LONG_TEXT_CHARS or more are kept once
 * of their own (`{ ref }`), so the same file read a hundred times is stored once.
 */
export type RecordedMessage = {
  role: ModelMessage['role'];
  content: Array<
    Record<string, unknown> & { type: string; text?: string | RecordedText; output?: string | RecordedText }
  >;
};

/** The value behind a ModelStep's `answer` ref. */
export interface RecordedAnswer {
  parts: LlmStreamPart[];
}

/** Who or what decided a tool call. */
export interface RecordedDecision {
  approved: boolean;
  /** policy, user, hook, session (allowed for the session), plan, ... as the approval event said. */
  source: string;
  rule?: string;
  /** The user's words with a denial, if any. */
  reason?: string;
  /**
   * The call was put to the approval gate (a tool_approval_request came first). Absent in older
   * recordings: a replay then infers it from `source` (user, timeout, session_rule: asked).
   */
  asked?: boolean;
}

/** One tool call: its input, how it was decided, what it returned and which files it changed. */
export interface ToolStep {
  kind: 'tool';
  step: number;
  agentId: string;
  toolCallId: string;
  toolName: string;
  /** The input as the model sent it (after repair). */
  input: ContentRef;
  /** Absent when the call was never put to anyone (refused by validation, or the run stopped first). */
  decision?: RecordedDecision;
  /**
   * The result the model was given (capped, as sent); its ref holds `{ output, isError }`, a long
   * output as a RecordedText (read it whole with joinToolResult in recorded-request.ts).
   */
  result?: ContentRef;
  /** Checkpoint ids of the files this call changed, with their paths (relative to the place's root). */
  files?: Array<{ path: string; checkpointId: string }>;
  startedAt: number;
  durationMs: number;
  /** What could not be recorded of this call, and why (an input JSON cannot write). */
  note?: string;
}

/** A prompt the user sent (or feedback with which the user redirected a run). */
export interface PromptStep {
  kind: 'prompt';
  step: number;
  /** The agent the prompt went to (absent: the lead). */
  agentId?: string;
  text: ContentRef;
  /** The attached context (@file, @selection …) as the model received it. */
  context?: ContentRef;
  /** Redirect feedback rather than a new prompt. */
  redirect?: boolean;
}

/** The user stopped the run (or redirected it) here: a replay stops at the same point. */
export interface InterruptStep {
  kind: 'interrupt';
  step: number;
  /** The step that was running when the stop came (a model call or a tool call). */
  during?: number;
  redirect: boolean;
}

export type RecordedStep = ModelStep | ToolStep | PromptStep | InterruptStep;

/** A whole recorded run. */
export interface RunRecording {
  manifest: RunManifest;
  steps: RecordedStep[];
  /** The run was still going when it was last written (a crash or a window closed mid-run). */
  unfinished?: boolean;
}

/** Where recordings and their content live (the store implements it; export files read like it). */
export interface RecordingStore {
  putContent(ref: ContentRef, value: unknown): Promise<void>;
  getContent(ref: ContentRef): Promise<unknown>;
  hasContent(ref: ContentRef): Promise<boolean>;
  saveManifest(manifest: RunManifest): Promise<void>;
  putStep(conversationId: string, step: RecordedStep): Promise<void>;
  /** The recording of a conversation, or undefined when it has none (recorded before replay existed). */
  getRecording(conversationId: string): Promise<RunRecording | undefined>;
  /**
   * Whether a run of the conversation is going: set when one begins, cleared when it ends, so a
   * recording read while it is set (a crash, a window closed mid-run) is `unfinished`.
   */
  markRunning?(conversationId: string, running: boolean): Promise<void>;
}
