/**
 * The raw event inspector's logic: which events a filter (type, text) lets through, and the
 * one line each event shows before it is opened. No DOM.
 */
import { describeCacheBreak, describeCostWarning, type AgentEvent } from '../../src/protocol/events';

export interface EventFilter {
  /** Only events of this type; undefined: all. */
  type?: AgentEvent['type'];
  /** Case-insensitive text anywhere in the event's JSON. */
  text?: string;
}

const searchTexts = new WeakMap<AgentEvent, string>();

/** The event's JSON, lower-cased, computed once per event. */
function searchText(event: AgentEvent): string {
  let text = searchTexts.get(event);
  if (text === undefined) {
    text = JSON.stringify(event).toLowerCase();
    searchTexts.set(event, text);
  }
  return text;
}

export function matchesFilter(event: AgentEvent, filter: EventFilter): boolean {
  if (filter.type !== undefined && event.type !== filter.type) return false;
  const text = filter.text?.trim().toLowerCase();
  return !text || searchText(event).includes(text);
}

/** The last `limit` events that pass the filter, and how many passed in all. */
export function filterEvents(
  events: readonly AgentEvent[],
  filter: EventFilter,
  limit: number,
): { shown: AgentEvent[]; matched: number } {
  const matching = events.filter((event) => matchesFilter(event, filter));
  return { shown: matching.slice(Math.max(0, matching.length - limit)), matched: matching.length };
}

/** The notes of a traced response's tool calls that were read from the answer's text. */
function callsFromText(payload: unknown): Array<{ repaired?: unknown }> {
  const calls = (payload as { toolCalls?: unknown } | null)?.toolCalls;
  if (!Array.isArray(calls)) return [];
  return calls
    .map((call) => (call as { fromText?: unknown } | null)?.fromText)
    .filter((note): note is { repaired?: unknown } => typeof note === 'object' && note !== null);
}

/** Says that calls came from the text (a local server left them there) and whether JSON was repaired. */
function fromTextNote(notes: Array<{ repaired?: unknown }>): string {
  const repaired = notes.filter((note) => note.repaired === true).length;
  const calls = notes.length === 1 ? 'call' : `${notes.length} calls`;
  return `${calls} read from the text${repaired > 0 ? `, JSON repaired${notes.length > 1 ? ` in ${repaired}` : ''}` : ''}`;
}

/**
 * What an event's images are (issue 36): the event holds references, never bytes, so the row
 * says the type, the size and the start of the sha256 each is kept under in the store.
 */
export function imagesNote(
  images:
    ReadonlyArray<{ sha256: string; mediaType: string; width: number; height: number; name?: string }> | undefined,
): string {
  if (!images?.length) return '';
  const each = images.map(
    (image) =>
      `${image.name ? `${image.name} ` : ''}${image.mediaType.replace(/^image\//, '')} ${image.width}×${image.height} sha256 ${image.sha256.slice(0, 12)}…`,
  );
  return ` + ${images.length === 1 ? 'image' : `${images.length} images`}: ${each.join(', ')}`;
}

/** One line about an event for the inspector's row, at most `maxChars` long. */
export function describeEvent(event: AgentEvent, maxChars = 200): string {
  const line = describeFully(event).replace(/\s+/g, ' ');
  return line.length > maxChars ? `${line.slice(0, maxChars - 1)}…` : line;
}

function describeFully(event: AgentEvent): string {
  switch (event.type) {
    case 'user_message':
      return `${JSON.stringify(event.text)}${imagesNote(event.images)}`;
    case 'text_delta':
      return JSON.stringify(event.text);
    case 'tool_call':
      return `${event.toolName} ${event.toolCallId}${event.fromText ? ` (${fromTextNote([event.fromText])})` : ''}`;
    case 'tool_approval_request':
      return `${event.toolName} ${event.toolCallId}`;
    case 'tool_approval_result':
      return `${event.approved ? 'approved' : 'denied'} (${event.source}) ${event.toolCallId}`;
    case 'tool_result':
      return `${event.toolName} ${event.isError ? 'failed' : 'ok'} in ${event.durationMs} ms${imagesNote(event.images)}`;
    case 'usage':
      return `${event.scope} ${event.model}: ${event.usage.inputTokens} in, ${event.usage.outputTokens} out, $${event.costUsd.toFixed(4)}`;
    case 'llm_request':
      return `${event.requestId} ${event.provider} ${event.model}`;
    case 'llm_response': {
      const fromText = callsFromText(event.payload);
      return `${event.requestId} ${event.provider} ${event.model}${fromText.length > 0 ? ` · ${fromTextNote(fromText)}` : ''}`;
    }
    case 'subagent_start':
      return `${event.subagentId} ${event.kind}: ${event.description}`;
    case 'subagent_end':
      return `${event.subagentId}: ${event.summary}`;
    case 'task_update':
      return `${event.taskId} ${event.status}: ${event.subject}`;
    case 'teammate_status':
      return `${event.name} ${event.status}`;
    case 'plan_mode':
      return `${event.active ? 'on' : 'off'} (${event.reason})`;
    case 'error':
      return `${event.kind}: ${event.message}`;
    case 'done':
      return `${event.stopReason} after ${event.turns} turn${event.turns === 1 ? '' : 's'}`;
    case 'interrupted':
      return event.reason;
    case 'compact':
      return `${event.kind}: ${event.tokensBefore} → ${event.tokensAfter} tokens`;
    case 'background_result':
      return `${event.jobId} exit ${event.exitCode ?? 'none'}: ${event.command}`;
    case 'budget':
      return `${event.level} (${event.action}) ${event.scope}: ${event.unit === 'usd' ? `$${event.spent.toFixed(4)} of $${event.limit}` : `${event.spent} of ${event.limit} tokens`}`;
    case 'files_changed':
      return `turn ${event.turn}: ${event.files.map((file) => file.path).join(', ')}`;
    case 'turn_reverted':
      return `turn ${event.turn}`;
    case 'cache_break':
      return describeCacheBreak(event);
    case 'cost_warning':
      return describeCostWarning(event);
    case 'review_hunks':
      return `turn ${event.turn}: ${event.files
        .map(
          (file) =>
            `${file.path} (${file.hunks ? `${file.hunks.length} hunk${file.hunks.length === 1 ? '' : 's'}` : `not reviewable: ${file.unreviewable}`})`,
        )
        .join(', ')}`;
    case 'review_decision':
      return `turn ${event.turn} ${event.path}: ${event.decision} hunk ${event.hunks.map((hunk) => hunk + 1).join(', ')}`;
    case 'review_note':
      return `told the model of ${event.hunks.length} undone hunk${event.hunks.length === 1 ? '' : 's'}`;
    default:
      return '';
  }
}
