/**
 * The chat's DOM: a transcript of turns, a notice strip, an activity pill and a composer.
 * Events update the turns (plain data, turns.ts); the transcript is a windowed list that keeps
 * only the turns near the viewport in the DOM and renders at most once per animation frame,
 * so a conversation of thousands of messages opens fast with few nodes. A streaming answer
 * re-renders only its last, still-open markdown blocks.
 */
import { eventImages } from './image-previews';
import { describeCacheBreak, describeCostWarning, modelLabel, type AgentEvent } from '../../src/protocol/events';
import type { HostToWebview } from '../../src/protocol/messages';
import type { TextMetrics } from '../shared/list-layout';
import { StreamingMarkdown } from '../shared/streaming-markdown';
import { WindowedList } from '../shared/windowed-list';
import { fixesFor } from './error-fixes';
import { RunTracker } from './run-tracker';
import { forkButton } from './message-actions';
import { ReviewStatus } from './review-status';
import {
  actionButtons,
  estimateTurnHeight,
  renderTurn,
  turnElement,
  type MessageAt,
  type Turn,
  type TurnBody,
  type TurnActions,
} from './turns';

type Notice = Extract<HostToWebview, { type: 'chat_notice' }>;
export type ChatViewCallbacks = Omit<TurnActions, 'onRetry' | 'onMessage'> & {
  /** An error's Retry: the error it belongs to (the host sends that run's prompt, or says why not). */
  onRetry(target: { conversationId: string; errorSeq: number }): void;
  /** "Fork from here" on a prompt or an answer, and "Edit and resend" on a prompt (the event that showed it). */
  onFork(at: MessageAt): void;
  onEdit(at: MessageAt, text: string): void;
};

export class ChatView {
  private readonly turns: Turn[] = [];
  private readonly list: WindowedList;
  /** The answer streaming now, and the renderer that keeps its finished blocks. */
  private live: { index: number; turn: Extract<Turn, { kind: 'assistant' }>; stream: StreamingMarkdown } | undefined;
  /** The version of its turn each rendered element shows. */
  private readonly shown = new WeakMap<HTMLElement, number>();
  /** Turns changed by the events being applied, refreshed together at the end. */
  private readonly changed = new Set<number>();
  private running = false;
  /** The activity pill's text while running ('' when idle). */
  private activityText = '';
  /** What the pill and the stop button show, to touch the DOM only when that changes. */
  private shownActivity: { running: boolean; text: string } | undefined;
  /** The model call not answered yet: the pill counts its seconds (a CPU model can read its context for long). */
  private waiting: { timer: ReturnType<typeof setInterval> } | undefined;
  /** turn number → index of its "files changed" block. */
  private readonly turnFiles = new Map<number, number>();
  /** Where the review of each turn's edits stands (shown in its files block). */
  private readonly review = new ReviewStatus();
  private metrics: TextMetrics | undefined;
  /** How runs ended: tool outcomes, cut-off answers, which Retry is still usable. */
  private readonly runs: RunTracker;
  private readonly turnActions: TurnActions;

  constructor(
    private readonly transcript: HTMLElement,
    private readonly noticeArea: HTMLElement,
    private readonly activity: HTMLElement,
    private readonly callbacks: ChatViewCallbacks,
    private readonly onRunningChange: (running: boolean) => void,
  ) {
    const turns = this.turns;
    this.runs = new RunTracker(turns, (index) => this.touch(index));
    this.turnActions = {
      ...callbacks,
      onRetry: (turn) => {
        const target = this.runs.retryClicked(this.turns.indexOf(turn));
        if (!target) return;
        callbacks.onRetry(target);
        this.apply([]);
      },
      onMessage: {
        fork: (at) => callbacks.onFork(at),
        edit: (at, text) => callbacks.onEdit(at, text),
        setEditing: (turn, editing) => {
          const index = this.turns.indexOf(turn as Turn);
          if (index < 0 || turn.editing === editing) return;
          if (editing) turn.editing = editing;
          else delete turn.editing;
          this.touch(index);
          this.apply([]);
        },
      },
    };
    this.list = new WindowedList(transcript, {
      get length() {
        return turns.length;
      },
      create: (index) => this.element(index),
      update: (index, element) => this.element(index, element),
      estimate: (index, width) => estimateTurnHeight(turns[index]!, width, this.textMetrics()),
    });
  }

