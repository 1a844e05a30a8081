/**
 * Events as a replay must reproduce them: what the loop did, without what only the moment
 * decides — times, durations, sequence numbers, request ids, how a text was cut into deltas, a
 * wait reported as stalled, a cache that expired while the user was away — and without events
 * made beside the loop by the host (checkpoints, reviews, the task board). Sub-agents are named
 * by their order of appearance, since their ids come from sequence numbers.
 */
import type { AgentEvent } from '../events/events';
import { canonicalJson, preview } from './divergence';

export interface NormalizedEvent {
  agentId: string;
  type: string;
  [field: string]: unknown;
}

/** What the loop emits; everything else is the host's (files_changed, review_*, task_update, …). */
const LOOP_EVENTS = new Set<string>([
  'user_message',
  'text_delta',
  'tool_call',
  'tool_approval_request',
  'tool_approval_result',
  'tool_result',
  'subagent_start',
  'subagent_end',
  'compact',
  'model_call',
  'usage',
  'cost_warning',
  'cache_break',
  'interrupted',
  'error',
  'done',
]);

/** Fields that say when or how long, or name a file or request made for this run only. */
const DROPPED_FIELDS = new Set([
  'conversationId',
  'seq',
  'time',
  'durationMs',
  'silentMs',
  'requestId',
  'reservationId',
  'transcript',
  // The context breakdown is scaled to a server's own count, which a replay does not ask for.
  'context',
  'retryOf',
  // Hooks run again in a replay; what they add is in the request the replay compares.
  'hookContext',
]);

export function normalizeEvents(events: readonly AgentEvent[]): NormalizedEvent[] {
  return normalizeEventsWithSources(events).events;
}

/** The normalized events, and for each the index of the (first) event it came from. */
export function normalizeEventsWithSources(events: readonly AgentEvent[]): {
  events: NormalizedEvent[];
  sources: number[];
} {
  const normalized: NormalizedEvent[] = [];
  const sources: number[] = [];
  const subagents = new Map<string, string>();
  const agentName = (id: string) => {
    if (id === 'lead' || !/^sub-\d+$/.test(id)) return id;
    let name = subagents.get(id);
    if (!name) subagents.set(id, (name = `sub-agent ${subagents.size + 1}`));
    return name;
  };
  for (const [index, event] of events.entries()) {
    if (!LOOP_EVENTS.has(event.type)) continue;
    if (event.type === 'model_call' && event.state === 'stalled') continue;
    if (event.type === 'cache_break' && event.reasons.every((reason) => reason === 'cache_expired')) continue;
    const agentId = agentName(event.agentId);
    const last = normalized.at(-1);
    if (event.type === 'text_delta' && last?.type === 'text_delta' && last.agentId === agentId) {
      last.text = `${String(last.text)}${event.text}`;
      continue;
    }
    const copy: NormalizedEvent = { agentId, type: event.type };
    for (const [key, value] of Object.entries(event)) {
      if (DROPPED_FIELDS.has(key) || key === 'agentId' || key === 'type' || value === undefined) continue;
      copy[key] = key === 'subagentId' && typeof value === 'string' ? agentName(value) : value;
    }
    if (event.type === 'cache_break') copy.reasons = event.reasons.filter((reason) => reason !== 'cache_expired');
    normalized.push(copy);
    sources.push(index);
  }
  return { events: normalized, sources };
}

export interface EventDivergence {
  /** Index into the normalized events. */
  index: number;
  expected: string;
  actual: string;
  what: string;
}

/** The first normalized event where `actual` parts from `expected`. */
export function firstEventDivergence(
  expected: readonly NormalizedEvent[],
  actual: readonly NormalizedEvent[],
): EventDivergence | undefined {
  const count = Math.max(expected.length, actual.length);
  for (let index = 0; index < count; index++) {
    const want = expected[index];
    const got = actual[index];
    if (want && got && canonicalJson(want) === canonicalJson(got)) continue;
    const what = !want
      ? `the replay went on with a ${got!.type} event`
      : !got
        ? `the replay ended before a ${want.type} event`
        : want.type !== got.type
          ? `a ${got.type} event instead of ${want.type}`
          : `the ${want.type} event differs${differingField(want, got)}`;
    return {
      index,
      what,
      expected: want ? preview(want) : '(no more events)',
      actual: got ? preview(got) : '(no more events)',
    };
  }
  return undefined;
}

function differingField(want: NormalizedEvent, got: NormalizedEvent): string {
  const keys = new Set([...Object.keys(want), ...Object.keys(got)]);
  for (const key of keys) if (canonicalJson(want[key]) !== canonicalJson(got[key])) return ` (${key})`;
  return '';
}
