/**
 * The agent's event protocol: one discriminated union, validated with zod, shared by both
 * webviews, the CLI, the audit trail and tests. Every event names its conversation, the agent
 * that produced it (the lead, a sub-agent or a teammate) and a per-conversation sequence
 * number. Names follow SPEC.md section 2.2.
 */
import { z } from 'zod';
import { reviewDecisionSchema, reviewedFileSchema } from '../review/hunk-schema';

const eventBase = {
  conversationId: z.string().min(1),
  /** "lead", a sub-agent id or a teammate name. */
  agentId: z.string().min(1),
  seq: z.number().int().nonnegative(),
  /** Milliseconds since the epoch. */
  time: z.number(),
};

export const tokenUsageSchema = z.object({
  inputTokens: z.number().nonnegative(),
  outputTokens: z.number().nonnegative(),
  cacheReadTokens: z.number().nonnegative(),
  cacheWriteTokens: z.number().nonnegative(),
});

/**
 * Where a model call's input tokens went, by the part of the request they came from. Computed by
 * OpenAgent's estimate from the request it sent, then scaled to the server's count when the
 * server reported one, so the parts add up to the call's input (input + cache read + cache write).
 */
export const contextBreakdownSchema = z.object({
  /** The model's context window, in tokens. */
  window: z.number().int().positive(),
  /** The instructions (preset, environment, skill index) and the tool definitions. */
  systemAndTools: z.number().int().nonnegative(),
  /** Project rules (AGENTS.md, .openagent/rules) and memory in the system prompt. */
  rulesAndMemory: z.number().int().nonnegative(),
  /** What the user and the model said, the model's tool calls included. */
  conversation: z.number().int().nonnegative(),
  /** What tools returned. */
  toolResults: z.number().int().nonnegative(),
  /** True when scaled to the server's own count; false when it said nothing and these are estimates. */
  counted: z.boolean(),
});

/** What changed between two calls that can empty the prompt cache. */
export const cacheBreakReasonSchema = z.enum([
  'model_switched',
  'system_prompt_changed',
  'tools_changed',
  /** Earlier messages were changed (old tool results shortened, a message dropped). */
  'history_rewritten',
  /** Longer than the cache lives (about five minutes) since the previous call. */
  'cache_expired',
]);

export const errorKindSchema = z.enum([
  'authentication',
  'connection',
  'rate_limit',
  'server',
  'bad_request',
  'stream',
  'context_overflow',
  'configuration',
  'hook',
  'budget',
  'internal',
]);

export const approvalDecisionSourceSchema = z.enum([
  'user',
  /** A PreToolUse hook blocked it. */
  'hook',
  'session_rule',
  'policy',
  'timeout',
  'no_gate',
  'read_only',
  /** The reviewer program (approvals.reviewer) denied it. */
  'reviewer',
]);

/** Images an event names (issue 36): what they are, never their bytes (the store keeps those once, by sha256). */
const imageReferencesSchema = z.array(
  z.object({
    sha256: z.string(),
    mediaType: z.string(),
    width: z.number().int().positive(),
    height: z.number().int().positive(),
    name: z.string().optional(),
  }),
);