  get isRunning(): boolean {
    return this.running;
  }

  reset(): void {
    this.turns.length = 0;
    this.turnFiles.clear();
    this.review.reset();
    this.changed.clear();
    this.runs.reset();
    this.live = undefined;
    this.list.reset();
    this.clearNotice();
    this.setRunning(false);
    this.showActivity();
  }

  apply(events: AgentEvent[]): void {
    const known = this.turns.length;
    for (const event of events) this.applyOne(event);
    // Turns added by this batch are laid out from their content as it is now; others changed.
    for (const index of this.changed) if (index < known) this.list.refresh(index);
    this.changed.clear();
    this.list.schedule();
    // Once per batch: a replayed conversation starts and stops thousands of runs.
    this.showActivity();
  }

  showNotice(notice: Notice): void {
    const box = document.createElement('div');
    box.className = `notice notice-${notice.level}`;
    box.setAttribute('role', 'alert');
    // Paragraphs of the notice (a blank line between them), each as text.
    for (const paragraph of notice.text.split(/\n\s*\n/)) {
      const text = document.createElement('p');
      text.textContent = paragraph;
      box.append(text);
    }
    box.append(...actionButtons(notice.actions, (action, choice) => this.callbacks.onAction(action, choice)));
    this.noticeArea.replaceChildren(box);
  }

  clearNotice(): void {
    this.noticeArea.replaceChildren();
  }

