/**
 * The chat's composer: the prompt, Send (Queue while the agent works), Send now, Stop and the
 * pickers (@ context, model, preset). It is what the chat script builds and paints first, so it
 * takes only the two elements it draws with and the host's door: the transcript, the queue and
 * the meter come after the first paint (see main.ts).
 */
import '@vscode-elements/elements/dist/vscode-button/index.js';
import '@vscode-elements/elements/dist/vscode-textarea/index.js';
import type { WebviewToHost } from '../../src/protocol/messages';
import { DraftKeeper } from './draft';
import { ComposerImages, filesOf } from './composer-images';

const SEND_PLACEHOLDER = 'Ask OpenAgent… (Enter to send, Shift+Enter for a new line)';
/** A side question longer than the host answers is sent cut just past that length: refused, with its reason. */
const SIDE_QUESTION_SENT_CHARS = 20_001;
const QUEUE_PLACEHOLDER = 'Queue a message… (Enter queues it, Ctrl+Enter sends it now)';

/**
 * The composer's markup, with the transcript, notices, activity, meter and queue areas around
 * it. The transcript is busy (aria-busy) until the conversation's code has loaded.
 */
export const CHAT_LAYOUT = `
  <main id="transcript" aria-live="polite" aria-busy="true"></main>
  <div id="notices"></div>
  <div id="activity" class="activity" hidden></div>
  <div id="meter" class="meter"></div>
  <div id="side-answers" aria-label="Side answers" hidden></div>
  <form id="composer">
    <div id="image-chips" class="image-chips" aria-label="Attached images" hidden></div>
    <p id="image-note" class="image-note" role="alert" hidden></p>
    <vscode-textarea id="prompt" rows="3" resize="vertical" placeholder="${SEND_PLACEHOLDER}" aria-label="Prompt"></vscode-textarea>
    <div class="composer-actions">
      <div class="composer-pickers">
        <vscode-button id="pick-context" secondary title="Attach context: a file, an image, the selection, problems, terminal, git (or type @; paste or drop images)" aria-label="Attach context">@</vscode-button>
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

export class Composer {
  private readonly prompt = byId<HTMLElement & { value: string }>('prompt');
  private readonly sendButton = byId('send');
  private readonly stopButton = byId('stop');
  private readonly sendNowButton = byId('send-now');
  private readonly modelButton = byId('pick-model');
  private readonly presetButton = byId('pick-preset');
  /** The composer's text, kept by the host for the chat that comes back. */
  private readonly draft: DraftKeeper;
  private requestCounter = 0;
  /** Prompts sent, by request id, until the host answers (prompt_result): a refused one is put back. */
  private readonly sentPrompts = new Map<string, { text: string; images: ReturnType<ComposerImages['take']> }>();
  /** Images pasted, dropped or picked for the next prompt. */
  private readonly images = new ComposerImages(byId('image-chips'), byId('image-note'));
  /** A refused prompt put back in the input; cleared once it is sent after all (e.g. after Set API Key). */
  private restoredPrompt: string | undefined;
  /** The agent works (from the conversation's events). */
  private running = false;
  /**
   * A prompt was sent and its run has not begun yet (the host sets it up: the policy, MCP
   * servers, the store, a prompt hook): Stop is offered then too, and ends that wait.
   */
  private starting = false;

  /** Wires the composer in the layout (CHAT_LAYOUT, already in the document) to `post`. */
  constructor(private readonly post: (message: WebviewToHost) => void) {
    this.draft = new DraftKeeper(
      () => this.prompt.value,
      (text) => post({ type: 'draft_change', text }),
    );
    const form = byId('composer');
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.submit();
    });
    // A pasted screenshot or dropped image files become chips; pasted text is left to the textarea.
    form.addEventListener('paste', (event: ClipboardEvent) => {
      const files = filesOf(event.clipboardData);
      if (files.length === 0) return;
      event.preventDefault();
      this.images.add(files);
    });
    form.addEventListener('dragover', (event: DragEvent) => {
      if (event.dataTransfer?.types.includes('Files')) event.preventDefault();
    });
    form.addEventListener('drop', (event: DragEvent) => {
      const files = filesOf(event.dataTransfer);
      if (files.length === 0) return;
      event.preventDefault();
      this.images.add(files);
    });
    this.sendButton.addEventListener('click', () => this.submit());
    this.sendNowButton.addEventListener('click', () => this.submit(true));
    this.stopButton.addEventListener('click', () => post({ type: 'run_stop' }));
    byId('pick-context').addEventListener('click', () => post({ type: 'picker_open', picker: 'context' }));
    this.modelButton.addEventListener('click', () => post({ type: 'picker_open', picker: 'model' }));
    this.presetButton.addEventListener('click', () => post({ type: 'picker_open', picker: 'preset' }));
    // "@" typed at the start of a word opens the context picker; the pick replaces it.
    this.prompt.addEventListener('input', () => {
      this.draft.changed();
      const value = this.prompt.value;
      if (!/(^|\s)@$/.test(value)) return;
      this.prompt.value = value.slice(0, -1);
      post({ type: 'picker_open', picker: 'context' });
    });
    this.prompt.addEventListener('keydown', (event: KeyboardEvent) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        // Ctrl+Enter (Cmd+Enter): send now, interrupting the agent if it works.
        this.submit(event.ctrlKey || event.metaKey);
      }
    });
    // Hidden or reloaded: what is typed is kept now, not after the pause.
    window.addEventListener('pagehide', () => this.draft.changedNow());
    document.addEventListener('visibilitychange', () => {
      if (document.visibilityState === 'hidden') this.draft.changedNow();
    });
  }

  /** Puts text where the user is typing (after what is there), and keeps it as the draft. */
  insert(text: string): void {
    const current = this.prompt.value;
    this.prompt.value = `${current}${current && !/\s$/.test(current) ? ' ' : ''}${text}`;
    this.prompt.focus();
    this.draft.changed();
  }

  /** The half-typed prompt this window had: only into an empty composer, never over typing. */
  restoreDraft(text: string): void {
    if (!this.prompt.value) this.prompt.value = text;
  }

  /** The host's answer to a prompt: a refused one goes back into an empty composer. */
  promptAnswered(requestId: string, problem: string | undefined): void {
    const sent = this.sentPrompts.get(requestId);
    const text = sent?.text;
    if (problem !== undefined && sent) this.images.restore(sent.images);
    this.sentPrompts.delete(requestId);
    // Not started (a setup problem, Stop during the setup): nothing is starting any more.
    if (problem !== undefined && this.starting) {
      this.starting = false;
      this.showBusy();
    }
    if (problem !== undefined && text !== undefined && !this.prompt.value) {
      this.prompt.value = text;
      this.restoredPrompt = text;
      this.draft.changed();
    }
  }

  /** A prompt reached the conversation: a copy of it put back after a refusal is cleared. */
  promptSent(text: string): void {
    if (this.restoredPrompt === text && this.prompt.value.trim() === text) this.prompt.value = '';
    this.restoredPrompt = undefined;
  }

  /** While the agent works, Enter queues the message; "Send now" interrupts instead. */
  setRunning(running: boolean): void {
    this.running = running;
    this.starting = false;
    this.showBusy();
  }

  /** Busy from the moment a prompt is sent, not only once its run has begun (see `starting`). */
  private showBusy(): void {
    const busy = this.running || this.starting;
    this.stopButton.hidden = !busy;
    this.sendNowButton.hidden = !busy;
    this.sendButton.textContent = busy ? 'Queue' : 'Send';
    this.sendButton.title = busy ? 'Send when the agent finishes (Enter)' : 'Send (Enter)';
    this.prompt.setAttribute('placeholder', busy ? QUEUE_PLACEHOLDER : SEND_PLACEHOLDER);
  }

  /** The model and preset the next prompt uses, on the picker chips. */
  showStatus(model: string, preset: string): void {
    showChip(this.modelButton, model, 'Choose the provider and model');
    showChip(this.presetButton, preset, 'Choose the preset for new conversations');
  }

  private submit(sendNow = false): void {
    // Images still being read go with the prompt: it waits for them (a moment).
    const reading = this.images.ready();
    if (reading) void reading.then(() => this.submitNow(sendNow));
    else this.submitNow(sendNow);
  }

  private submitNow(sendNow: boolean): void {
    const text = this.prompt.value.trim();
    if (!text) {
      if (this.images.count > 0) this.images.say(['Add a few words about the image, then send.']);
      return;
    }
    // `/btw …`: a side question, answered apart; the host refuses an empty or too long one, saying why.
    if (/^\/btw(\s|$)/i.test(text)) {
      this.post({ type: 'side_question_ask', text: text.slice(4, 4 + SIDE_QUESTION_SENT_CHARS) });
      this.prompt.value = '';
      this.draft.changedNow();
      return;
    }
    const requestId = `r${++this.requestCounter}`;
    const images = this.images.take();
    this.post({
      type: 'prompt_submit',
      requestId,
      text,
      ...(sendNow ? { sendNow: true as const } : {}),
      ...(images.length ? { images: images.map((attachment) => attachment.image) } : {}),
    });
    this.sentPrompts.set(requestId, { text, images });
    if (!this.running && !this.starting) {
      this.starting = true;
      this.showBusy();
    }
    this.prompt.value = '';
    this.draft.changedNow();
  }
}

/** A picker chip shows its value, cut with an ellipsis when long; its tooltip has it whole. */
function showChip(button: HTMLElement, value: string, purpose: string): void {
  button.querySelector('.chip-label')!.textContent = value;
  button.title = `${value} — ${purpose}`;
}
