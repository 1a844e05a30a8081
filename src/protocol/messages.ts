/**
 * The typed protocol between the extension host and its webviews. A webview is untrusted
 * input: every message it sends is validated here on arrival, and anything malformed,
 * oversized or carrying unexpected keys is dropped. Names are noun_action.
 */
import { z } from 'zod';
import { agentEventSchema } from '../core/events/events';
import { MAX_QUEUED_PROMPTS } from '../core/session/prompt-queue';
import { IMAGE_LIMITS } from '../core/images/image-limits';

/** The longest prompt accepted from a webview (characters). */
export const MAX_PROMPT_CHARS = 200_000;

export const webviewActionSchema = z.enum([
  'set_api_key',
  'open_settings',
  'open_walkthrough',
  'retry',
  'new_chat',
  /** Use one of the local servers the notice offered (its `choice`). */
  'use_local_server',
]);
/** A queued message's id (the host makes them: q1, q2…). */
const queueIdSchema = z.string().min(1).max(64);
/** A prompt as the composer sends it (trimmed, not empty). */
const promptTextSchema = z.string().trim().min(1).max(MAX_PROMPT_CHARS);

/**
 * An image the composer attaches (issue 36): its name, the type the page believed and its bytes
 * as base64, at most ATTACHED_IMAGE_MAX_BYTES raw. Nothing here is trusted: the host probes the
 * bytes again and prepares them (prepare-image.ts) whatever name and type the page said.
 */
export const ATTACHED_IMAGE_MAX_BYTES = 20 * 1024 * 1024;
/** The most images one prompt carries (IMAGE_LIMITS.maxPerMessage), for the composer. */
export const MAX_ATTACHED_IMAGES = IMAGE_LIMITS.maxPerMessage;
const attachedImageSchema = z.strictObject({
  name: z.string().max(255),
  mediaType: z.string().max(100),
  data: z
    .string()
    .min(1)
    .max(Math.ceil(ATTACHED_IMAGE_MAX_BYTES / 3) * 4)
    .regex(/^[A-Za-z0-9+/]*={0,2}$/),
});
export type AttachedImage = z.infer<typeof attachedImageSchema>;
/** What a queued message or the transcript says of an image: its sha256 (the host's thumbnails are keyed on it). */
const sha256Schema = z.string().min(64).max(64);
const imageReferenceSchema = z.strictObject({
  sha256: sha256Schema,
  mediaType: z.string().max(100),
  width: z.number().int().positive(),
  height: z.number().int().positive(),
  name: z.string().max(255).optional(),
});

/** Which of a notice's offered options an action picks (an index the host checks against what it offered). */
const choiceSchema = z.number().int().min(0).max(20);
export type WebviewAction = z.infer<typeof webviewActionSchema>;

