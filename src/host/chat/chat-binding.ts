/**
 * Which controller speaks for the chat page. Each shown session has its own controller; showing
 * another session swaps it, and the page — which says `webview_ready` once per load, not once
 * per controller — is caught up by the new one at once if it had already said so to the old one,
 * even when the old one was still busy catching up (reopening the window's last chat) at the
 * moment of the switch. No vscode import: the unit tests drive it with a fake page.
 */
import type { ConversationSession } from '../../core/session/conversation-session';
import type { ChatKeeper } from '../../core/session/chat-keeper';
import { ChatController, type ChatActions } from './chat-controller';
import type { ChatWebview } from './held-webview';

export interface ShownChat {
  session: ConversationSession;
  keeper?: ChatKeeper;
}

export class ChatBinding {
  private controller: ChatController | undefined;
  private webview: ChatWebview | undefined;

  constructor(
    private chat: ShownChat,
    private readonly actions: ChatActions,
    /** Each time a controller has caught the page up (the page loaded, or another session shows). */
    private readonly onReady: () => void,
  ) {}

  get current(): ChatController | undefined {
    return this.controller;
  }

  get session(): ConversationSession {
    return this.chat.session;
  }

  /** A (new) page: the shown session's controller listens to it from now on. */
  bind(webview: ChatWebview): ChatController {
    this.webview = webview;
    this.controller?.dispose();
    const controller = new ChatController(webview, this.chat.session, this.actions, this.chat.keeper);
    this.controller = controller;
    controller.onDidBecomeReady(() => this.onReady());
    return controller;
  }

  /** The page closed: nothing listens until the next one. */
  unbind(webview: ChatWebview): void {
    if (this.webview !== webview) return;
    this.controller?.dispose();
    this.controller = undefined;
    this.webview = undefined;
  }

  /** Another session shows: the open page is cleared and catches up with its conversation. */
  show(chat: ShownChat): void {
    if (this.chat.session === chat.session) return;
    this.chat = chat;
    if (!this.webview) return;
    // Asked of the page, not of the old controller's catch-up: a page that said ready will not
    // say so again, whether or not the old controller got as far as answering it.
    const pageSaidReady = this.controller?.pageSaidReady ?? false;
    const controller = this.bind(this.webview);
    if (pageSaidReady) void controller.catchUp();
  }

  dispose(): void {
    this.controller?.dispose();
    this.controller = undefined;
  }
}
