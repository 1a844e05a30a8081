/**
 * Feeds one webview (the chat or the developer panel) the events of the session's current
 * conversation: nothing until the webview says it is ready, then everything so far in one post,
 * then the live events batched per frame; a new conversation clears it. Each surface only says
 * how its protocol spells "events" and "reset", so both surfaces show the same events.
 */
import type * as vscode from 'vscode';
import type { ConversationSession } from '../../core/session/conversation-session';
import type { AgentEvent } from '../../core/events/events';
import { Batcher } from './event-batcher';

export interface FeedMessages<Message> {
  events(events: AgentEvent[]): Message;
  reset(): Message;
  /** Which events this surface shows at all (default: every one). */
  keep?(event: AgentEvent): boolean;
}

export class SessionFeed<Message> implements vscode.Disposable {
  private ready = false;
  private readonly batcher = new Batcher<AgentEvent>((events) => this.post(this.messages.events(events)));
  private readonly readyListeners = new Set<() => void>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly webview: Pick<vscode.Webview, 'postMessage'>,
    private readonly session: Pick<ConversationSession, 'onEvent' | 'onReset' | 'history'>,
    private readonly messages: FeedMessages<Message>,
  ) {
    const stopEvents = session.onEvent((event) => {
      if (this.ready && (this.messages.keep?.(event) ?? true)) this.batcher.push(event);
    });
    const stopResets = session.onReset(() => {
      this.batcher.clear();
      this.post(this.messages.reset());
    });
    this.unsubscribe = () => (stopEvents(), stopResets());
  }

  get isReady(): boolean {
    return this.ready;
  }

  onDidBecomeReady(listener: () => void): () => void {
    this.readyListeners.add(listener);
    return () => this.readyListeners.delete(listener);
  }

  /** The webview (re)loaded and said it is ready: it catches up with one batch. */
  start(): void {
    this.ready = true;
    this.batcher.clear();
    this.post(this.messages.reset());
    const history = this.messages.keep ? this.session.history.filter(this.messages.keep) : [...this.session.history];
    if (history.length > 0) this.post(this.messages.events(history));
    for (const listener of this.readyListeners) listener();
  }

  /** The webview was unloaded (hidden): nothing is posted until it says ready again. */
  pause(): void {
    this.ready = false;
    this.batcher.clear();
  }

  /** Posts once the webview is ready; pending events go first, so order is kept. */
  post(message: Message): void {
    if (!this.ready) return;
    this.batcher.flush();
    void this.webview.postMessage(message);
  }

  dispose(): void {
    this.unsubscribe();
    this.batcher.clear();
    this.readyListeners.clear();
  }
}