/** Messages a webview sends to the host. Strict objects reject extra keys such as __proto__. */
export const webviewToHostSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('webview_ready') }),
  /** A prompt; while the agent works it is queued, unless `sendNow` (interrupt and redirect). */
  z.strictObject({
    type: z.literal('prompt_submit'),
    requestId: z.string().min(1).max(64),
    text: promptTextSchema,
    sendNow: z.literal(true).optional(),
    /** Images pasted, dropped or picked in the composer (issue 36). */
    images: z.array(attachedImageSchema).min(1).max(IMAGE_LIMITS.maxPerMessage).optional(),
  }),
  /** The composer's text as the user types (debounced), kept for the chat that comes back. */
  z.strictObject({ type: z.literal('draft_change'), text: z.string().max(MAX_PROMPT_CHARS) }),
  /** Queued messages: edit one (and start or stop editing it), remove it, send it now, resume a held queue. */
  z.strictObject({ type: z.literal('queue_edit'), id: queueIdSchema, text: promptTextSchema }),
  z.strictObject({ type: z.literal('queue_editing'), id: queueIdSchema.optional() }),
  z.strictObject({ type: z.literal('queue_remove'), id: queueIdSchema }),
  z.strictObject({ type: z.literal('queue_send_now'), id: queueIdSchema }),
  z.strictObject({ type: z.literal('queue_resume') }),
  z.strictObject({ type: z.literal('run_stop') }),
  /** The Retry under a failed run: the `error` event that ended it (a stale one is refused with the reason). */
  z.strictObject({
    type: z.literal('prompt_retry'),
    conversationId: z.string().min(1).max(200),
    errorSeq: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  }),
  /**
   * "Fork from here" on a prompt or an answer, and "Edit and resend" on a prompt: the message by
   * the seq of the event that showed it (the host finds it in the conversation it shows, or refuses).
   */
  z.strictObject({
    type: z.literal('message_fork'),
    conversationId: z.string().min(1).max(200),
    seq: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
  }),
  z.strictObject({
    type: z.literal('message_edit'),
    conversationId: z.string().min(1).max(200),
    seq: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER),
    text: promptTextSchema,
  }),
  z.strictObject({ type: z.literal('chat_new') }),
  z.strictObject({ type: z.literal('action_invoke'), action: webviewActionSchema, choice: choiceSchema.optional() }),
  z.strictObject({ type: z.literal('link_open'), href: z.string().min(1).max(4096) }),
  z.strictObject({ type: z.literal('turn_revert'), turn: z.number().int().positive().max(1_000_000) }),
  /** The composer's pickers: context to attach (@), the model, the preset. */
  z.strictObject({ type: z.literal('picker_open'), picker: z.enum(['context', 'model', 'preset']) }),
  z.strictObject({
    type: z.literal('turn_diff_open'),
    turn: z.number().int().positive().max(1_000_000),
    path: z.string().min(1).max(4_096),
  }),
  /** `/btw …` typed in the composer: a side question (empty or too long: the host says why). */
  z.strictObject({ type: z.literal('side_question_ask'), text: z.string().max(MAX_PROMPT_CHARS) }),
  /** The Stop of one side answer (the agent's run is not touched). */
  z.strictObject({ type: z.literal('side_question_stop'), id: z.string().min(1).max(64) }),
  /** The review of a turn's edits: open a file at its hunks, keep or undo a file's (or the turn's) hunks. */
  z.strictObject({
    type: z.literal('edits_review'),
    action: z.enum(['open', 'keep', 'undo']),
    turn: z.number().int().positive().max(1_000_000),
    path: z.string().min(1).max(4_096).optional(),
  }),
]);
export type WebviewToHost = z.infer<typeof webviewToHostSchema>;

/** Messages the host sends to a webview. */
export const hostToWebviewSchema = z.discriminatedUnion('type', [
  /** Events batched per frame: one post carries many deltas. */
  z.strictObject({ type: z.literal('agent_events'), events: z.array(agentEventSchema) }),
  z.strictObject({
    type: z.literal('chat_notice'),
    level: z.enum(['info', 'warning', 'error']),
    text: z.string(),
    actions: z.array(
      z.strictObject({ action: webviewActionSchema, label: z.string(), choice: choiceSchema.optional() }),
    ),
  }),
  z.strictObject({ type: z.literal('chat_reset') }),
  /**
   * The answer to a prompt_submit: started (no problem), or refused with the reason (a model not
   * set up; a notice with what to do follows). A refused prompt goes back into the composer.
   */
  z.strictObject({
    type: z.literal('prompt_result'),
    requestId: z.string().min(1).max(64),
    problem: z.string().max(10_000).optional(),
  }),
  /** What the composer's pickers show: the model and preset the next prompt uses. */
  z.strictObject({ type: z.literal('chat_status'), model: z.string().max(200), preset: z.string().max(200) }),
  /** Text for the composer, e.g. "@file:src/app.ts " from "Add File to Chat", or an edit handed back. */
  z.strictObject({ type: z.literal('composer_insert'), text: z.string().max(MAX_PROMPT_CHARS) }),
  /** The half-typed prompt kept for this window, for an empty composer (after a reload, or the view shown again). */
  z.strictObject({ type: z.literal('draft_restore'), text: z.string().max(MAX_PROMPT_CHARS) }),
  /** A side question's answer (`/btw`) as it stands: shown apart from the transcript, never part of it. */
  z.strictObject({
    type: z.literal('side_answer'),
    id: z.string().max(64),
    question: z.string().max(1_000),
    status: z.enum(['waiting', 'answering', 'answered', 'refused', 'failed', 'stopped']),
    text: z.string(),
    note: z.string().max(10_000).optional(),
    usage: z
      .strictObject({
        inputTokens: z.number().nonnegative(),
        outputTokens: z.number().nonnegative(),
        costUsd: z.number().nonnegative(),
        model: z.string().max(200),
      })
      .optional(),
  }),
  /**
   * Small previews of images the chat shows (a prompt's, a queued one's, a tool's), by sha256:
   * data URLs of a few kilobytes the host made from the stored image (issue 36).
   */
  z.strictObject({
    type: z.literal('image_previews'),
    previews: z.array(z.strictObject({ sha256: sha256Schema, url: z.string().max(200_000) })).max(200),
  }),
  /** The queued messages, in order, whenever they change. */
  z.strictObject({
    type: z.literal('queue_state'),
    items: z
      .array(
        z.strictObject({
          id: queueIdSchema,
          text: z.string().max(MAX_PROMPT_CHARS),
          images: z.array(imageReferenceSchema).max(IMAGE_LIMITS.maxPerMessage).optional(),
        }),
      )
      .max(MAX_QUEUED_PROMPTS),
    /** The queue waits for the user: the run was stopped, failed, or the window reloaded. */
    held: z
      .strictObject({ kind: z.enum(['stopped', 'failed', 'reloaded']), reason: z.string().max(10_000).optional() })
      .optional(),
    editing: queueIdSchema.optional(),
  }),
]);
export type HostToWebview = z.infer<typeof hostToWebviewSchema>;
/** What the host sends the chat besides event batches. */
export type ChatUpdate = Exclude<HostToWebview, { type: 'agent_events' }>;

