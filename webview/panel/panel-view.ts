/**
 * The developer panel's DOM: draws the PanelModel into its tabs and redraws only what an event
 * batch changed — new or changed tool blocks and trace pairs, appended inspector rows, the
 * small usage and agents sections in full.
 */
import type { AgentEvent } from '../../src/protocol/events';
import { collapsible, emptyNote, updateCollapsible } from './dom';
import { formatTokens } from './panel-format';
import { filterEvents, matchesFilter, type EventFilter } from './event-inspector';
import { PanelModel, type TracePair } from './panel-model';
import type { EventThumbnails } from './event-thumbnails';
import {
  eventBody,
  eventSummary,
  renderAgents,
  renderUsage,
  toolBody,
  toolSummary,
  traceBody,
  traceSummary,
  usageLine,
} from './panel-sections';

/** The inspector keeps at most this many rows on screen; the filter finds older ones. */
export const MAX_EVENT_ROWS = 1000;

export interface PanelElements {
  status: HTMLElement;
  conversation: HTMLElement;
  usageSummary: HTMLElement;
  tools: HTMLElement;
  agents: HTMLElement;
  usage: HTMLElement;
  events: HTMLElement;
  eventCount: HTMLElement;
  traces: HTMLElement;
  /** The type filter: a vscode-single-select whose options are the types seen so far. */
  typeSelect: HTMLElement;
  counters: Record<'tools' | 'agents' | 'usage' | 'events' | 'traces', HTMLElement>;
}

interface Drawn {
  element: HTMLDetailsElement;
  revision: number;
}

export class PanelView {
  private model = new PanelModel();
  private readonly toolElements = new Map<string, Drawn>();
  private readonly traceElements = new Map<TracePair, Drawn>();
  private readonly typeOptions = new Set<string>();
  private filter: EventFilter = {};
  private matched = 0;
  private tracing = false;

  /** Thumbnails of the images a row's event names (issue 36). */
  private thumbnails: EventThumbnails | undefined;

  constructor(private readonly elements: PanelElements) {
    this.reset();
  }

  /** Rows drawn from now on show their events' images as thumbnails. */
  showThumbnails(thumbnails: EventThumbnails): void {
    this.thumbnails = thumbnails;
  }

  /** A new conversation (or a reload): everything starts empty. */
  reset(): void {
    this.model = new PanelModel();
    this.thumbnails?.reset();
    this.toolElements.clear();
    this.traceElements.clear();
    this.matched = 0;
    const { tools, events, traces } = this.elements;
    tools.replaceChildren(emptyNote('No tool calls yet.'));
    events.replaceChildren();
    traces.replaceChildren();
    this.renderTraceNote();
    this.elements.agents.replaceChildren(...renderAgents(this.model));
    this.elements.usage.replaceChildren(...renderUsage(this.model));
    this.renderStatus();
    this.renderEventCount();
    this.renderCounters();
  }

  apply(events: readonly AgentEvent[]): void {
    const changes = this.model.apply(events);
    if (changes.tools) this.renderTools();
    if (changes.agents) this.elements.agents.replaceChildren(...renderAgents(this.model));
    if (changes.usage) this.elements.usage.replaceChildren(...renderUsage(this.model));
    if (changes.traces) this.renderTraces();
    if (changes.status || changes.usage) this.renderStatus();
    this.appendEvents(changes.events);
    this.renderCounters();
  }

  /** The inspector's filter changed: its rows are drawn again. */
  setFilter(filter: EventFilter): void {
    this.filter = filter;
    const { shown, matched } = filterEvents(this.model.events, filter, MAX_EVENT_ROWS);
    this.matched = matched;
    this.elements.events.replaceChildren(...shown.map((event) => this.eventRow(event)));
    this.renderEventCount();
  }

  /** Whether tracing is on, for what the traces tab says while it is empty. */
  setTracing(on: boolean): void {
    this.tracing = on;
    this.renderTraceNote();
  }

  /** Opens or closes every tool block. */
  setToolsOpen(open: boolean): void {
    for (const { element } of this.toolElements.values()) element.open = open;
  }

