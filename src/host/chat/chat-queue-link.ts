/**
 * The chat webview's side of the queue and of the chat that comes back: shows the session's
 * queued messages as they change, applies what the user does to them (edit, remove, send now,
 * resume), and keeps the composer's half-typed text. Every outcome the user did not ask for —
 * an edit that arrived after its message was sent, an edit that no longer fits — hands the text
 * back to the composer with a notice, so nothing typed is lost.
 */
import type { ConversationSession } from '../../core/session/conversation-session';
import type { ChatKeeper } from '../../core/session/chat-keeper';
import type { QueueState } from '../../core/session/prompt-queue';
import type { HostToWebview, WebviewToHost } from '../../protocol/messages';

type QueueMessage = Extract<
  WebviewToHost,
  { type: 'queue_edit' | 'queue_editing' | 'queue_remove' | 'queue_send_now' | 'queue_resume' | 'draft_change' }
>;

export class ChatQueueLink {
  private readonly unsubscribe: () => void;

  constructor(
    private readonly session: ConversationSession,
    private readonly post: (message: HostToWebview) => void,
    /** Shows a problem of sending a queued message now (no model set up). */
    private readonly showProblem: (problem: Awaited<ReturnType<ConversationSession['submit']>>) => void,
    private readonly keeper: ChatKeeper | undefined,
  ) {
    this.unsubscribe = session.queue.onChange((state) => this.post(queueMessage(state)));
  }

  /** What the chat was: reopened before the webview catches up (once per window; later calls wait). */
  async restore(): Promise<void> {
    await this.keeper?.restore();
  }

  /** The webview (re)loaded: it edits nothing yet, and gets the queue and the kept draft. */
  webviewReady(): void {
    this.webviewGone();
    // A (re)loaded webview shows no queue until told otherwise.
    const state = this.session.queue.state;
    if (state.items.length > 0) this.post(queueMessage(state));
    const draft = this.keeper?.draft;
    if (draft) this.post({ type: 'draft_restore', text: draft });
  }

  /** The webview was hidden or closed: an edit it had open is over, so the queue may go on. */
  webviewGone(): void {
    this.session.queue.setEditing(undefined);
  }

  async handle(message: QueueMessage): Promise<void> {
    const queue = this.session.queue;
    switch (message.type) {
      case 'draft_change':
        this.keeper?.setDraft(message.text);
        return;
      case 'queue_editing':
        queue.setEditing(message.id);
        return;
      case 'queue_edit': {
        const result = queue.edit(message.id, message.text);
        if (result === 'edited') return;
        this.giveBack(
          message.text,
          result === 'gone'
            ? 'That message was sent before your edit arrived. Your edited text is back in the composer.'
            : `${result.message} Your edited text is back in the composer.`,
        );
        return;
      }
      case 'queue_remove':
        queue.remove(message.id);
        return;
      case 'queue_send_now': {
        const problem = await queue.sendQueuedNow(message.id);
        // 'gone': it was sent (or removed) a moment ago; the queue shown says so already.
        if (problem !== 'gone') this.showProblem(problem);
        return;
      }
      case 'queue_resume':
        queue.resume();
        return;
      default:
        return message satisfies never;
    }
  }

  dispose(): void {
    this.unsubscribe();
    this.webviewGone();
  }

  private giveBack(text: string, notice: string): void {
    this.post({ type: 'chat_notice', level: 'info', text: notice, actions: [] });
    this.post({ type: 'composer_insert', text });
  }
}

function queueMessage(state: QueueState): HostToWebview {
  return {
    type: 'queue_state',
    // Their images by reference: the page shows the previews ChatImages posts for them.
    items: state.items.map((item) => ({
      id: item.id,
      text: item.text,
      ...(item.images ? { images: [...item.images] } : {}),
    })),
    ...(state.held ? { held: state.held } : {}),
    ...(state.editing ? { editing: state.editing } : {}),
  };
}
