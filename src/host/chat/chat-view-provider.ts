import * as vscode from 'vscode';
import type { ConversationSession } from '../../core/session/conversation-session';
import type { ChatKeeper } from '../../core/session/chat-keeper';
import { Disposable } from '../disposable';
import { ChatController, type ChatActions } from './chat-controller';
import type { HeldWebview } from './held-webview';
import { CHAT_VIEW_TYPE } from '../view-types';

/** The sidebar chat: a webview view in the OpenAgent activity-bar container. */
export class ChatViewProvider extends Disposable {
  static readonly viewType = CHAT_VIEW_TYPE;

  private controller: ChatController | undefined;
  /** The chat view and its page, while one is open: a session shown later takes them over. */
  private attached: { view: vscode.WebviewView; webview: HeldWebview } | undefined;
  private readonly readyEmitter = this._register(new vscode.EventEmitter<void>());
  /** Fires each time a chat webview has loaded its script and said it is ready. */
  readonly onDidBecomeReady = this.readyEmitter.event;

  constructor(
    /** The session the chat shows, and what reopens this window's last chat when the view first shows. */
    private chat: { session: ConversationSession; keeper?: ChatKeeper },
    private readonly actions: ChatActions,
  ) {
    super();
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
    this.attached = { view, webview };
    this.bind(webview);
    webview.release();
    view.onDidChangeVisibility(() => {
      if (!view.visible) this.controller?.webviewHidden();
    });
    view.onDidDispose(() => {
      this.controller?.dispose();
      this.controller = undefined;
      if (this.attached?.view === view) this.attached = undefined;
    });
  }

  /**
   * The chat shows another session (the session list): the open page is cleared and catches up
   * with that session's conversation; its queue, draft and Stop are that session's from now on.
   */
  show(session: ConversationSession, keeper?: ChatKeeper): void {
    if (this.chat.session === session) return;
    this.chat = { session, ...(keeper ? { keeper } : {}) };
    if (!this.attached) return;
    const wasReady = this.controller?.isReady ?? false;
    const controller = this.bind(this.attached.webview);
    // A page that already said it is ready will not say so again: catch it up now.
    if (wasReady) void controller.catchUp();
  }

  private bind(webview: HeldWebview): ChatController {
    this.controller?.dispose();
    const controller = new ChatController(webview, this.chat.session, this.actions, this.chat.keeper);
    this.controller = controller;
    controller.onDidBecomeReady(() => this.readyEmitter.fire());
    return controller;
  }

  override dispose(): void {
    this.controller?.dispose();
    super.dispose();
  }
}
