/**
 * Connects one chat webview to the conversation session: validates what the webview sends,
 * forwards the session's events to it in per-frame batches, and turns setup problems into a
 * notice with the fix attached.
 */
import type * as vscode from 'vscode';
import type { ConversationSession, SetupProblem } from '../../core/agent/conversation-session';
import type { AgentEvent } from '../../core/agent/events';
import type { MentionResolver } from '../../core/agent/mentions';
import {
  parseWebviewMessage,
  type HostToWebview,
  type WebviewAction,
  type WebviewToHost,
} from '../../protocol/messages';
import { Disposable } from '../disposable';
import { Batcher } from './event-batcher';

export interface ChatActions {
  setApiKey(): Promise<void>;
  openSettings(): Promise<void>;
  openWalkthrough(): Promise<void>;
  openLink(href: string): Promise<void>;
  revertTurn(turn: number): Promise<void>;
  /** Resolves @mentions in prompts (@file:…, @selection, @problems, @terminal, @git). */
  resolveMention: MentionResolver;
}

export class ChatController extends Disposable {
  private ready = false;
  private readonly batcher = new Batcher<AgentEvent>((events) => this.post({ type: 'agent_events', events }));
  private readonly readyListeners = new Set<() => void>();

  constructor(
    private readonly webview: vscode.Webview,
    private readonly session: ConversationSession,
    private readonly actions: ChatActions,
  ) {
    super();
    this._register(webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)));
    const stopEvents = session.onEvent((event) => {
      if (this.ready) this.batcher.push(event);
    });
    const stopResets = session.onReset(() => {
      this.batcher.clear();
      this.post({ type: 'chat_reset' });
    });
    this._register({ dispose: () => (stopEvents(), stopResets(), this.batcher.clear()) });
  }

  get isReady(): boolean {
    return this.ready;
  }

  onDidBecomeReady(listener: () => void): () => void {
    this.readyListeners.add(listener);
    return () => this.readyListeners.delete(listener);
  }

  private receive(raw: unknown): void {
    const message = parseWebviewMessage(raw);
    // A webview is untrusted input: anything that does not fit the protocol is dropped.
    if (!message) return;
    void this.handle(message);
  }

  private async handle(message: WebviewToHost): Promise<void> {
    switch (message.type) {
      case 'webview_ready':
        this.ready = true;
        // A webview that (re)loads mid-conversation catches up with one batch.
        this.post({ type: 'chat_reset' });
        if (this.session.history.length > 0) this.post({ type: 'agent_events', events: [...this.session.history] });
        for (const listener of this.readyListeners) listener();
        return;
      case 'prompt_submit':
        this.showProblem(await this.session.submitWithMentions(message.text, this.actions.resolveMention));
        return;
      case 'run_stop':
        this.session.stop();
        return;
      case 'chat_new':
        this.session.reset();
        return;
      case 'action_invoke':
        await this.invoke(message.action);
        return;
      case 'link_open':
        await this.actions.openLink(message.href);
        return;
      case 'turn_revert':
        await this.actions.revertTurn(message.turn);
        return;
    }
  }

  private async invoke(action: WebviewAction): Promise<void> {
    if (action === 'set_api_key') await this.actions.setApiKey();
    else if (action === 'open_settings') await this.actions.openSettings();
    else if (action === 'open_walkthrough') await this.actions.openWalkthrough();
    else this.showProblem(await this.session.retry());
  }

  private showProblem(problem: SetupProblem | undefined): void {
    if (!problem) return;
    const actions: Array<{ action: WebviewAction; label: string }> =
      problem.reason === 'missing_api_key'
        ? [
            { action: 'set_api_key', label: 'Set API Key' },
            { action: 'open_settings', label: 'Choose a Provider' },
            { action: 'open_walkthrough', label: 'Get Started' },
          ]
        : [{ action: 'open_settings', label: 'Open Settings' }];
    this.post({ type: 'chat_notice', level: 'warning', text: problem.message, actions });
  }

  private post(message: HostToWebview): void {
    if (!this.ready) return;
    this.batcher.flush();
    void this.webview.postMessage(message);
  }
}
