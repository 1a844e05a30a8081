/**
 * Side answers (`/btw`): each in a block of its own above the composer, apart from the
 * transcript — the question, the answer as it streams (plain text), a note (tool calls ignored,
 * a refusal), what it cost, and Stop while it is answered or × once it is done. Nothing here
 * goes into the conversation; a new chat clears them.
 */
import type { HostToWebview } from '../../src/protocol/messages';

type SideAnswerMessage = Extract<HostToWebview, { type: 'side_answer' }>;

const STATUS_LABELS: Record<SideAnswerMessage['status'], string> = {
  waiting: 'waiting for another side answer to finish…',
  answering: 'answering…',
  answered: '',
  refused: 'not asked',
  failed: 'failed',
  stopped: 'stopped',
};

export class SideAnswersView {
  private readonly blocks = new Map<string, HTMLElement>();

  constructor(
    private readonly root: HTMLElement,
    private readonly stop: (id: string) => void,
  ) {
    root.hidden = true;
  }

  show(answer: SideAnswerMessage): void {
    let block = this.blocks.get(answer.id);
    if (!block) {
      block = document.createElement('section');
      block.className = 'side-answer';
      block.setAttribute('aria-label', 'Side answer (not part of the conversation)');
      this.blocks.set(answer.id, block);
      this.root.append(block);
    }
    const busy = answer.status === 'waiting' || answer.status === 'answering';
    block.classList.toggle('side-answer-problem', answer.status === 'refused' || answer.status === 'failed');
    const header = document.createElement('div');
    header.className = 'side-answer-header';
    const label = document.createElement('span');
    label.className = 'side-answer-question';
    label.textContent = `btw: ${answer.question}`;
    label.title = answer.question;
    const status = document.createElement('span');
    status.className = 'side-answer-status';
    status.textContent = STATUS_LABELS[answer.status];
    const button = document.createElement('button');
    button.className = 'side-answer-button';
    button.textContent = busy ? 'Stop' : '×';
    button.title = busy ? 'Stop this side answer (the agent goes on)' : 'Dismiss';
    button.addEventListener('click', () => (busy ? this.stop(answer.id) : this.dismiss(answer.id)));
    header.append(label, status, button);
    const text = document.createElement('div');
    text.className = 'side-answer-text';
    text.textContent = answer.text;
    const parts: HTMLElement[] = [header, text];
    if (answer.note) {
      const note = document.createElement('div');
      note.className = 'side-answer-note';
      note.textContent = answer.note;
      parts.push(note);
    }
    const footer = document.createElement('div');
    footer.className = 'side-answer-footer';
    const usage = answer.usage;
    footer.textContent = `Side answer — not kept in the conversation${
      usage
        ? ` · ${usage.inputTokens.toLocaleString('en-US')} in, ${usage.outputTokens.toLocaleString('en-US')} out${usage.costUsd ? `, $${usage.costUsd.toFixed(4)}` : ''}`
        : ''
    }`;
    parts.push(footer);
    block.replaceChildren(...parts);
    this.root.hidden = false;
  }

  dismiss(id: string): void {
    this.blocks.get(id)?.remove();
    this.blocks.delete(id);
    this.root.hidden = this.blocks.size === 0;
  }

  reset(): void {
    for (const id of [...this.blocks.keys()]) this.dismiss(id);
  }
}
