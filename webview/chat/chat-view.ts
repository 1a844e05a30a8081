/**
 * The chat's DOM: a transcript of turns, a notice strip, an activity pill and a composer.
 * Streaming text is re-rendered at most once per animation frame.
 */
import type { AgentEvent } from '../../src/core/agent/events';
import type { HostToWebview } from '../../src/protocol/messages';
import { renderMarkdown } from '../shared/render-markdown';

type Notice = Extract<HostToWebview, { type: 'chat_notice' }>;
type ErrorKind = Extract<AgentEvent, { type: 'error' }>['kind'];

/** Each kind of failure comes with the fix a user would reach for. */
function fixesFor(kind: ErrorKind): Notice['actions'] {
  switch (kind) {
    case 'authentication':
      return [
        { action: 'set_api_key', label: 'Set API Key' },
        { action: 'retry', label: 'Retry' },
      ];
    case 'connection':
    case 'bad_request':
    case 'configuration':
      return [
        { action: 'open_settings', label: 'Open Settings' },
        { action: 'retry', label: 'Retry' },
      ];
    default:
      return [{ action: 'retry', label: 'Retry' }];
  }
}

export interface ChatViewCallbacks {
  onAction(action: Notice['actions'][number]['action']): void;
  onRevertTurn(turn: number): void;
}

export class ChatView {
  private current: { element: HTMLElement; text: string; dirty: boolean } | undefined;
  private frame: number | undefined;
  private running = false;
  /** turn → its "files changed" block. */
  private readonly turnFiles = new Map<number, HTMLElement>();

  constructor(
    private readonly transcript: HTMLElement,
    private readonly noticeArea: HTMLElement,
    private readonly activity: HTMLElement,
    private readonly callbacks: ChatViewCallbacks,
    private readonly onRunningChange: (running: boolean) => void,
  ) {}

  get isRunning(): boolean {
    return this.running;
  }

  reset(): void {
    this.transcript.replaceChildren();
    this.turnFiles.clear();
    this.clearNotice();
    this.current = undefined;
    this.setRunning(false);
  }

  apply(events: AgentEvent[]): void {
    for (const event of events) this.applyOne(event);
    this.scheduleRender();
  }

  showNotice(notice: Notice): void {
    const box = document.createElement('div');
    box.className = `notice notice-${notice.level}`;
    box.setAttribute('role', 'alert');
    const text = document.createElement('p');
    text.textContent = notice.text;
    box.append(text);
    box.append(...this.actionButtons(notice.actions));
    this.noticeArea.replaceChildren(box);
  }

  private actionButtons(actions: Notice['actions']): HTMLElement[] {
    return actions.map(({ action, label }, position) => {
      const button = document.createElement('vscode-button');
      if (position > 0) button.setAttribute('secondary', '');
      button.textContent = label;
      button.addEventListener('click', () => this.callbacks.onAction(action));
      return button;
    });
  }

  clearNotice(): void {
    this.noticeArea.replaceChildren();
  }

