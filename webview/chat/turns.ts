/**
 * One turn of the chat transcript: its data, the element that shows it, and a guess at its
 * height before it is shown. The transcript (chat-view.ts) decides which turns are in the DOM;
 * this file only knows how one turn looks.
 */
import { imageStrip, PREVIEW_PX, type ImageRef } from './image-previews';
import type { AgentEvent, ToolOutcome } from '../../src/protocol/events';
import type { HostToWebview } from '../../src/protocol/messages';
import { estimateTextHeight, type TextMetrics } from '../shared/list-layout';
import { renderMarkdownFragment } from '../shared/render-markdown';
import type { TeamLine } from './team-approval-line';
import { renderCutMark, renderToolLine, retryButtonState, toolOutcomeText } from './turn-parts';
import { reviewText, type FileReviewStatus } from './review-status';
import { forkButton, renderUserMessage, type MessageActions } from './message-actions';
import { linkButton as link } from '../shared/link-button';

type Notice = Extract<HostToWebview, { type: 'chat_notice' }>;
export type NoticeAction = Notice['actions'][number];
export type ChangedFile = Extract<AgentEvent, { type: 'files_changed' }>['files'][number];

export type TurnBody =
  /** What the user sent, with the labels of the context it attached (@file:…, @problems…). */
  | {
      kind: 'user';
      text: string;
      attachments?: string[];
      images?: ImageRef[];
      at?: MessageAt;
      editing?: { draft: string };
    }
  /** Images a tool returned (read_file of a picture), under its line. */
  | { kind: 'images'; images: ImageRef[] }
  /** A status line or a cost warning (plain text). */
  | { kind: 'status' | 'warning'; text: string }
  /** A tool call: the tool, what it works on ("src/a.ts", a command), and what became of it. */
  | { kind: 'tool'; name: string; target: string; outcome: ToolOutcome; team?: TeamLine }
  /** Markdown from the model (an answer, a presented plan); `cut` when its run ended it early. */
  | { kind: 'assistant'; text: string; cut?: { label: string; reason: string }; at?: MessageAt }
  /** A failed run: what failed, its fixes, and (the lead's) Retry tied to this error. */
  | { kind: 'error'; text: string; actions: NoticeAction[]; retry?: RetryState }
  /** The files a turn changed, with "Revert This Turn" until it has been reverted, and their review. */
  | {
      kind: 'files';
      turn: number;
      files: ChangedFile[];
      revertable: boolean;
      notes: string[];
      review: FileReviewStatus[];
    }
  /** A revert of a turn whose files block is not in this transcript. */
  | { kind: 'reverted'; notes: string[] };

/** Which message a turn shows: the event that showed it (the host finds the message from it). */
export interface MessageAt {
  conversationId: string;
  seq: number;
}

/**
 * An error's Retry: usable, clicked (waiting for the prompt to go out), used (its prompt was sent
 * again) or out of date (a newer prompt was sent since).
 */
export interface RetryState {
  conversationId: string;
  errorSeq: number;
  state: 'available' | 'sent' | 'retried' | 'stale';
}

/** A turn and how often it changed (a shown element is re-rendered when its version is old). */
export type Turn = TurnBody & { version: number };

export interface TurnActions {
  onAction(action: NoticeAction['action'], choice?: number): void;
  /** The Retry of an error turn (not the other actions): `turn` is the error turn's data. */
  onRetry(turn: Extract<Turn, { kind: 'error' }>): void;
  onRevertTurn(turn: number): void;
  /** Opens a diff of a file as the turn found it and as it is now. */
  onOpenDiff(turn: number, path: string): void;
  /** The review of the turn's edits: open a file at its hunks, keep or undo a file's (or the turn's) hunks. */
  onReview(action: 'open' | 'keep' | 'undo', turn: number, path?: string): void;
  /** "Fork from here", and "Edit and resend" (opening and closing the inline editor, sending it). */
  onMessage: MessageActions;
}

/** Buttons for actions; the first is the primary one. */
export function actionButtons(actions: NoticeAction[], onAction: TurnActions['onAction']): HTMLElement[] {
  return actions.map(({ action, label, choice }, position) => {
    const button = document.createElement('vscode-button');
    if (position > 0) button.setAttribute('secondary', '');
    button.textContent = label;
    button.addEventListener('click', () => onAction(action, choice));
    return button;
  });
}

/** An error's buttons: its Retry is this error's own (and says when it can no longer be used). */
function errorButtons(turn: Extract<Turn, { kind: 'error' }>, actions: TurnActions): HTMLElement[] {
  return actionButtons(turn.actions, (action, choice) =>
    action === 'retry' && turn.retry ? actions.onRetry(turn) : actions.onAction(action, choice),
  ).map((button, position) => {
    if (turn.actions[position]?.action !== 'retry' || !turn.retry) return button;
    const state = retryButtonState(turn.retry.state);
    button.textContent = state.label;
    if (state.disabled) button.setAttribute('disabled', '');
    if (state.title) button.title = state.title;
    return button;
  });
}

/** The element of an empty turn of a kind (also the container a streaming answer renders into). */
export function turnElement(kind: string): HTMLElement {
  const element = document.createElement('div');
  element.className = `turn turn-${kind === 'reverted' ? 'status' : kind}`;
  return element;
}

