import * as vscode from 'vscode';
import type { ConversationSession } from '../../core/session/conversation-session';
import type { ChatKeeper } from '../../core/session/chat-keeper';
import { Disposable } from '../disposable';
import { ChatController, type ChatActions } from './chat-controller';
import { renderWebviewHtml, webviewOptions } from './webview-html';

/** The sidebar chat: a webview view in the OpenAgent activity-bar container. */
export class ChatViewProvider extends Disposable implements vscode.WebviewViewProvider {
  static readonly viewType = 'openagent.chat';

  private controller: ChatController | undefined;
  private readonly readyEmitter = this._register(new vscode.EventEmitter<void>());
  /** Fires each time a chat webview has loaded its script and said it is ready. */
  readonly onDidBecomeReady = this.readyEmitter.event;

  constructor(
    private readonly extensionUri: vscode.Uri,
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

  resolveWebviewView(view: vscode.WebviewView): void {
    view.webview.options = webviewOptions(this.extensionUri);
    this.controller?.dispose();
    const controller = new ChatController(view.webview, this.chat.session, this.actions, this.chat.keeper);
    this.controller = controller;
    controller.onDidBecomeReady(() => this.readyEmitter.fire());
    view.onDidChangeVisibility(() => {
      if (!view.visible) controller.webviewHidden();
    });
    view.onDidDispose(() => {
      controller.dispose();
      if (this.controller === controller) this.controller = undefined;
    });
    view.webview.html = renderWebviewHtml(view.webview, this.extensionUri, {
      title: 'OpenAgent',
      script: 'webview/chat.js',
      stylesheet: 'chat.css',
      rootId: 'openagent-chat',
      laterScript: 'webview/chat-conversation.js',
    });
  }

  override dispose(): void {
    this.controller?.dispose();
    super.dispose();
  }
}