  private applyOne(event: AgentEvent): void {
    switch (event.type) {
      case 'user_message':
        this.clearNotice();
        this.finishCurrent();
        this.addTurn('user').textContent = event.text;
        this.setRunning(true);
        break;
      case 'text_delta':
        if (!this.current) this.current = { element: this.addTurn('assistant'), text: '', dirty: false };
        this.current.text += event.text;
        this.current.dirty = true;
        break;
      case 'tool_call': {
        // Text before and after a tool call are separate paragraphs of the answer.
        this.finishCurrent();
        const input =
          typeof event.input === 'object' && event.input !== null
            ? (event.input as { path?: unknown; command?: unknown; plan?: unknown })
            : {};
        const target = input.command ?? input.path;
        this.addTurn('tool').textContent = `${event.toolName}${typeof target === 'string' ? ` ${target}` : ''}`;
        // A presented plan is shown in full, for the user to read before approving it.
        if (event.toolName === 'present_plan' && typeof input.plan === 'string')
          this.addTurn('assistant').innerHTML = renderMarkdown(input.plan);
        this.setActivity(`Using ${event.toolName}…`);
        break;
      }
      case 'tool_approval_request':
        this.setActivity('Waiting for your approval');
        break;
      case 'tool_result':
        this.setActivity('Thinking…');
        break;
      case 'compact':
        if (event.kind !== 'micro') {
          this.finishCurrent();
          this.addTurn('status').textContent =
            `Conversation compacted (${event.tokensBefore.toLocaleString()} → ${event.tokensAfter.toLocaleString()} tokens).`;
        }
        break;
      case 'background_result':
        this.finishCurrent();
        this.addTurn('status').textContent =
          `Background job ${event.jobId} (${event.command}) ${event.exitCode === null ? 'ended' : `exited with code ${event.exitCode}`}.`;
        break;
      case 'plan_mode':
        this.finishCurrent();
        this.addTurn('status').textContent = event.active
          ? 'Plan mode is on: the agent reads and plans, and changes nothing until you approve its plan.'
          : event.reason === 'plan_approved'
            ? 'Plan approved: plan mode is off.'
            : 'Plan mode is off.';
        break;
      case 'files_changed':
        this.finishCurrent();
        this.showTurnFiles(event);
        break;
      case 'turn_reverted': {
        const block = this.turnFiles.get(event.turn);
        block?.querySelector('vscode-button')?.remove();
        const note = document.createElement('p');
        note.className = 'turn-files-reverted';
        const failed = event.failed.map((item) => `${item.path} (${item.reason})`);
        note.textContent =
          `Reverted: ${[...event.restored, ...event.deleted.map((file) => `${file} deleted`)].join(', ') || 'nothing'}` +
          (failed.length ? `. Not restored: ${failed.join(', ')}` : '.');
        (block ?? this.addTurn('status')).append(note);
        break;
      }
      case 'interrupted':
        this.finishCurrent();
        this.addTurn('status').textContent = event.reason;
        this.setRunning(false);
        break;
      case 'error': {
        this.finishCurrent();
        const element = this.addTurn('error');
        const text = document.createElement('p');
        text.textContent = event.message;
        element.append(text, ...this.actionButtons(fixesFor(event.kind)));
        element.setAttribute('role', 'alert');
        this.setRunning(false);
        break;
      }
      case 'done':
        this.finishCurrent();
        this.setRunning(false);
        break;
    }
  }

  /** The files a turn changed, with "Revert This Turn"; a redirected run updates the same block. */
  private showTurnFiles(event: Extract<AgentEvent, { type: 'files_changed' }>): void {
    let block = this.turnFiles.get(event.turn);
    if (!block) {
      block = this.addTurn('files');
      this.turnFiles.set(event.turn, block);
    }
    const title = document.createElement('p');
    title.textContent = `Changed ${event.files.length} file${event.files.length === 1 ? '' : 's'}:`;
    const list = document.createElement('ul');
    for (const file of event.files) {
      const item = document.createElement('li');
      item.textContent = `${file.path}${file.change === 'created' ? ' (new)' : ''}`;
      list.append(item);
    }
    const revert = document.createElement('vscode-button');
    revert.setAttribute('secondary', '');
    revert.textContent = 'Revert This Turn';
    revert.addEventListener('click', () => this.callbacks.onRevertTurn(event.turn));
    block.replaceChildren(title, list, revert);
  }

  private addTurn(kind: 'user' | 'assistant' | 'status' | 'error' | 'tool' | 'files'): HTMLElement {
    const element = document.createElement('div');
    element.className = `turn turn-${kind}`;
    this.transcript.append(element);
    return element;
  }

  private finishCurrent(): void {
    if (this.current) this.renderCurrent();
    this.current = undefined;
  }

  private setActivity(text: string): void {
    if (this.running) this.activity.textContent = text;
  }

  private setRunning(running: boolean): void {
    this.running = running;
    this.activity.hidden = !running;
    this.activity.textContent = running ? 'Thinking…' : '';
    this.onRunningChange(running);
  }

  private scheduleRender(): void {
    if (this.frame !== undefined) return;
    this.frame = requestAnimationFrame(() => {
      this.frame = undefined;
      this.renderCurrent();
      this.transcript.lastElementChild?.scrollIntoView({ block: 'end' });
    });
  }

  private renderCurrent(): void {
    if (!this.current?.dirty) return;
    this.current.element.innerHTML = renderMarkdown(this.current.text);
    this.current.dirty = false;
  }
}