export const agentEventSchema = z.discriminatedUnion('type', [
  z.object({
    ...eventBase,
    type: z.literal('user_message'),
    text: z.string(),
    /** Images the user attached (issue 36): what they are, not their bytes (the store keeps those once, by sha256). */
    images: imageReferencesSchema.optional(),
    /** Context attached with mentions (@file:…, @problems…): the labels surfaces show. */
    attachments: z.array(z.string()).optional(),
    /** The attached text the model received after the prompt (kept so a reopened conversation has it). */
    context: z.string().optional(),
    /**
     * What the prompt hooks added for the model (UserPromptSubmit's `additionalContext`), kept
     * apart from the attached context: a reopened conversation gives the model the same text,
     * while Retry runs the hooks again rather than repeating what they said then.
     */
    hookContext: z.string().optional(),
    /**
     * The prompt sent again by Retry: the sequence number of the `error` that ended its failed
     * run. Surfaces show the prompt once, under that error, not a second time.
     */
    retryOf: z.number().int().nonnegative().optional(),
  }),
  z.object({ ...eventBase, type: z.literal('text_delta'), text: z.string() }),
  /** A complete tool call from the model (its input parsed, or the raw text when it did not parse). */
  z.object({
    ...eventBase,
    type: z.literal('tool_call'),
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
    /**
     * The server left this call in the answer's text and OpenAgent read it from there: how it
     * was written, and whether its JSON had to be repaired.
     */
    fromText: z
      .object({ format: z.enum(['tool_call_tag', 'function_tag', 'fenced_json']), repaired: z.boolean() })
      .optional(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('tool_approval_request'),
    toolCallId: z.string(),
    toolName: z.string(),
    input: z.unknown(),
    /** One line for the notification: the path, the command. */
    summary: z.string(),
    /** Why it is asked whatever rules say (a protected path, a path decided at run time…). */
    reasons: z.array(z.string()).optional(),
    /** A risky call (protected path, network, a pipe into a shell): a warning, not a routine question. */
    warning: z.boolean().optional(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('tool_approval_result'),
    toolCallId: z.string(),
    approved: z.boolean(),
    source: approvalDecisionSourceSchema,
    reason: z.string().optional(),
    /** What the reviewer program answered (approvals.reviewer), whoever decided in the end. */
    reviewer: z
      .object({ decision: z.enum(['allow', 'ask', 'deny']), reason: z.string(), failed: z.boolean().optional() })
      .optional(),
  }),
  /**
   * A call waits for a named teammate (team approvals, issue 37): who may decide, and how the
   * wait stands — the team database unreachable, then the decision, the timeout or the Stop.
   */
  z.object({
    ...eventBase,
    type: z.literal('team_approval'),
    toolCallId: z.string(),
    requestId: z.string(),
    approvers: z.array(z.string()),
    state: z.enum(['waiting', 'unreachable', 'approved', 'denied', 'timed_out', 'withdrawn', 'refused']),
    /** Epoch milliseconds by the database's clock. */
    deadline: z.number().optional(),
    /** The approver who decided. */
    by: z.string().optional(),
    reason: z.string().optional(),
    /** Named approvers the team's directory does not know. */
    unknown: z.array(z.string()).optional(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('tool_result'),
    toolCallId: z.string(),
    toolName: z.string(),
    output: z.string(),
    isError: z.boolean(),
    durationMs: z.number().nonnegative(),
    /** Images the tool returned (read_file of a PNG, issue 36): references, the store keeps the bytes. */
    images: imageReferencesSchema.optional(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('subagent_start'),
    subagentId: z.string(),
    kind: z.string(),
    description: z.string(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('subagent_end'),
    subagentId: z.string(),
    summary: z.string(),
    usage: tokenUsageSchema,
    costUsd: z.number(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('task_update'),
    taskId: z.string(),
    subject: z.string(),
    status: z.enum(['pending', 'in_progress', 'completed', 'deleted']),
    owner: z.string().optional(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('background_result'),
    jobId: z.string(),
    command: z.string(),
    output: z.string(),
    exitCode: z.number().nullable(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('teammate_status'),
    name: z.string(),
    status: z.enum(['working', 'idle', 'shutdown']),
  }),
  z.object({
    ...eventBase,
    type: z.literal('compact'),
    kind: z.enum(['micro', 'auto', 'manual']),
    tokensBefore: z.number().nonnegative(),
    tokensAfter: z.number().nonnegative(),
    /** Where the full history was saved before an auto or manual compaction. */
    transcript: z.string().optional(),
  }),
  /**
   * A model call's life signs: `waiting` when the request is sent, `answering` when the first
   * part of the answer arrives (a model on a CPU can read its context for tens of seconds).
   * `stalled` when an answer under way has made no progress for `silentMs` (keep-alives and
   * empty deltas are not progress), `answering` again when it goes on.
   */
  z.object({
    ...eventBase,
    type: z.literal('model_call'),
    state: z.enum(['waiting', 'answering', 'stalled']),
    provider: z.string(),
    model: z.string(),
    silentMs: z.number().nonnegative().optional(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('llm_request'),
    requestId: z.string(),
    provider: z.string(),
    model: z.string(),
    payload: z.unknown(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('llm_response'),
    requestId: z.string(),
    provider: z.string(),
    model: z.string(),
    payload: z.unknown(),
    durationMs: z.number().nonnegative(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('usage'),
    /** One model call, or the whole run that answered a prompt. */
    scope: z.enum(['call', 'turn']),
    model: z.string(),
    /** Which provider served the call (model policy may route work to several). */
    provider: z.string().optional(),
    /** The call's wall time, first byte to last (calls only). */
    durationMs: z.number().nonnegative().optional(),
    /** The kind of work the call did (calls only): chat, code, subagent, compaction, final_summary. */
    work: z.string().optional(),
    usage: tokenUsageSchema,
    costUsd: z.number().nonnegative(),
    /** False when the server reported nothing (or a model has no price) and numbers are estimates. */
    reported: z.boolean(),
    /** The team budget reservation the call took (calls only): its usage record settles it. */
    reservationId: z.string().optional(),
    /** Calls only: why the call did not finish (an error kind, or the user stopped it); absent when it did. */
    failure: z.union([errorKindSchema, z.literal('interrupted')]).optional(),
    /** Calls only: where the call's input tokens went, and the window they fill. */
    context: contextBreakdownSchema.optional(),
  }),
  /**
   * The prompt cache broke: the previous call of the same agent read most of its input from the
   * cache, and this one read far less of it, so it paid full price (or a cache write) again.
   */
  z.object({
    ...eventBase,
    type: z.literal('cache_break'),
    provider: z.string(),
    model: z.string(),
    work: z.string().optional(),
    /** Shares of the input read from the cache (0 to 1): the previous call's, and this call's. */
    previousShare: z.number().min(0).max(1),
    share: z.number().min(0).max(1),
    /** Tokens the previous call left in the cache that this call did not read from it. */
    missedTokens: z.number().int().nonnegative(),
    /** What missing them cost over reading them from the cache; 0 when the model has no price. */
    extraCostUsd: z.number().nonnegative(),
    /** What changed, as far as OpenAgent can tell; empty when it cannot (the provider evicted it). */
    reasons: z.array(cacheBreakReasonSchema),
    secondsSinceLastCall: z.number().nonnegative(),
  }),
  /** The model call about to be made is estimated to cost more than the user's warning level. */
  z.object({
    ...eventBase,
    type: z.literal('cost_warning'),
    provider: z.string(),
    model: z.string(),
    work: z.string().optional(),
    /** The call's input as estimated before sending it, and what it is expected to read from the cache. */
    inputTokens: z.number().int().nonnegative(),
    cachedTokens: z.number().int().nonnegative(),
    /** The input's estimated cost (the answer comes on top). */
    estimatedUsd: z.number().nonnegative(),
    /** The warning level (the setting openagent.callCostWarningUsd). */
    thresholdUsd: z.number().positive(),
  }),
  z.object({
    ...eventBase,
    type: z.literal('budget'),
    /** Which limit: this conversation's, today's or this month's (UTC), or the team's or this member's (team database). */
    scope: z.enum(['conversation', 'daily', 'monthly', 'team_daily', 'team_monthly', 'member_daily', 'member_monthly']),
    unit: z.enum(['usd', 'tokens']),
    spent: z.number().nonnegative(),
    limit: z.number().positive(),
    /** 80 % reached, or the limit reached (or about to be by the next call). */
    level: z.enum(['warning', 'exceeded']),
    /** What the policy says to do once it is exceeded. */
    action: z.enum(['warn', 'block']),
  }),
  z.object({
    ...eventBase,
    type: z.literal('plan_mode'),
    active: z.boolean(),
    /** Switched by the user, or left because the user approved the agent's plan. */
    reason: z.enum(['user', 'plan_approved']),
  }),
  z.object({
    ...eventBase,
    type: z.literal('files_changed'),
    /** The turn (one prompt's run) whose before-images were kept: what "Revert This Turn" undoes. */
    turn: z.number().int().positive(),
    files: z.array(z.object({ path: z.string(), change: z.enum(['created', 'modified']) })),
  }),
  z.object({
    ...eventBase,
    type: z.literal('turn_reverted'),
    turn: z.number().int().positive(),
    restored: z.array(z.string()),
    deleted: z.array(z.string()),
    failed: z.array(z.object({ path: z.string(), reason: z.string() })),
  }),
  /** A turn's edits, hunk by hunk, for the user to keep or undo (sent when the run ends, beside files_changed). */
  z.object({
    ...eventBase,
    type: z.literal('review_hunks'),
    turn: z.number().int().positive(),
    files: z.array(reviewedFileSchema),
  }),
  /** The user kept or undid hunks of a file (by their index in its review_hunks). */
  z.object({
    ...eventBase,
    type: z.literal('review_decision'),
    turn: z.number().int().positive(),
    path: z.string(),
    hunks: z.array(z.number().int().nonnegative()),
    decision: reviewDecisionSchema,
    /** Undone hunks: the 1-based line each one's earlier lines now start at. */
    lines: z.array(z.number().int().positive()).optional(),
    /** Undoing the hunk deleted the file (the agent had created it). */
    deleted: z.boolean().optional(),
  }),
  /** What the model was told about the hunks the user undid (it is part of the next prompt). */
  z.object({
    ...eventBase,
    type: z.literal('review_note'),
    text: z.string(),
    hunks: z.array(
      z.object({ turn: z.number().int().positive(), path: z.string(), hunk: z.number().int().nonnegative() }),
    ),
  }),
  /**
   * A conversation was forked (SPEC 5b): `forkId` holds `parentId`'s messages up to `atSeq` (a
   * stored message seq; -1: none). 'fork': "Fork from here"; 'rewind': an edited prompt took
   * `parentId` back to before `atSeq + 1`, and what it had after that is kept as `forkId`.
   */
  z.object({
    ...eventBase,
    type: z.literal('conversation_forked'),
    parentId: z.string().min(1),
    forkId: z.string().min(1),
    atSeq: z.number().int().min(-1),
    reason: z.enum(['fork', 'rewind']),
    /** The fork's title. */
    title: z.string(),
  }),
  z.object({ ...eventBase, type: z.literal('interrupted'), reason: z.string(), feedback: z.string().optional() }),
  z.object({ ...eventBase, type: z.literal('error'), message: z.string(), kind: errorKindSchema }),
  z.object({
    ...eventBase,
    type: z.literal('done'),
    /** end_turn, max_turns, token_budget, refusal, ... */
    stopReason: z.string(),
    turns: z.number().int().nonnegative(),
  }),
]);

export type AgentEvent = z.infer<typeof agentEventSchema>;
export type AgentEventType = AgentEvent['type'];
export type ErrorKind = z.infer<typeof errorKindSchema>;
export type ApprovalDecisionSource = z.infer<typeof approvalDecisionSourceSchema>;
export type ContextBreakdown = z.infer<typeof contextBreakdownSchema>;
export type CacheBreakReason = z.infer<typeof cacheBreakReasonSchema>;

/** An event before the conversation stamps it with ids, sequence and time. */
export type AgentEventBody = AgentEvent extends infer E
  ? E extends AgentEvent
    ? Omit<E, 'conversationId' | 'agentId' | 'seq' | 'time'>
    : never
  : never;

/** Emits an event body; the conversation stamps and broadcasts it. */
export type EmitEvent = (body: AgentEventBody) => void;
