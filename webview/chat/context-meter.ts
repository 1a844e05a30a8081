/**
 * The chat's context meter: a bar of the model's window split by where the last answer's input
 * went (system + tools, rules and memory, conversation, tool results), its figures, and what
 * the prompt being answered and the conversation have cost. Hidden until the first model call.
 */
import {
  CONTEXT_PARTS,
  contextUsed,
  describeContextParts,
  describeContextTotal,
  formatCount,
  formatUsd,
  type AgentEvent,
} from '../../src/protocol/events';
import { ContextFigures } from '../shared/context-figures';

export class ContextMeter {
  private readonly figures = new ContextFigures();
  private readonly bar: HTMLElement;
  private readonly segments = new Map<string, HTMLElement>();
  private readonly total: HTMLElement;
  private readonly cost: HTMLElement;
  private readonly legend = new Map<string, HTMLElement>();

  constructor(private readonly root: HTMLElement) {
    root.hidden = true;
    root.setAttribute('role', 'group');
    root.setAttribute('aria-label', 'Context and cost');
    this.bar = element('div', 'meter-bar');
    this.bar.setAttribute('role', 'img');
    const summary = element('div', 'meter-summary');
    this.total = element('span', 'meter-total');
    this.cost = element('span', 'meter-cost');
    summary.append(this.total, this.cost);
    const legend = element('div', 'meter-legend');
    for (const part of CONTEXT_PARTS) {
      const segment = element('span', `meter-segment meter-${part.name}`);
      this.segments.set(part.name, segment);
      this.bar.append(segment);
      const entry = element('span', `meter-part meter-${part.name}`);
      entry.dataset.part = part.name;
      this.legend.set(part.name, entry);
      legend.append(entry);
    }
    root.append(summary, this.bar, legend);
  }

  reset(): void {
    this.figures.reset();
    this.render();
  }

  apply(events: readonly AgentEvent[]): void {
    if (this.figures.apply(events)) this.render();
  }

  private render(): void {
    const { context, estimated } = this.figures;
    this.root.hidden = this.figures.calls === 0;
    const mark = estimated ? '~' : '';
    // Nothing to pay so far: a local model, or one OpenAgent knows no price for (not "$0.00").
    this.cost.textContent =
      this.figures.conversationUsd === 0
        ? 'No cost counted'
        : `This turn ${mark}${formatUsd(this.figures.turnUsd)} · Conversation ${mark}${formatUsd(this.figures.conversationUsd)}`;
    this.cost.title =
      this.figures.conversationUsd === 0
        ? 'The model is local, or OpenAgent knows no price for it.'
        : estimated
          ? '~ marks an estimate: a server reported no usage, or a model has no known price.'
          : 'What the model calls cost, as the provider reported their tokens.';
    this.bar.hidden = !context;
    for (const entry of this.legend.values()) entry.hidden = !context;
    if (!context) {
      this.total.textContent = '';
      return;
    }
    const used = contextUsed(context);
    this.total.textContent = describeContextTotal(context);
    this.total.dataset.used = String(used);
    this.total.dataset.window = String(context.window);
    this.total.title = context.counted
      ? `The last request to ${context.model}, as its server counted it.`
      : `The last request to ${context.model}, as OpenAgent estimated it (the server reported no count).`;
    for (const part of CONTEXT_PARTS) {
      const count = context[part.name];
      this.segments.get(part.name)!.style.width = `${Math.min(100, (count / context.window) * 100)}%`;
      const entry = this.legend.get(part.name)!;
      entry.textContent = `${part.label} ${formatCount(count)}`;
      entry.dataset.tokens = String(count);
    }
    this.bar.setAttribute('aria-label', `Context window: ${this.total.textContent}. ${describeContextParts(context)}.`);
  }
}

function element(tag: string, className: string): HTMLElement {
  const node = document.createElement(tag);
  node.className = className;
  return node;
}
