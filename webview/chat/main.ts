/**
 * The sidebar chat webview. Its first job is the composer: this script (written into the page by
 * the host, so nothing is fetched first) builds it and lets it paint before anything else, so the
 * user can type at once. After that first paint it tells the host it is ready and loads the rest
 * of the chat (conversation.ts: transcript, notices, meter, queue); the host's answer — the chat
 * that comes back, the draft, the queue — waits, in order, until that code is there. Nothing the
 * host sends is dropped or reordered on the way.
 */
import type { AgentEvent } from '../../src/protocol/events';
import { parseChatUpdate } from '../../src/protocol/generated/chat-update-parser';
import { postToHost } from '../shared/vscode-api';
import { CHAT_LAYOUT, Composer } from './composer';
import type * as Conversation from './conversation';
import type { ChatMessage } from './conversation';

const root = document.getElementById('openagent-chat')!;
root.innerHTML = CHAT_LAYOUT;
const composer = new Composer(postToHost);

/** Applies host messages once the conversation's code is loaded; until then they wait in `early`. */
let deliver: ((message: ChatMessage) => void) | undefined;
const early: ChatMessage[] = [];

/**
 * Messages come only from our extension host (the CSP lets no other script run here). Event
 * batches are checked by their envelope: checking each of thousands of replayed events took a
 * third of the time to reopen a long conversation. Everything else is parsed whole.
 */
function parseHostMessage(data: unknown): ChatMessage | undefined {
  const envelope = data as { type?: unknown; events?: unknown } | null;
  if (envelope?.type === 'agent_events' && Array.isArray(envelope.events))
    return { type: 'agent_events', events: envelope.events.filter(isEventShaped) };
  return parseChatUpdate(data);
}

function isEventShaped(value: unknown): value is AgentEvent {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const message = parseHostMessage(event.data);
  if (!message) return;
  if (deliver) deliver(message);
  else early.push(message);
});

/**
 * Runs `next` once the composer is on screen: a task queued from an animation frame runs after
 * that frame is painted. A hidden document paints no frames, and a stalled frame must not hold
 * the chat back, so it runs anyway after a moment.
 */
function afterFirstPaint(next: () => void): void {
  let done = false;
  const once = () => {
    if (done) return;
    done = true;
    next();
  };
  if (document.visibilityState === 'hidden') setTimeout(once, 0);
  else requestAnimationFrame(() => setTimeout(once, 0));
  setTimeout(once, 250);
}

afterFirstPaint(() => {
  // The host gathers the chat that comes back while the rest of the chat's code loads.
  postToHost({ type: 'webview_ready' });
  // A script of its own (dist/webview/chat-conversation.js), named by the page: this one is
  // written into the page, so a relative import would not find it.
  const conversation = root.dataset.laterScript
    ? (import(root.dataset.laterScript) as Promise<typeof Conversation>)
    : Promise.reject(new Error('the page names no script for the conversation'));
  conversation.then(
    ({ mountConversation }) => {
      deliver = mountConversation(composer, postToHost);
      // One message that fails to show must not hold back the others (as with messages arriving later).
      for (const message of early.splice(0))
        try {
          deliver(message);
        } catch (error) {
          reportError(error);
        }
      document.getElementById('transcript')!.removeAttribute('aria-busy');
    },
    (error: unknown) => {
      const notice = document.createElement('p');
      notice.className = 'notice notice-error';
      notice.textContent = `The chat could not finish loading (${String(error)}). Reload the window to try again.`;
      document.getElementById('notices')!.append(notice);
    },
  );
});