/** Validates a message from a webview; returns undefined for anything that does not fit. */
export function parseWebviewMessage(raw: unknown): WebviewToHost | undefined {
  const result = webviewToHostSchema.safeParse(raw);
  return result.success ? result.data : undefined;
}

/** The developer panel's switches for the conversation it watches. */
export const panelToggleSchema = z.enum(['auto_approve', 'plan_mode', 'tracing', 'teams']);
export type PanelToggle = z.infer<typeof panelToggleSchema>;

export const panelTogglesSchema = z.strictObject({
  /** Tool calls are approved without asking, except those touching protected paths. */
  autoApprove: z.boolean(),
  planMode: z.boolean(),
  /** Model requests and responses are recorded as llm_request / llm_response events. */
  tracing: z.boolean(),
  /** The lead may start teammates (SPEC 2.8). */
  teams: z.boolean(),
});
export type PanelToggles = z.infer<typeof panelTogglesSchema>;

/** Which audit records the panel's Audit Log shows or exports. */
export const auditScopeSchema = z.enum(['conversation', 'all']);
export type AuditScope = z.infer<typeof auditScopeSchema>;

/** The most thumbnails one image_thumbnails_request asks for, and one image_thumbnails answers. */
export const MAX_THUMBNAILS_PER_MESSAGE = 48;
/** A sha256 as the store keys images: 64 lower-case hex digits (the panel asks for nothing else). */
const hexSha256Schema = z.string().regex(/^[0-9a-f]{64}$/);
/**
 * One thumbnail for the panel: a small image data URL, or why there is none — 'gone': the store no
 * longer has the image; 'no_preview': none could be made. (The webview's generated parser knows no
 * regex: the panel itself takes only `data:image/…;base64,` URLs.)
 */
export const panelThumbnailSchema = z.strictObject({
  sha256: sha256Schema,
  url: z.string().max(200_000).optional(),
  problem: z.enum(['gone', 'no_preview']).optional(),
});
export type PanelThumbnail = z.infer<typeof panelThumbnailSchema>;