  private renderTools(): void {
    const container = this.elements.tools;
    if (this.toolElements.size === 0) container.replaceChildren();
    for (const block of this.model.tools.values()) {
      const drawn = this.toolElements.get(block.key);
      const className = `tool-block state-${block.state}`;
      if (!drawn) {
        const element = collapsible(className, toolSummary(block), () => toolBody(block));
        element.dataset.toolCallId = block.toolCallId;
        container.append(element);
        this.toolElements.set(block.key, { element, revision: block.revision });
      } else if (drawn.revision !== block.revision) {
        drawn.element.className = className;
        updateCollapsible(drawn.element, toolSummary(block), () => toolBody(block));
        drawn.revision = block.revision;
      }
    }
  }

  private renderTraces(): void {
    const container = this.elements.traces;
    if (this.traceElements.size === 0) container.replaceChildren();
    for (const pair of this.model.traces) {
      const drawn = this.traceElements.get(pair);
      if (!drawn) {
        const element = collapsible('trace-pair', traceSummary(pair), () => traceBody(pair));
        container.append(element);
        this.traceElements.set(pair, { element, revision: pair.revision });
      } else if (drawn.revision !== pair.revision) {
        updateCollapsible(drawn.element, traceSummary(pair), () => traceBody(pair));
        drawn.revision = pair.revision;
      }
    }
  }

  private renderTraceNote(): void {
    if (this.model.traces.length > 0) return;
    this.elements.traces.replaceChildren(
      emptyNote(
        this.tracing
          ? 'Tracing is on: the next model request and its response appear here, secrets redacted.'
          : 'Tracing is off. Switch on LLM tracing above to record every model request and response (secrets redacted).',
      ),
    );
  }

  private appendEvents(events: readonly AgentEvent[]): void {
    if (events.length === 0) return;
    const rows = events.filter((event) => matchesFilter(event, this.filter)).map((event) => this.eventRow(event));
    this.matched += rows.length;
    const container = this.elements.events;
    container.append(...rows);
    // Keep the newest rows; the oldest leave the screen (the filter can still find them).
    let excess = container.childElementCount - MAX_EVENT_ROWS;
    while (excess-- > 0) container.firstElementChild?.remove();
    this.renderEventCount();
    this.addTypeOptions(events);
  }

  private eventRow(event: AgentEvent): HTMLDetailsElement {
    const row = collapsible('event-row', eventSummary(event), () => eventBody(event));
    row.dataset.type = event.type;
    const strip = this.thumbnails?.strip(event);
    if (strip) row.querySelector(':scope > summary')?.append(strip);
    return row;
  }

  /** New event types become options of the type filter. */
  private addTypeOptions(events: readonly AgentEvent[]): void {
    for (const event of events) {
      if (this.typeOptions.has(event.type)) continue;
      this.typeOptions.add(event.type);
      const option = document.createElement('vscode-option');
      option.setAttribute('value', event.type);
      option.textContent = event.type;
      this.elements.typeSelect.append(option);
    }
  }

  private renderEventCount(): void {
    const total = this.model.events.length;
    const shown = Math.min(this.matched, MAX_EVENT_ROWS);
    const filtered = this.filter.type !== undefined || Boolean(this.filter.text?.trim());
    let text = `${formatTokens(total)} event${total === 1 ? '' : 's'}`;
    if (filtered) text = `${formatTokens(this.matched)} of ${text} match`;
    if (shown < this.matched) text += ` (showing the last ${formatTokens(shown)})`;
    this.elements.eventCount.textContent = text;
  }

  private renderStatus(): void {
    const { status, conversation, usageSummary } = this.elements;
    status.textContent = this.model.running ? 'running' : this.model.conversationId ? 'idle' : 'no conversation yet';
    status.className = `status-pill ${this.model.running ? 'is-running' : ''}`.trim();
    conversation.textContent = this.model.conversationId ? `Conversation ${this.model.conversationId}` : '';
    usageSummary.textContent = usageLine(this.model.total);
  }

  private renderCounters(): void {
    const { counters } = this.elements;
    const agents = this.model.subagents.size + this.model.teammates.size + this.model.tasks.size;
    const counts = {
      tools: this.model.tools.size,
      agents,
      usage: this.model.usageRows.length,
      events: this.model.events.length,
      traces: this.model.traces.length,
    };
    for (const [name, count] of Object.entries(counts) as Array<[keyof typeof counts, number]>) {
      counters[name].textContent = String(count);
    }
  }
}