export function renderTurn(turn: Turn, actions: TurnActions): HTMLElement {
  const element = turnElement(turn.kind);
  switch (turn.kind) {
    case 'user':
      renderUserMessage(element, turn, actions.onMessage);
      if (turn.images?.length && !turn.editing)
        element.insertBefore(imageStrip(turn.images), element.children[1] ?? null);
      break;
    case 'images':
      element.append(imageStrip(turn.images));
      break;
    case 'status':
      element.textContent = turn.text;
      break;
    case 'warning':
      element.textContent = turn.text;
      element.setAttribute('role', 'status');
      break;
    case 'tool':
      renderToolLine(element, turn);
      break;
    case 'assistant':
      element.append(renderMarkdownFragment(turn.text));
      if (turn.cut) element.append(renderCutMark(turn.cut));
      if (turn.at) element.append(forkButton(turn.at, actions.onMessage));
      break;
    case 'error': {
      const text = document.createElement('p');
      text.textContent = turn.text;
      element.append(text, ...errorButtons(turn, actions));
      element.setAttribute('role', 'alert');
      break;
    }
    case 'files': {
      const title = document.createElement('p');
      title.textContent = `Changed ${turn.files.length} file${turn.files.length === 1 ? '' : 's'}:`;
      const list = document.createElement('ul');
      for (const file of turn.files) {
        const item = document.createElement('li');
        item.textContent = `${file.path}${file.change === 'created' ? ' (new)' : ''} `;
        const review = turn.review.find((status) => status.path === file.path);
        if (turn.revertable)
          item.append(link('Open Diff', 'open-diff', () => actions.onOpenDiff(turn.turn, file.path)));
        if (review) item.append(reviewLinks(turn.turn, review, actions));
        list.append(item);
      }
      element.append(title, list);
      if (turn.review.some((status) => status.pending > 0)) {
        const keepAll = document.createElement('vscode-button');
        keepAll.setAttribute('secondary', '');
        keepAll.className = 'keep-all';
        keepAll.textContent = 'Keep All';
        keepAll.title = 'Keep every change of this turn still to review';
        keepAll.addEventListener('click', () => actions.onReview('keep', turn.turn));
        element.append(keepAll);
      }
      if (turn.revertable) {
        const revert = document.createElement('vscode-button');
        revert.setAttribute('secondary', '');
        revert.textContent = 'Revert This Turn';
        revert.addEventListener('click', () => actions.onRevertTurn(turn.turn));
        element.append(revert);
      }
      element.append(...turn.notes.map(revertedNote));
      break;
    }
    case 'reverted':
      element.append(...turn.notes.map(revertedNote));
      break;
  }
  return element;
}

/** A file's review, on a line under it: where it stands, and Review (opens it at its hunks) / Keep / Undo while hunks wait. */
function reviewLinks(turn: number, review: FileReviewStatus, actions: TurnActions): HTMLElement {
  const row = document.createElement('div');
  row.className = 'file-review';
  const state = document.createElement('span');
  state.className = 'review-state';
  state.textContent = reviewText(review);
  if (review.pending > 0)
    row.append(
      link('Review', 'open-diff review-open', () => actions.onReview('open', turn, review.path)),
      link('Keep', 'open-diff review-keep', () => actions.onReview('keep', turn, review.path)),
      link('Undo', 'open-diff review-undo', () => actions.onReview('undo', turn, review.path)),
    );
  row.append(state);
  return row;
}

function revertedNote(text: string): HTMLElement {
  const note = document.createElement('p');
  note.className = 'turn-files-reverted';
  note.textContent = text;
  return note;
}

/** A guess at a turn's height (pixels) before it has been shown, from its text and the width. */
export function estimateTurnHeight(turn: Turn, widthPx: number, metrics: TextMetrics): number {
  const buttonRow = 32;
  switch (turn.kind) {
    case 'user':
      return (
        estimateTextHeight(turn.text, widthPx - 18, metrics, 14) +
        (turn.attachments?.length ? metrics.lineHeight : 0) +
        (turn.images?.length ? PREVIEW_PX + 8 : 0) +
        (turn.at ? metrics.lineHeight : 0) +
        (turn.editing ? buttonRow * 3 : 0)
      );
    case 'assistant':
      // Blank lines stand for paragraph margins; the last paragraph keeps its bottom margin.
      return (
        estimateTextHeight(turn.text, widthPx, metrics, metrics.lineHeight) +
        (turn.cut ? estimateTextHeight(`${turn.cut.label} ${turn.cut.reason}`, widthPx - 11, metrics, 8) : 0)
      );
    case 'tool':
      // The call on one line (or more), its outcome on the next.
      return (
        estimateTextHeight(`${turn.name} ${turn.target}`, widthPx, metrics) +
        estimateTextHeight(toolOutcomeText(turn.outcome, turn.team), widthPx - 16, metrics)
      );
    case 'status':
      return estimateTextHeight(turn.text, widthPx, metrics);
    case 'images':
      return PREVIEW_PX + 8;
    case 'warning':
      return estimateTextHeight(turn.text, widthPx - 11, metrics, 8);
    case 'error':
      return estimateTextHeight(turn.text, widthPx - 11, metrics, buttonRow);
    case 'files':
      return (
        (turn.files.length + turn.review.length + 1 + turn.notes.length) * metrics.lineHeight +
        24 +
        (turn.revertable || turn.review.some((status) => status.pending > 0) ? buttonRow : 0)
      );
    case 'reverted':
      return turn.notes.length * metrics.lineHeight + 16;
  }
}