/** Messages the developer panel sends to the host; validated like the chat's. */
export const panelToHostSchema = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('panel_ready') }),
  z.strictObject({ type: z.literal('toggle_set'), toggle: panelToggleSchema, on: z.boolean() }),
  z.strictObject({ type: z.literal('audit_request'), scope: auditScopeSchema }),
  /** The host asks where to save (a save dialog) and writes the file. */
  z.strictObject({ type: z.literal('audit_export'), scope: auditScopeSchema, format: z.enum(['jsonl', 'csv']) }),
  /** The Forks tab: the tree again (Refresh), and a row clicked (the host shows that conversation). */
  z.strictObject({ type: z.literal('forks_request') }),
  z.strictObject({ type: z.literal('fork_open'), conversationId: z.string().min(1).max(200) }),
  /** The Compare tab: the recorded conversations again, and two of them (A and B) compared. */
  z.strictObject({
    type: z.literal('compare_request'),
    a: z.string().min(1).max(200).optional(),
    b: z.string().min(1).max(200).optional(),
  }),
  /** Thumbnails of the images inspector rows on screen name (issue 36), by sha256; answered by image_thumbnails. */
  z.strictObject({
    type: z.literal('image_thumbnails_request'),
    sha256s: z.array(hexSha256Schema).min(1).max(MAX_THUMBNAILS_PER_MESSAGE),
  }),
  /** "Re-run from here with…" on a step of a compared run (the host asks what to change). */
  z.strictObject({
    type: z.literal('compare_rerun'),
    conversationId: z.string().min(1).max(200),
    step: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
  }),
]);
export type PanelToHost = z.infer<typeof panelToHostSchema>;

/** One MCP server as the developer panel shows it. */
export const mcpServerStatusSchema = z.strictObject({
  name: z.string().max(100),
  transport: z.enum(['stdio', 'http', 'sse']),
  state: z.enum(['connecting', 'connected', 'error', 'stopped']),
  toolCount: z.number().int().nonnegative(),
  error: z.string().max(2_000).optional(),
});
export type McpServerStatusMessage = z.infer<typeof mcpServerStatusSchema>;

/** One audit record as the panel shows it (SPEC 4.5); the data is the stored record's, secrets redacted. */
export const auditRecordMessageSchema = z.strictObject({
  id: z.string().max(200),
  conversationId: z.string().max(200),
  time: z.number(),
  kind: z.enum(['model_call', 'tool_call', 'budget', 'policy']),
  data: z.record(z.string(), z.unknown()),
});
export type AuditRecordMessage = z.infer<typeof auditRecordMessageSchema>;

/** The most audit records sent to the panel at once (the newest); exports have them all. */
export const MAX_AUDIT_RECORDS = 2_000;

/** The most policy rules sent to the panel (a policy that long is shown in part; `total` counts them all). */
export const MAX_POLICY_RULES = 500;
/** The longest rule, layer description or team line the panel is sent (characters). */
export const MAX_POLICY_TEXT = 500;

/** One rule in force and the layer that decided it (SPEC 5a), worded for the developer panel. */
export const policyRuleMessageSchema = z.strictObject({
  /** As written: `tools.deny "bash"`, `budget.team_daily_usd: 100`. */
  rule: z.string().max(MAX_POLICY_TEXT),
  layer: z.enum(['team', 'user', 'workspace']),
  /** The layer in words: "the team policy (v3, by lead@example.com)", ".openagent/agent.yaml". */
  decidedBy: z.string().max(MAX_POLICY_TEXT),
});
export type PolicyRuleMessage = z.infer<typeof policyRuleMessageSchema>;

/** The team database's state in one line; absent when no team is configured. */
export const teamStatusMessageSchema = z.strictObject({
  state: z.enum(['connecting', 'connected', 'unreachable']),
  text: z.string().max(2_000),
});
export type TeamStatusMessage = z.infer<typeof teamStatusMessageSchema>;

/** The most rows of a tree of forks sent to the panel (the rest are counted in their parent's `more`). */
export const MAX_FORK_ROWS = 300;
/** The longest title or message excerpt of a fork row (characters). */
export const MAX_FORK_TEXT = 200;

/**
 * One conversation of a tree of forks (SPEC 5b), flattened: the rows come root first, each
 * fork after its parent and that parent's earlier forks' rows (a depth-first walk), so the
 * panel draws the tree by `depth` alone, with no recursion whatever the depth.
 */
