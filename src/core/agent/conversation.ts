/**
 * A conversation with the model: history, one run at a time, and the events it emits.
 * This first slice streams text answers; the full loop with tools, compaction and hooks
 * grows from here (SPEC.md 2.1).
 */
import type { AgentEvent, AgentEventBody, ErrorKind } from './events';
import type { LlmClient, ModelMessage } from '../llm/llm-client';
import { LlmError } from '../llm/llm-client';
import type { Clock } from '../ports';

export type EventListener = (event: AgentEvent) => void;

export interface ConversationOptions {
  id: string;
  llm: LlmClient;
  model: string;
  system: string;
  maxOutputTokens?: number;
  clock: Clock;
}

const LEAD_AGENT = 'lead';

export class Conversation {
  readonly id: string;
  private readonly history: ModelMessage[] = [];
  private readonly listeners = new Set<EventListener>();
  private seq = 0;
  private running: AbortController | undefined;

  constructor(private options: ConversationOptions) {
    this.id = options.id;
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** A copy of the model-facing history. */
  get messages(): readonly ModelMessage[] {
    return [...this.history];
  }

  /** Switches the model for the next run; the history carries over. */
  useModel(llm: LlmClient, model: string): void {
    this.options = { ...this.options, llm, model };
  }

  /** Subscribes to every event from now on; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Sends a user prompt and streams the answer as events. Resolves when the run has ended,
   * whichever way it ended (done, error or interrupted); never rejects.
   */
  async submit(prompt: string): Promise<void> {
    if (this.running) throw new Error('A run is already in progress in this conversation.');
    const controller = new AbortController();
    this.running = controller;
    this.history.push({ role: 'user', content: [{ type: 'text', text: prompt }] });
    this.emit({ type: 'user_message', text: prompt });
    let text = '';
    try {
      let stopReason = 'end_turn';
      for await (const part of this.options.llm.stream({
        model: this.options.model,
        system: this.options.system,
        messages: this.history,
        tools: [],
        maxOutputTokens: this.options.maxOutputTokens ?? 8192,
        signal: controller.signal,
      })) {
        if (part.type === 'text_delta') {
          text += part.text;
          this.emit({ type: 'text_delta', text: part.text });
        } else if (part.type === 'usage') {
          this.emit({ type: 'usage', model: this.options.model, usage: part.usage, reported: part.reported });
        } else if (part.type === 'finish') {
          stopReason = part.stopReason;
        }
      }
      this.emit({ type: 'done', stopReason });
    } catch (error) {
      if (controller.signal.aborted) {
        this.emit({ type: 'interrupted', reason: 'Stopped by the user.' });
      } else {
        this.emit({ type: 'error', message: describe(error), kind: errorKind(error) });
      }
    } finally {
      // Keep the history valid for the next request: an answer cut short still records
      // what the user saw, and a user turn never stands twice in a row.
      if (text) this.history.push({ role: 'assistant', content: [{ type: 'text', text }] });
      else this.history.pop();
      this.running = undefined;
    }
  }

  /** Stops the current run at once (aborts the HTTP stream). Idempotent. */
  stop(): void {
    this.running?.abort();
  }

  private emit(body: AgentEventBody): void {
    const event = {
      ...body,
      conversationId: this.id,
      agentId: LEAD_AGENT,
      seq: this.seq++,
      time: this.options.clock.now(),
    } as AgentEvent;
    for (const listener of this.listeners) {
      try {
        listener(event);
      } catch {
        // A faulty subscriber must not break the run or the other subscribers.
      }
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function errorKind(error: unknown): ErrorKind {
  return error instanceof LlmError ? error.kind : 'internal';
}
