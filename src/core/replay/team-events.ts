/**
 * Events of a team run compared as a replay can honestly reproduce them: each agent's own
 * sequence in order (the lead's, each teammate's tool calls as the lead's stream shows them),
 * never the interleaving of agents, which depends on how fast each ran. A teammate's model call
 * usage reaches the lead's stream without the teammate's name (team.ts), at whatever point it
 * arrived: those usage events are compared as a set.
 */
import { canonicalJson, preview } from './divergence';
import { firstEventDivergence, type EventDivergence, type NormalizedEvent } from './normalize-events';

interface Grouped {
  events: NormalizedEvent[];
  /** Index of each event in the whole list. */
  indexes: number[];
}

const TEAMMATE_USAGE = '\u0000teammates’ usage';

/**
 * The first event where one agent's sequence parts from its recorded one (index into `actual`).
 * `stoppedEarly`: the replay ended before the run did (a divergence found on the way): an agent
 * whose events stop short of its recorded ones was stopped there, and that is not another finding.
 */
export function firstTeamEventDivergence(
  expected: readonly NormalizedEvent[],
  actual: readonly NormalizedEvent[],
  stoppedEarly = false,
): EventDivergence | undefined {
  const want = group(expected);
  const got = group(actual);
  let first: EventDivergence | undefined;
  for (const agent of new Set([...want.keys(), ...got.keys()])) {
    const wanted = want.get(agent) ?? { events: [], indexes: [] };
    const gotten = got.get(agent) ?? { events: [], indexes: [] };
    const found =
      agent === TEAMMATE_USAGE && stoppedEarly
        ? firstUnexpected(wanted.events, gotten.events)
        : firstEventDivergence(wanted.events, gotten.events);
    if (!found || (stoppedEarly && found.index >= gotten.events.length)) continue;
    const index = gotten.indexes[found.index] ?? gotten.indexes.at(-1) ?? actual.length;
    const name = agent === TEAMMATE_USAGE ? 'the teammates’ usage' : agent;
    if (!first || index < first.index) first = { ...found, index, what: `${name}: ${found.what}` };
  }
  return first;
}

function group(events: readonly NormalizedEvent[]): Map<string, Grouped> {
  const groups = new Map<string, Grouped>();
  for (const [index, event] of events.entries()) {
    // The lead's own sub-agents report under their own names: a lead usage of sub-agent work is a teammate's.
    const key =
      event.agentId === 'lead' && event.type === 'usage' && event.work === 'subagent' ? TEAMMATE_USAGE : event.agentId;
    let entry = groups.get(key);
    if (!entry) groups.set(key, (entry = { events: [], indexes: [] }));
    entry.events.push(event);
    entry.indexes.push(index);
  }
  const usage = groups.get(TEAMMATE_USAGE);
  if (usage) {
    const order = usage.events.map((event, at) => ({ event, at, key: canonicalJson(event) }));
    order.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.at - b.at));
    groups.set(TEAMMATE_USAGE, {
      events: order.map((entry) => entry.event),
      indexes: order.map((entry) => usage.indexes[entry.at]!),
    });
  }
  return groups;
}

/** A replay stopped early made part of the teammates' usage events: the first one not in the recorded set. */
function firstUnexpected(
  expected: readonly NormalizedEvent[],
  actual: readonly NormalizedEvent[],
): EventDivergence | undefined {
  const left = new Map<string, number>();
  for (const event of expected) left.set(canonicalJson(event), (left.get(canonicalJson(event)) ?? 0) + 1);
  for (const [index, event] of actual.entries()) {
    const key = canonicalJson(event);
    const count = left.get(key) ?? 0;
    if (count > 0) {
      left.set(key, count - 1);
      continue;
    }
    return {
      index,
      what: 'a usage event the recording does not have',
      expected: '(none such)',
      actual: preview(event),
    };
  }
  return undefined;
}