export const forkRowSchema = z.strictObject({
  id: z.string().min(1).max(200),
  depth: z.number().int().nonnegative(),
  title: z.string().max(MAX_FORK_TEXT),
  createdAt: z.number(),
  /** The conversation the shown session has on screen. */
  shown: z.boolean(),
  /** Where it was forked (absent on the root): the last message it shares with its parent. */
  origin: z
    .strictObject({
      /** 'fork': "Fork from here"; 'rewind': the later part an edited prompt left behind. */
      reason: z.enum(['fork', 'rewind']),
      seq: z.number().int().min(-1),
      /** That message as /messages numbers it, its author and its start; absent: before the first. */
      number: z.number().int().positive().optional(),
      role: z.enum(['user', 'assistant']).optional(),
      text: z.string().max(MAX_FORK_TEXT).optional(),
    })
    .optional(),
  /** The root was itself forked from a conversation that is no longer saved (or lies too far up). */
  parentGone: z.boolean().optional(),
  /** Conversations below this one that are not listed (too many forks, or too many rows). */
  more: z.number().int().positive().optional(),
});
export type ForkRow = z.infer<typeof forkRowSchema>;

/** The most aligned steps of a comparison sent to the panel at once (the rest are counted). */
export const MAX_COMPARE_ROWS = 400;
/** The most conversations the Compare tab's pickers list. */
export const MAX_COMPARE_CHOICES = 200;
/** The longest step label, divergence text or title the Compare tab is sent (characters). */
export const MAX_COMPARE_TEXT = 300;

/** One side of an aligned row: a recorded step in a line. */
export const compareStepSchema = z.strictObject({
  step: z.number().int().nonnegative(),
  kind: z.enum(['model', 'tool', 'prompt', 'interrupt']),
  agentId: z.string().max(MAX_COMPARE_TEXT).optional(),
  label: z.string().max(MAX_COMPARE_TEXT),
});

/** Two runs' steps side by side (compare-runs.ts), `index` counting from the comparison's first row. */
export const compareRowSchema = z.strictObject({
  index: z.number().int().nonnegative(),
  a: compareStepSchema.optional(),
  b: compareStepSchema.optional(),
  same: z.boolean(),
  difference: z.string().max(MAX_COMPARE_TEXT).optional(),
});
export type CompareRow = z.infer<typeof compareRowSchema>;

/** A run's totals as the Compare tab shows them. */
export const compareTotalsSchema = z.strictObject({
  conversationId: z.string().max(200),
  title: z.string().max(MAX_COMPARE_TEXT),
  steps: z.number().int().nonnegative(),
  modelCalls: z.number().int().nonnegative(),
  toolCalls: z.number().int().nonnegative(),
  tokens: z.number().nonnegative(),
  costUsd: z.number().nonnegative(),
  durationMs: z.number().nonnegative(),
  errors: z.number().int().nonnegative(),
  approvalsAsked: z.number().int().nonnegative(),
  denials: z.number().int().nonnegative(),
  files: z.number().int().nonnegative(),
  unfinished: z.boolean(),
});
export type CompareTotals = z.infer<typeof compareTotalsSchema>;

/** Where two runs (or a replay and its recording) first part. */
export const compareDivergenceSchema = z.strictObject({
  step: z.number().int().nonnegative(),
  what: z.string().max(MAX_COMPARE_TEXT),
  expected: z.string().max(MAX_COMPARE_TEXT),
  actual: z.string().max(MAX_COMPARE_TEXT),
});

/** A conversation the Compare tab's pickers offer; `recorded` false: it has no recording to compare. */
export const compareChoiceSchema = z.strictObject({
  id: z.string().min(1).max(200),
  title: z.string().max(MAX_COMPARE_TEXT),
  createdAt: z.number(),
  recorded: z.boolean(),
});
export type CompareChoice = z.infer<typeof compareChoiceSchema>;

