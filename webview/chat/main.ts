/** The sidebar chat webview: wires the DOM to the host protocol. */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import type { AgentEvent } from '../../src/protocol/events';
import { hostToWebviewSchema, type HostToWebview } from '../../src/protocol/messages';
import { postToHost } from '../shared/vscode-api';
import { ChatView } from './chat-view';
import { ContextMeter } from './context-meter';
import { QueueView } from './queue-view';
import { DraftKeeper } from './draft';

const SEND_PLACEHOLDER = 'Ask OpenAgent… (Enter to send, Shift+Enter for a new line)';
const QUEUE_PLACEHOLDER = 'Queue a message… (Enter queues it, Ctrl+Enter sends it now)';
const root = document.getElementById('openagent-chat')!;
root.innerHTML = `
  <main id="transcript" aria-live="polite"></main>
  <div id="notices"></div>
  <div id="activity" class="activity" hidden></div>
  <div id="meter" class="meter"></div>
  <form id="composer">
    <vscode-textarea id="prompt" rows="3" resize="vertical" placeholder="${SEND_PLACEHOLDER}" aria-label="Prompt"></vscode-textarea>
    <div class="composer-actions">
      <div class="composer-pickers">
        <vscode-button id="pick-context" secondary title="Attach context: a file, the selection, problems, terminal, git (or type @)" aria-label="Attach context">@</vscode-button>
        <vscode-button id="pick-model" secondary title="Choose the provider and model" aria-label="Choose the model"><span class="chip-label">model</span></vscode-button>
        <vscode-button id="pick-preset" secondary title="Choose the preset for new conversations" aria-label="Choose the preset"><span class="chip-label">preset</span></vscode-button>
      </div>
      <div class="composer-run">
        <vscode-button id="stop" secondary hidden>Stop</vscode-button>
        <vscode-button id="send-now" secondary hidden title="Stop the agent and send this instead (Ctrl+Enter)">Send now</vscode-button>
        <vscode-button id="send">Send</vscode-button>
      </div>
    </div>
  </form>
  <section id="queue" aria-label="Queued messages" hidden></section>`;

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const prompt = byId<HTMLElement & { value: string }>('prompt');
const sendButton = byId('send');
const stopButton = byId('stop');
const sendNowButton = byId('send-now');
/** The composer's text, kept by the host for the chat that comes back. */
const draft = new DraftKeeper(
  () => prompt.value,
  (text) => postToHost({ type: 'draft_change', text }),
);
let requestCounter = 0;
/** Prompts sent, by request id, until the host answers (prompt_result): a refused one is put back. */
const sentPrompts = new Map<string, string>();
/** A refused prompt put back in the input; cleared once it is sent after all (e.g. after Set API Key). */
let restoredPrompt: string | undefined;

const meter = new ContextMeter(byId('meter'));
const view = new ChatView(
  byId('transcript'),
  byId('notices'),
  byId('activity'),
  {
    onAction: (action, choice) =>
      postToHost({ type: 'action_invoke', action, ...(choice !== undefined ? { choice } : {}) }),
    onRetry: (target) => postToHost({ type: 'prompt_retry', ...target }),
    onRevertTurn: (turn) => postToHost({ type: 'turn_revert', turn }),
    onOpenDiff: (turn, path) => postToHost({ type: 'turn_diff_open', turn, path }),
    onReview: (action, turn, path) => postToHost({ type: 'edits_review', action, turn, ...(path ? { path } : {}) }),
  },
  (running) => {
    stopButton.hidden = !running;
    sendNowButton.hidden = !running;
    // While the agent works, Enter queues the message; "Send now" interrupts instead.
    sendButton.textContent = running ? 'Queue' : 'Send';
    sendButton.title = running ? 'Send when the agent finishes (Enter)' : 'Send (Enter)';
    prompt.setAttribute('placeholder', running ? QUEUE_PLACEHOLDER : SEND_PLACEHOLDER);
  },
);

const queue = new QueueView(byId('queue'), {
  edit: (id, text) => postToHost({ type: 'queue_edit', id, text }),
  editing: (id) => postToHost({ type: 'queue_editing', ...(id ? { id } : {}) }),
  remove: (id) => postToHost({ type: 'queue_remove', id }),
  sendNow: (id) => postToHost({ type: 'queue_send_now', id }),
  resume: () => postToHost({ type: 'queue_resume' }),
  giveBack: (text) => insertIntoComposer(text),
});

/** Puts text where the user is typing (after what is there), and keeps it as the draft. */
function insertIntoComposer(text: string): void {
  const current = prompt.value;
  prompt.value = `${current}${current && !/\s$/.test(current) ? ' ' : ''}${text}`;
  prompt.focus();
  draft.changed();
}

