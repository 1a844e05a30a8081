/**
 * Everything the chat shows besides the composer — the transcript, notices, activity, the
 * context meter and the queue — and how the host's messages change it. main.ts loads this after
 * the composer's first paint and hands it the composer and the host's door (it imports neither:
 * the chat's first script must not share code with this one, or the composer would wait for it).
 */
import type { AgentEvent } from '../../src/protocol/events';
import type { ChatUpdate, WebviewToHost } from '../../src/protocol/messages';
import { ChatView } from './chat-view';
import type { Composer } from './composer';
import { ContextMeter } from './context-meter';
import { QueueView } from './queue-view';
import { SideAnswersView } from './side-answers';
import { addPreviews } from './image-previews';

/** A host message as the chat lets it in: event batches checked by their envelope, the rest parsed whole. */
export type ChatMessage = ChatUpdate | { type: 'agent_events'; events: AgentEvent[] };

/** Builds the conversation's views in the chat layout; returns what applies a host message to them. */
export function mountConversation(
  composer: Composer,
  post: (message: WebviewToHost) => void,
): (message: ChatMessage) => void {
  const byId = (id: string) => document.getElementById(id)!;
  const meter = new ContextMeter(byId('meter'));
  const view = new ChatView(
    byId('transcript'),
    byId('notices'),
    byId('activity'),
    {
      onAction: (action, choice) =>
        post({ type: 'action_invoke', action, ...(choice !== undefined ? { choice } : {}) }),
      onRetry: (target) => post({ type: 'prompt_retry', ...target }),
      onRevertTurn: (turn) => post({ type: 'turn_revert', turn }),
      onOpenDiff: (turn, path) => post({ type: 'turn_diff_open', turn, path }),
      onReview: (action, turn, path) => post({ type: 'edits_review', action, turn, ...(path ? { path } : {}) }),
      onFork: (at) => post({ type: 'message_fork', ...at }),
      onEdit: (at, text) => post({ type: 'message_edit', ...at, text }),
    },
    (running) => composer.setRunning(running),
  );
  const queue = new QueueView(byId('queue'), {
    edit: (id, text) => post({ type: 'queue_edit', id, text }),
    editing: (id) => post({ type: 'queue_editing', ...(id ? { id } : {}) }),
    remove: (id) => post({ type: 'queue_remove', id }),
    sendNow: (id) => post({ type: 'queue_send_now', id }),
    resume: () => post({ type: 'queue_resume' }),
    giveBack: (text) => composer.insert(text),
  });

  const sideAnswers = new SideAnswersView(byId('side-answers'), (id) => post({ type: 'side_question_stop', id }));

  // Links in rendered markdown never navigate the webview: the host opens them after asking.
  byId('transcript').addEventListener('click', (event) => {
    const link = (event.target as Element | null)?.closest('a[href]');
    if (!link) return;
    event.preventDefault();
    post({ type: 'link_open', href: link.getAttribute('href')! });
  });

  return (message) => {
    switch (message.type) {
      case 'agent_events':
        for (const event of message.events) if (event.type === 'user_message') composer.promptSent(event.text);
        view.apply(message.events);
        meter.apply(message.events);
        break;
      case 'prompt_result':
        composer.promptAnswered(message.requestId, message.problem);
        break;
      case 'chat_notice':
        view.showNotice(message);
        break;
      case 'chat_reset':
        view.reset();
        meter.reset();
        sideAnswers.reset();
        break;
      case 'chat_status':
        composer.showStatus(message.model, message.preset);
        break;
      case 'composer_insert':
        // "Add File to Chat" and friends: the mention goes where the user is typing.
        composer.insert(message.text);
        break;
      case 'draft_restore':
        composer.restoreDraft(message.text);
        break;
      case 'queue_state':
        queue.show(message);
        break;
      case 'side_answer':
        sideAnswers.show(message);
        break;
      case 'image_previews':
        addPreviews(message.previews);
        break;
      default:
        message satisfies never;
    }
  };
}