/** Messages the host sends to the developer panel. */
export const hostToPanelSchema = z.discriminatedUnion('type', [
  /** The same per-frame batches the chat gets. */
  z.strictObject({ type: z.literal('agent_events'), events: z.array(agentEventSchema) }),
  z.strictObject({ type: z.literal('panel_reset') }),
  z.strictObject({ type: z.literal('toggles_change'), toggles: panelTogglesSchema }),
  /** The MCP servers and how they are (not started yet: `started` false). */
  z.strictObject({
    type: z.literal('mcp_status'),
    started: z.boolean(),
    servers: z.array(mcpServerStatusSchema).max(100),
  }),
  /** The newest records of the scope asked for; `total` counts them all. */
  z.strictObject({
    type: z.literal('audit_records'),
    scope: auditScopeSchema,
    records: z.array(auditRecordMessageSchema).max(MAX_AUDIT_RECORDS),
    total: z.number().int().nonnegative(),
  }),
  /** "Show Audit Log": bring the Audit Log tab forward. */
  z.strictObject({ type: z.literal('audit_show') }),
  /** Whether agent commands run confined, in one line. */
  z.strictObject({ type: z.literal('sandbox_status'), confined: z.boolean(), text: z.string().max(2_000) }),
  /** The policy in force: the team's state and which layer decided each rule (`total` counts them all). */
  z.strictObject({
    type: z.literal('policy_status'),
    team: teamStatusMessageSchema.optional(),
    rules: z.array(policyRuleMessageSchema).max(MAX_POLICY_RULES),
    total: z.number().int().nonnegative(),
  }),
  /**
   * The tree of forks the shown conversation is in (no rows: no saved conversation yet); `total`
   * counts every conversation of the tree, listed or not.
   */
  z.strictObject({
    type: z.literal('fork_tree'),
    rows: z.array(forkRowSchema).max(MAX_FORK_ROWS),
    total: z.number().int().nonnegative(),
  }),
  /** Why a clicked fork was not opened (the agent is working…), or that it was. */
  z.strictObject({ type: z.literal('forks_notice'), level: z.enum(['info', 'warning']), text: z.string().max(2_000) }),
  /** The conversations the Compare tab's pickers offer, newest first. */
  z.strictObject({
    type: z.literal('compare_choices'),
    choices: z.array(compareChoiceSchema).max(MAX_COMPARE_CHOICES),
  }),
  /**
   * Two runs compared: a window of the aligned rows (from `offset`, at most MAX_COMPARE_ROWS, the
   * first divergence in it), `total` rows in all; `firstIndex` the row where they first part.
   * `replay`: A was replayed with recorded tools and this is what the replay found.
   */
  z.strictObject({
    type: z.literal('compare_view'),
    a: compareTotalsSchema,
    b: compareTotalsSchema,
    rows: z.array(compareRowSchema).max(MAX_COMPARE_ROWS),
    offset: z.number().int().nonnegative(),
    total: z.number().int().nonnegative(),
    firstIndex: z.number().int().nonnegative().optional(),
    firstDivergence: compareDivergenceSchema.optional(),
    files: z.strictObject({
      onlyA: z.array(z.string().max(MAX_COMPARE_TEXT)).max(100),
      onlyB: z.array(z.string().max(MAX_COMPARE_TEXT)).max(100),
      both: z.number().int().nonnegative(),
    }),
    replay: z.strictObject({ reproduced: z.boolean(), divergence: compareDivergenceSchema.optional() }).optional(),
  }),
  /** Why a comparison or a re-run was not made, or what became of it. */
  z.strictObject({
    type: z.literal('compare_notice'),
    level: z.enum(['info', 'warning']),
    text: z.string().max(2_000),
  }),
  /** "Show in Developer Panel" from a replay or a re-run: bring the Compare tab forward. */
  z.strictObject({ type: z.literal('compare_show') }),
  /** Thumbnails the panel asked for (image_thumbnails_request), each with its URL or why it has none. */
  z.strictObject({
    type: z.literal('image_thumbnails'),
    thumbnails: z.array(panelThumbnailSchema).max(MAX_THUMBNAILS_PER_MESSAGE),
  }),
]);
export type HostToPanel = z.infer<typeof hostToPanelSchema>;
/** The panel's event batches, checked by a parser of their own (src/protocol/panel-message-check.ts). */
export type PanelEvents = Extract<HostToPanel, { type: 'agent_events' }>;
/** Every other message the panel gets. */
export type PanelMessage = Exclude<HostToPanel, { type: 'agent_events' }>;

/** Validates a message from the developer panel; returns undefined for anything that does not fit. */
export function parsePanelMessage(raw: unknown): PanelToHost | undefined {
  const result = panelToHostSchema.safeParse(raw);
  return result.success ? result.data : undefined;
}