function submit(sendNow = false): void {
  const text = prompt.value.trim();
  if (!text) return;
  const requestId = `r${++requestCounter}`;
  postToHost({ type: 'prompt_submit', requestId, text, ...(sendNow ? { sendNow: true as const } : {}) });
  sentPrompts.set(requestId, text);
  prompt.value = '';
  draft.changedNow();
}

byId('composer').addEventListener('submit', (event) => {
  event.preventDefault();
  submit();
});
sendButton.addEventListener('click', () => submit());
sendNowButton.addEventListener('click', () => submit(true));
stopButton.addEventListener('click', () => postToHost({ type: 'run_stop' }));
const modelButton = byId('pick-model');
const presetButton = byId('pick-preset');
byId('pick-context').addEventListener('click', () => postToHost({ type: 'picker_open', picker: 'context' }));
modelButton.addEventListener('click', () => postToHost({ type: 'picker_open', picker: 'model' }));
presetButton.addEventListener('click', () => postToHost({ type: 'picker_open', picker: 'preset' }));
// "@" typed at the start of a word opens the context picker; the pick replaces it.
prompt.addEventListener('input', () => {
  draft.changed();
  const value = prompt.value;
  if (!/(^|\s)@$/.test(value)) return;
  prompt.value = value.slice(0, -1);
  postToHost({ type: 'picker_open', picker: 'context' });
});
prompt.addEventListener('keydown', (event: KeyboardEvent) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    // Ctrl+Enter (Cmd+Enter): send now, interrupting the agent if it works.
    submit(event.ctrlKey || event.metaKey);
  }
});

// Links in rendered markdown never navigate the webview: the host opens them after asking.
byId('transcript').addEventListener('click', (event) => {
  const link = (event.target as Element | null)?.closest('a[href]');
  if (!link) return;
  event.preventDefault();
  postToHost({ type: 'link_open', href: link.getAttribute('href')! });
});

/**
 * Messages come only from our extension host (the CSP lets no other script run here). Event
 * batches are checked by their envelope: validating each of thousands of replayed events with zod
 * took a third of the time to reopen a long conversation. Everything else is validated whole.
 */
function parseHostMessage(data: unknown): HostToWebview | undefined {
  const envelope = data as { type?: unknown; events?: unknown } | null;
  if (envelope?.type === 'agent_events' && Array.isArray(envelope.events))
    return { type: 'agent_events', events: envelope.events.filter(isEventShaped) };
  const parsed = hostToWebviewSchema.safeParse(data);
  return parsed.success ? parsed.data : undefined;
}

function isEventShaped(value: unknown): value is AgentEvent {
  return typeof value === 'object' && value !== null && typeof (value as { type?: unknown }).type === 'string';
}

window.addEventListener('message', (event: MessageEvent<unknown>) => {
  const message = parseHostMessage(event.data);
  if (!message) return;
  switch (message.type) {
    case 'agent_events':
      for (const event of message.events) {
        if (event.type !== 'user_message') continue;
        if (restoredPrompt === event.text && prompt.value.trim() === event.text) prompt.value = '';
        restoredPrompt = undefined;
      }
      view.apply(message.events);
      meter.apply(message.events);
      break;
    case 'prompt_result': {
      const text = sentPrompts.get(message.requestId);
      sentPrompts.delete(message.requestId);
      if (message.problem !== undefined && text !== undefined && !prompt.value) {
        prompt.value = text;
        restoredPrompt = text;
        draft.changed();
      }
      break;
    }
    case 'chat_notice':
      view.showNotice(message);
      break;
    case 'chat_reset':
      view.reset();
      meter.reset();
      break;
    case 'chat_status':
      showChip(modelButton, message.model, 'Choose the provider and model');
      showChip(presetButton, message.preset, 'Choose the preset for new conversations');
      break;
    case 'composer_insert':
      // "Add File to Chat" and friends: the mention goes where the user is typing.
      insertIntoComposer(message.text);
      break;
    case 'draft_restore':
      // The half-typed prompt this window had: only into an empty composer, never over typing.
      if (!prompt.value) prompt.value = message.text;
      break;
    case 'queue_state':
      queue.show(message);
      break;
    default:
      message satisfies never;
  }
});

/** A picker chip shows its value, cut with an ellipsis when long; its tooltip has it whole. */
function showChip(button: HTMLElement, value: string, purpose: string): void {
  button.querySelector('.chip-label')!.textContent = value;
  button.title = `${value} — ${purpose}`;
}

// Hidden or reloaded: what is typed is kept now, not after the pause.
window.addEventListener('pagehide', () => draft.changedNow());
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState === 'hidden') draft.changedNow();
});

postToHost({ type: 'webview_ready' });
