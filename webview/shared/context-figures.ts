/**
 * The context meter's figures, from the agent's events alone: where the last answer's input
 * tokens went (of the model's window), and what the prompt being answered and the whole
 * conversation have cost. No DOM, so it is tested in plain Node; the chat and the developer
 * panel draw it.
 */
import { isMainCall, type AgentEvent, type ContextBreakdown } from '../../src/protocol/events';

export class ContextFigures {
  /** The last main call's breakdown, and its model. */
  context: (ContextBreakdown & { model: string }) | undefined;
  /** Cost of the model calls since the user's last message (the prompt being answered, or the last one). */
  turnUsd = 0;
  conversationUsd = 0;
  /** True once any cost is an estimate (no usage reported, or a model without a known price). */
  estimated = false;
  calls = 0;

  reset(): void {
    this.context = undefined;
    this.turnUsd = 0;
    this.conversationUsd = 0;
    this.estimated = false;
    this.calls = 0;
  }

  /** Applies events; says whether anything the meter shows changed. */
  apply(events: readonly AgentEvent[]): boolean {
    let changed = false;
    for (const event of events) {
      if (event.type === 'user_message' && event.agentId === 'lead') {
        changed ||= this.turnUsd !== 0;
        this.turnUsd = 0;
      } else if (event.type === 'usage' && event.scope === 'call') {
        const cost = Number.isFinite(event.costUsd) ? event.costUsd : 0;
        this.turnUsd += cost;
        this.conversationUsd += cost;
        this.estimated ||= !event.reported;
        this.calls++;
        if (event.context && isMainCall(event) && event.context.window > 0)
          this.context = { ...event.context, model: event.model };
        changed = true;
      }
    }
    return changed;
  }
}
