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
  private readonly readyEmitter = this._register(new vscode.EventEmitter<void>());
  /** Fires each time a chat webview has loaded its script and said it is ready. */
  readonly onDidBecomeReady = this.readyEmitter.event;

  constructor(
    /** The session the chat shows, and what reopens this window's last chat when the view first shows. */
    private readonly chat: { session: ConversationSession; keeper?: ChatKeeper },
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
    this.controller?.dispose();
    const controller = new ChatController(webview, this.chat.session, this.actions, this.chat.keeper);
    this.controller = controller;
    controller.onDidBecomeReady(() => this.readyEmitter.fire());
    webview.release();
    view.onDidChangeVisibility(() => {
      if (!view.visible) controller.webviewHidden();
    });
    view.onDidDispose(() => {
      controller.dispose();
      if (this.controller === controller) this.controller = undefined;
    });
  }

  override dispose(): void {
    this.controller?.dispose();
    super.dispose();
  }
}
