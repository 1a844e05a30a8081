import * as vscode from 'vscode';
import type { ConversationSession } from '../../core/session/conversation-session';
import type { ChatKeeper } from '../../core/session/chat-keeper';
import { Disposable } from '../disposable';
import type { ChatActions } from './chat-controller';
import { ChatBinding } from './chat-binding';
import type { HeldWebview } from './held-webview';
import { CHAT_VIEW_TYPE } from '../view-types';

/** The sidebar chat: a webview view in the OpenAgent activity-bar container. */
export class ChatViewProvider extends Disposable {
  static readonly viewType = CHAT_VIEW_TYPE;

  private readonly binding: ChatBinding;
  private readonly readyEmitter = this._register(new vscode.EventEmitter<void>());
  /** Fires each time a chat webview has loaded its script and said it is ready. */
  readonly onDidBecomeReady = this.readyEmitter.event;

  constructor(
    /** The session the chat shows, and what reopens this window's last chat when the view first shows. */
    chat: { session: ConversationSession; keeper?: ChatKeeper },
    actions: ChatActions,
  ) {
    super();
    this.binding = this._register(new ChatBinding(chat, actions, () => this.readyEmitter.fire()));
  }

  private get controller() {
    return this.binding.current;
  }

  /** Puts text into the composer of the chat; false when the chat is not open and ready. */
  insertIntoComposer(text: string): boolean {
    return this.controller?.insertIntoComposer(text) ?? false;
  }

  /** Refreshes the model and preset shown in the composer (after a settings change). */
  postStatus(): void {
    this.controller?.postStatus();
  }

  get isReady(): boolean {
    return this.controller?.isReady ?? false;
  }

  /**
   * Takes over a chat view whose page is already set (chat-page.ts): its controller gets what
   * the page said meanwhile, then everything it says from now on.
   */
  attach(view: vscode.WebviewView, webview: HeldWebview): void {
    this.binding.bind(webview);
    webview.release();
    view.onDidChangeVisibility(() => {
      if (!view.visible) this.controller?.webviewHidden();
    });
    view.onDidDispose(() => {
      this.binding.unbind(webview);
    });
  }

  /**
   * The chat shows another session (the session list): the open page is cleared and catches up
   * with that session's conversation; its queue, draft and Stop are that session's from now on.
   */
  show(session: ConversationSession, keeper?: ChatKeeper): void {
    this.binding.show({ session, ...(keeper ? { keeper } : {}) });
  }
}
