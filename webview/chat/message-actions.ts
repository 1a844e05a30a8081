/**
 * The actions on a message of the transcript (SPEC 5b): "Fork from here" on a prompt or an answer,
 * and "Edit and resend" on a prompt, which turns the prompt into an inline editor (Send / Cancel;
 * Escape cancels). They show when the pointer or focus is on the message, and never while the agent
 * runs (the host refuses both then). Everything is text: a message is shown with textContent.
 */
import type { MessageAt } from './turns';
import { linkButton } from '../shared/link-button';

type UserTurn = { text: string; attachments?: string[]; at?: MessageAt; editing?: { draft: string } };

export interface MessageActions {
  fork(at: MessageAt): void;
  /** Opens (a draft) or closes (undefined) the inline editor of a prompt. */
  setEditing(turn: UserTurn, editing: { draft: string } | undefined): void;
  edit(at: MessageAt, text: string): void;
}

/** A prompt: its text, what it attached, and its actions; or its inline editor. */
export function renderUserMessage(element: HTMLElement, turn: UserTurn, actions: MessageActions): void {
  if (turn.editing && turn.at) return renderEditor(element, turn, turn.at, turn.editing, actions);
  const text = document.createElement('span');
  text.className = 'user-text';
  text.textContent = turn.text;
  element.append(text);
  if (turn.attachments?.length) {
    const attached = document.createElement('div');
    attached.className = 'turn-attachments';
    for (const label of turn.attachments) {
      const chip = document.createElement('span');
      chip.className = 'attachment';
      chip.textContent = label;
      attached.append(chip);
    }
    element.append(attached);
  }
  if (!turn.at) return;
  // Focusable, so a keyboard reaches the actions (they show while the message has focus).
  element.tabIndex = 0;
  const at = turn.at;
  const row = actionRow();
  row.append(
    actionLink('Fork from here', 'message-fork', 'A new conversation with what came before this prompt', () =>
      actions.fork(at),
    ),
    actionLink(
      'Edit and resend',
      'message-edit',
      'Edit this prompt and send it again (the later part is kept as a fork)',
      () => actions.setEditing(turn, { draft: turn.text }),
    ),
  );
  element.append(row);
}

/** "Fork from here" under an answer: a new conversation with this whole exchange. */
export function forkButton(at: MessageAt, actions: MessageActions): HTMLElement {
  const row = actionRow();
  row.append(
    actionLink(
      'Fork from here',
      'message-fork',
      'A new conversation with everything up to the end of this exchange',
      () => actions.fork(at),
    ),
  );
  return row;
}

function renderEditor(
  element: HTMLElement,
  turn: UserTurn,
  at: MessageAt,
  editing: { draft: string },
  actions: MessageActions,
): void {
  element.classList.add('turn-editing');
  const editor = document.createElement('textarea');
  editor.className = 'message-editor';
  editor.setAttribute('aria-label', 'Edit the prompt');
  editor.value = editing.draft;
  editor.rows = Math.min(8, Math.max(2, editing.draft.split('\n').length));
  const send = () => {
    const text = editor.value.trim();
    if (!text) return;
    actions.setEditing(turn, undefined);
    actions.edit(at, text);
  };
  const cancel = () => actions.setEditing(turn, undefined);
  editor.addEventListener('input', () => (editing.draft = editor.value));
  editor.addEventListener('keydown', (event) => {
    if (event.key === 'Escape') {
      event.preventDefault();
      cancel();
    } else if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send();
    }
  });
  const buttons = document.createElement('div');
  buttons.className = 'message-editor-buttons';
  const sendButton = document.createElement('vscode-button');
  sendButton.className = 'message-editor-send';
  sendButton.textContent = 'Send';
  sendButton.addEventListener('click', send);
  const cancelButton = document.createElement('vscode-button');
  cancelButton.className = 'message-editor-cancel';
  cancelButton.setAttribute('secondary', '');
  cancelButton.textContent = 'Cancel';
  cancelButton.addEventListener('click', cancel);
  buttons.append(sendButton, cancelButton);
  element.append(editor, buttons);
  // Opened by a click: typing goes into it at once (after the list has put it in the page).
  requestAnimationFrame(() => {
    if (!editor.isConnected || document.activeElement === editor) return;
    editor.focus();
    editor.setSelectionRange(editor.value.length, editor.value.length);
  });
}

function actionRow(): HTMLElement {
  const row = document.createElement('div');
  row.className = 'message-actions';
  return row;
}

function actionLink(text: string, className: string, title: string, onClick: () => void): HTMLElement {
  const anchor = linkButton('', `message-action ${className}`, onClick);
  // The label is drawn by chat.css from data-label, so it is never part of the message's text
  // (copying a message, or reading its innerText, gets the message alone); aria-label names it.
  anchor.dataset.label = text;
  anchor.setAttribute('aria-label', text);
  anchor.title = title;
  return anchor;
}
