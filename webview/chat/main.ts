/** The sidebar chat webview: wires the DOM to the host protocol. */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import type { AgentEvent } from '../../src/protocol/events';
import { hostToWebviewSchema, type HostToWebview } from '../../src/protocol/messages';
import { postToHost } from '../shared/vscode-api';
import { ChatView } from './chat-view';

const root = document.getElementById('openagent-chat')!;
root.innerHTML = `
  <main id="transcript" aria-live="polite"></main>
  <div id="notices"></div>
  <div id="activity" class="activity" hidden></div>
  <form id="composer">
    <vscode-textarea id="prompt" rows="3" resize="vertical" placeholder="Ask OpenAgent… (Enter to send, Shift+Enter for a new line)" aria-label="Prompt"></vscode-textarea>
    <div class="composer-actions">
      <div class="composer-pickers">
        <vscode-button id="pick-context" secondary title="Attach context: a file, the selection, problems, terminal, git (or type @)" aria-label="Attach context">@</vscode-button>
        <vscode-button id="pick-model" secondary title="Choose the provider and model" aria-label="Choose the model">model</vscode-button>
        <vscode-button id="pick-preset" secondary title="Choose the preset for new conversations" aria-label="Choose the preset">preset</vscode-button>
      </div>
      <vscode-button id="stop" secondary hidden>Stop</vscode-button>
      <vscode-button id="send">Send</vscode-button>
    </div>
  </form>`;

const byId = <T extends HTMLElement>(id: string) => document.getElementById(id) as T;
const prompt = byId<HTMLElement & { value: string }>('prompt');
const sendButton = byId('send');
const stopButton = byId('stop');
let requestCounter = 0;
/** Prompts sent, by request id, until the host answers (prompt_result): a refused one is put back. */
const sentPrompts = new Map<string, string>();
/** A refused prompt put back in the input; cleared once it is sent after all (e.g. after Set API Key). */
let restoredPrompt: string | undefined;

const view = new ChatView(
  byId('transcript'),
  byId('notices'),
  byId('activity'),
  {
    onAction: (action, choice) =>
      postToHost({ type: 'action_invoke', action, ...(choice !== undefined ? { choice } : {}) }),
    onRevertTurn: (turn) => postToHost({ type: 'turn_revert', turn }),
    onOpenDiff: (turn, path) => postToHost({ type: 'turn_diff_open', turn, path }),
    onReview: (action, turn, path) => postToHost({ type: 'edits_review', action, turn, ...(path ? { path } : {}) }),
  },
  (running) => {
    stopButton.hidden = !running;
  },
);

function submit(): void {
  const text = prompt.value.trim();
  if (!text) return;
  const requestId = `r${++requestCounter}`;
  postToHost({ type: 'prompt_submit', requestId, text });
  sentPrompts.set(requestId, text);
  prompt.value = '';
}

byId('composer').addEventListener('submit', (event) => {
  event.preventDefault();
  submit();
});
sendButton.addEventListener('click', submit);
stopButton.addEventListener('click', () => postToHost({ type: 'run_stop' }));
const modelButton = byId('pick-model');
const presetButton = byId('pick-preset');
byId('pick-context').addEventListener('click', () => postToHost({ type: 'picker_open', picker: 'context' }));
modelButton.addEventListener('click', () => postToHost({ type: 'picker_open', picker: 'model' }));
presetButton.addEventListener('click', () => postToHost({ type: 'picker_open', picker: 'preset' }));
// "@" typed at the start of a word opens the context picker; the pick replaces it.
prompt.addEventListener('input', () => {
  const value = prompt.value;
  if (!/(^|\s)@$/.test(value)) return;
  prompt.value = value.slice(0, -1);
  postToHost({ type: 'picker_open', picker: 'context' });
});
prompt.addEventListener('keydown', (event: KeyboardEvent) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    submit();
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
      break;
    case 'prompt_result': {
      const text = sentPrompts.get(message.requestId);
      sentPrompts.delete(message.requestId);
      if (message.problem !== undefined && text !== undefined && !prompt.value) {
        prompt.value = text;
        restoredPrompt = text;
      }
      break;
    }
    case 'chat_notice':
      view.showNotice(message);
      break;
    case 'chat_reset':
      view.reset();
      break;
    case 'chat_status':
      modelButton.textContent = message.model;
      presetButton.textContent = message.preset;
      break;
    case 'composer_insert': {
      // "Add File to Chat" and friends: the mention goes where the user is typing.
      const current = prompt.value;
      prompt.value = `${current}${current && !/\s$/.test(current) ? ' ' : ''}${message.text}`;
      prompt.focus();
      break;
    }
    default:
      message satisfies never;
  }
});

postToHost({ type: 'webview_ready' });
