/**
 * The queued messages under the composer: each one in the order it will be sent, with Edit,
 * Send now and Remove; a note when the queue waits for the user (the run was stopped or
 * failed, or the window reloaded) with Resume. The host owns the queue: this view shows what
 * it says and asks it for changes. An edit in progress is kept across updates (the host does
 * not send a message while it is being edited), so what the user is typing is never thrown away.
 */
import { imageStrip } from './image-previews';
import type { HostToWebview } from '../../src/protocol/messages';

type QueueStateMessage = Extract<HostToWebview, { type: 'queue_state' }>;

export interface QueueViewActions {
  edit(id: string, text: string): void;
  /** Starts (id) or ends (undefined) editing a message. */
  editing(id: string | undefined): void;
  remove(id: string): void;
  sendNow(id: string): void;
  resume(): void;
  /** An edit whose message is gone: its text goes back to the composer. */
  giveBack(text: string): void;
}

const HELD_NOTES: Record<NonNullable<QueueStateMessage['held']>['kind'], string> = {
  stopped: 'Waiting: you stopped the agent.',
  failed: 'Waiting: the last run did not finish.',
  reloaded: 'Waiting: queued before the window reloaded.',
};

export class QueueView {
  /** The message being edited here, and the editor holding the user's text. */
  private edited: { id: string; editor: HTMLElement & { value: string } } | undefined;

  private readonly header = document.createElement('div');
  private readonly list = document.createElement('ol');

  constructor(
    private readonly root: HTMLElement,
    private readonly actions: QueueViewActions,
  ) {
    this.header.className = 'queue-header';
    this.list.className = 'queue-items';
    root.replaceChildren(this.header, this.list);
    root.hidden = true;
  }

  show(state: QueueStateMessage): void {
    const edited = this.edited;
    if (edited && !state.items.some((item) => item.id === edited.id)) {
      // Sent or removed elsewhere while being edited: the typed text is not lost.
      this.edited = undefined;
      this.actions.giveBack(edited.editor.value);
    }
    this.root.hidden = state.items.length === 0;
    this.root.classList.toggle('queue-held', Boolean(state.held));
    const note = document.createElement('span');
    note.textContent = state.held
      ? `${HELD_NOTES[state.held.kind]}${state.held.reason ? ` ${state.held.reason}` : ''}`
      : `Queued: sent when the agent finishes (${state.items.length}).`;
    this.header.replaceChildren(note);
    if (state.held)
      this.header.append(button('Resume', 'Send the queued messages, in order', () => this.actions.resume()));
    // The message being edited keeps its element (and the focus and caret in it); the others are drawn anew.
    const editing = this.edited && this.list.querySelector<HTMLElement>(`li[data-id="${CSS.escape(this.edited.id)}"]`);
    const wanted = state.items.map((item) =>
      item.id === this.edited?.id && editing ? editing : this.renderItem(item),
    );
    for (const child of [...this.list.children]) if (child !== editing) child.remove();
    wanted.forEach((element, index) => {
      if (this.list.children[index] !== element) this.list.insertBefore(element, this.list.children[index] ?? null);
    });
  }

  private renderItem(item: QueueStateMessage['items'][number]): HTMLElement {
    const element = document.createElement('li');
    element.className = 'queued';
    element.dataset.id = item.id;
    const text = document.createElement('div');
    text.className = 'queued-text';
    text.textContent = item.text;
    text.title = item.text.length > 2_000 ? `${item.text.slice(0, 2_000)}…` : item.text;
    const buttons = document.createElement('div');
    buttons.className = 'queued-actions';
    buttons.append(
      button('Edit', 'Edit this message before it is sent', () => this.startEditing(item.id, item.text)),
      button('Send now', 'Stop the agent and send this message instead', () => this.actions.sendNow(item.id)),
      button('Remove', 'Remove this message from the queue', () => this.actions.remove(item.id)),
    );
    element.append(
      text,
      ...(item.images?.length ? [imageStrip(item.images, 'image-strip queued-images')] : []),
      buttons,
    );
    return element;
  }

  private startEditing(id: string, text: string): void {
    const editor = document.createElement('vscode-textarea') as HTMLElement & { value: string };
    editor.className = 'queued-editor';
    editor.setAttribute('rows', '3');
    editor.setAttribute('resize', 'vertical');
    editor.setAttribute('aria-label', 'Edit the queued message');
    editor.value = text;
    editor.addEventListener('keydown', (event: KeyboardEvent) => {
      if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
        event.preventDefault();
        this.save();
      } else if (event.key === 'Escape') {
        event.preventDefault();
        this.cancel();
      }
    });
    this.edited = { id, editor };
    this.actions.editing(id);
    const element = this.root.querySelector<HTMLElement>(`li[data-id="${CSS.escape(id)}"]`);
    element?.replaceChildren(editor, this.editButtons(id));
    editor.focus();
  }

  private editButtons(id: string): HTMLElement {
    const buttons = document.createElement('div');
    buttons.className = 'queued-actions';
    buttons.append(
      button('Save', 'Save the edited message (Enter)', () => this.save(), true),
      button('Cancel', 'Keep the message as it was (Escape)', () => this.cancel()),
      button('Remove', 'Remove this message from the queue', () => {
        this.edited = undefined;
        this.actions.remove(id);
      }),
    );
    return buttons;
  }

  private save(): void {
    const edited = this.edited;
    if (!edited) return;
    const text = edited.editor.value.trim();
    this.edited = undefined;
    if (text) this.actions.edit(edited.id, text);
    else this.actions.remove(edited.id);
  }

  private cancel(): void {
    if (!this.edited) return;
    this.edited = undefined;
    this.actions.editing(undefined);
  }
}

function button(label: string, title: string, onClick: () => void, primary = false): HTMLElement {
  const element = document.createElement('vscode-button');
  if (!primary) element.setAttribute('secondary', '');
  element.textContent = label;
  element.title = title;
  element.addEventListener('click', onClick);
  return element;
}