  private applyOne(event: AgentEvent): void {
    for (const turn of this.review.apply(event)) this.showReview(turn);
    switch (event.type) {
      case 'user_message':
        this.clearNotice();
        this.finishCurrent();
        // A retried prompt is shown once: above the error whose Retry sent it again.
        if (this.runs.prompt(event))
          this.add({
            kind: 'user',
            text: event.text,
            attachments: event.attachments,
            ...(event.images?.length ? { images: event.images } : {}),
            at: messageAt(event),
          });
        this.setRunning(true);
        // Sending a prompt brings the reader back to the end of the conversation.
        this.list.followEnd();
        break;
      case 'text_delta': {
        if (!this.live) {
          // A sub-agent's text is not an answer of this conversation's own: no fork from it.
          const at = event.agentId === 'lead' ? messageAt(event) : undefined;
          const turn = { kind: 'assistant' as const, text: '', version: 0, ...(at ? { at } : {}) };
          this.turns.push(turn);
          this.live = { index: this.turns.length - 1, turn, stream: new StreamingMarkdown(turnElement('assistant')) };
          this.runs.answer(this.live.index);
        }
        this.live.turn.text += event.text;
        this.touch(this.live.index);
        break;
      }
      case 'tool_call': {
        // A sub-agent's or teammate's tool calls are the developer panel's; here the sub-agent is one line.
        if (event.agentId !== 'lead') break;
        // Text before and after a tool call are separate paragraphs of the answer.
        this.finishCurrent();
        // The file or command it acts on (a sub-agent's task by its description), and its outcome.
        this.runs.toolCall(event, (body) => this.add(body));
        // A presented plan is shown in full, for the user to read before approving it.
        const plan = (event.input as { plan?: unknown } | null)?.plan;
        if (event.toolName === 'present_plan' && typeof plan === 'string') this.add({ kind: 'assistant', text: plan });
        this.setActivity(`Using ${event.toolName}…`);
        break;
      }
      case 'model_call':
        if (event.agentId !== 'lead') break;
        if (event.state === 'waiting') this.startWaiting(modelLabel(event.provider, event.model), event.time);
        else if (event.state === 'stalled')
          this.startWaiting(modelLabel(event.provider, event.model), event.time - (event.silentMs ?? 0), 'stalled');
        else this.stopWaiting('Thinking…');
        break;
      case 'tool_approval_request':
        this.runs.toolEvent(event);
        // A sub-agent's calls ask the user too.
        this.setActivity('Waiting for your approval');
        break;
      case 'tool_approval_result':
        this.runs.toolEvent(event);
        break;
      case 'team_approval':
        this.runs.teamEvent(event);
        if (event.state === 'waiting') this.setActivity(`Waiting for ${event.approvers.join(', ')}`);
        break;
      case 'tool_result':
        this.runs.toolEvent(event);
        // read_file of a picture: what the model was shown, under the tool's line.
        if (event.agentId === 'lead' && eventImages(event).length)
          this.add({ kind: 'images', images: eventImages(event) });
        this.setActivity('Thinking…');
        break;
      case 'compact':
        if (event.kind !== 'micro') {
          this.finishCurrent();
          this.add({
            kind: 'status',
            text: `Conversation compacted (${event.tokensBefore.toLocaleString()} → ${event.tokensAfter.toLocaleString()} tokens).`,
          });
        }
        break;
      case 'cache_break':
        this.finishCurrent();
        this.add({ kind: 'warning', text: describeCacheBreak(event) });
        break;
      case 'cost_warning':
        this.finishCurrent();
        this.add({ kind: 'warning', text: describeCostWarning(event) });
        break;
      case 'background_result':
        this.finishCurrent();
        this.add({
          kind: 'status',
          text: `Background job ${event.jobId} (${event.command}) ${event.exitCode === null ? 'ended' : `exited with code ${event.exitCode}`}.`,
        });
        break;
      case 'plan_mode':
        this.finishCurrent();
        this.add({
          kind: 'status',
          text: event.active
            ? 'Plan mode is on: the agent reads and plans, and changes nothing until you approve its plan.'
            : event.reason === 'plan_approved'
              ? 'Plan approved: plan mode is off.'
              : 'Plan mode is off.',
        });
        break;
      case 'files_changed':
        this.finishCurrent();
        this.showTurnFiles(event);
        break;
      case 'turn_reverted': {
        const failed = event.failed.map((item) => `${item.path} (${item.reason})`);
        const note =
          `Reverted: ${[...event.restored, ...event.deleted.map((file) => `${file} deleted`)].join(', ') || 'nothing'}` +
          (failed.length ? `. Not restored: ${failed.join(', ')}` : '.');
        const index = this.turnFiles.get(event.turn);
        const block = index === undefined ? undefined : this.turns[index];
        if (block?.kind === 'files') {
          block.revertable = false;
          block.notes.push(note);
          this.touch(index!);
        } else {
          this.add({ kind: 'reverted', notes: [note] });
        }
        break;
      }
      case 'review_note':
        this.finishCurrent();
        this.add({
          kind: 'status',
          text: `The agent was told what you undid (${event.hunks.length} change${event.hunks.length === 1 ? '' : 's'}).`,
        });
        break;
      case 'interrupted':
        this.finishCurrent();
        // The cut-off answer (or unfinished call) says why; with nothing to mark, a line does.
        if (!this.runs.end(event)) this.add({ kind: 'status', text: event.reason });
        this.setRunning(false);
        break;
      case 'error':
        this.finishCurrent();
        this.runs.end(event);
        this.runs.errorAdded(this.add(this.runs.errorTurn(event, fixesFor(event.kind))));
        this.setRunning(false);
        break;
      case 'done':
        this.finishCurrent();
        this.runs.end(event);
        this.setRunning(false);
        break;
    }
  }

  /** The files a turn changed, with "Revert This Turn"; a redirected run updates the same block. */
  private showTurnFiles(event: Extract<AgentEvent, { type: 'files_changed' }>): void {
    const index = this.turnFiles.get(event.turn);
    const block = index === undefined ? undefined : this.turns[index];
    if (block?.kind === 'files') {
      Object.assign(block, { files: event.files, revertable: true, notes: [] });
      this.touch(index!);
    } else {
      this.turnFiles.set(
        event.turn,
        this.add({
          kind: 'files',
          turn: event.turn,
          files: event.files,
          revertable: true,
          notes: [],
          review: this.review.files(event.turn),
        }),
      );
    }
  }

  /** A turn's files block shows where the review of its edits stands now. */
  private showReview(turn: number): void {
    const index = this.turnFiles.get(turn);
    const block = index === undefined ? undefined : this.turns[index];
    if (block?.kind !== 'files') return;
    block.review = this.review.files(turn);
    this.touch(index!);
  }

  /** Appends a turn; returns its index. */
  private add(body: TurnBody): number {
    this.turns.push({ ...body, version: 0 });
    return this.turns.length - 1;
  }

  /** Turn `index` changed: its element (if shown) is brought up to date in the next frame. */
  private touch(index: number): void {
    this.turns[index]!.version++;
    this.changed.add(index);
  }

  /** The element for turn `index`: `existing` when it is up to date, the streaming answer's own, or a new one. */
  private element(index: number, existing?: HTMLElement): HTMLElement {
    const turn = this.turns[index]!;
    if (this.live?.index === index) {
      this.live.stream.update(this.live.turn.text);
      return this.live.stream.element;
    }
    if (existing && this.shown.get(existing) === turn.version) return existing;
    const element = renderTurn(turn, this.turnActions);
    this.shown.set(element, turn.version);
    return element;
  }

  /** The streaming answer is complete: a shown one gets its last text now; a hidden one renders when shown. */
  private finishCurrent(): void {
    const live = this.live;
    if (!live) return;
    this.live = undefined;
    if (!live.stream.element.isConnected) return;
    live.stream.update(live.turn.text);
    live.stream.finish();
    // The streamed element stays as it is; the answer's fork action goes under it once it is whole.
    if (live.turn.at) live.stream.element.append(forkButton(live.turn.at, this.turnActions.onMessage));
    this.shown.set(live.stream.element, live.turn.version);
  }

  private textMetrics(): TextMetrics {
    if (!this.metrics) {
      const fontSize = parseFloat(getComputedStyle(this.transcript).fontSize) || 13;
      this.metrics = { lineHeight: fontSize * 1.5, charWidth: fontSize * 0.55 };
    }
    return this.metrics;
  }

  private setActivity(text: string): void {
    if (this.running) this.activityText = text;
  }

  private setRunning(running: boolean): void {
    this.running = running;
    // Fork and edit are refused while the agent runs: their actions hide (chat.css).
    this.transcript.classList.toggle('agent-running', running);
    this.stopWaiting(running ? 'Thinking…' : '');
    this.activityText = running ? 'Thinking…' : '';
  }

  /** `stalled`: an answer under way has paused (see the model_call event), rather than not begun. */
  private startWaiting(model: string, since: number, kind: 'waiting' | 'stalled' = 'waiting'): void {
    this.stopWaiting('');
    const show = () => {
      const seconds = Math.max(0, Math.floor((Date.now() - since) / 1000));
      this.setActivity(
        kind === 'stalled' ? `${model} has sent nothing for ${seconds} s` : `Waiting for ${model}… ${seconds} s`,
      );
    };
    const timer = setInterval(() => {
      show();
      this.showActivity();
    }, 1000);
    this.waiting = { timer };
    show();
  }

  private stopWaiting(text: string): void {
    if (!this.waiting) return;
    clearInterval(this.waiting.timer);
    this.waiting = undefined;
    this.setActivity(text);
  }

  private showActivity(): void {
    const shown = this.shownActivity;
    if (shown?.running === this.running && shown.text === this.activityText) return;
    this.activity.hidden = !this.running;
    this.activity.textContent = this.activityText;
    if (shown?.running !== this.running) this.onRunningChange(this.running);
    this.shownActivity = { running: this.running, text: this.activityText };
  }
}

/** The message an event showed, as the host is asked about it. */
function messageAt(event: AgentEvent): MessageAt {
  return { conversationId: event.conversationId, seq: event.seq };
}
