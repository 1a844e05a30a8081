/**
 * Connects one chat webview to the conversation session: validates what the webview sends,
 * forwards the session's events to it in per-frame batches, and turns setup problems into a
 * notice with the fix attached.
 */
import type { ConversationSession, SubmitProblem } from '../../core/session/conversation-session';
import type { ChatKeeper } from '../../core/session/chat-keeper';
import type { MentionResolver } from '../../core/session/mentions';
import { shortModelName, type LocalServer } from '../../core/llm/local-servers';
import {
  parseWebviewMessage,
  type HostToWebview,
  type WebviewAction,
  type WebviewToHost,
} from '../../protocol/messages';
import { Disposable } from '../disposable';
import { coalesceTextDeltas } from './event-batcher';
import { SessionFeed } from './session-feed';
import { ChatQueueLink } from './chat-queue-link';
import type { ChatWebview } from './held-webview';
import { ChatForks, type ChatForkSurface } from './chat-forks';
import type { RewindAnswer, RewindFilePlan } from '../../core/session/session-forks';
import { sideAnswerMessage } from './side-answer-message';
import { ChatImages, type ChatImageDeps } from './chat-images';

export interface ChatActions {
  setApiKey(): Promise<void>;
  openSettings(): Promise<void>;
  openWalkthrough(): Promise<void>;
  openLink(href: string): Promise<void>;
  revertTurn(turn: number): Promise<void>;
  /** Opens a picker of the composer; for "context", resolves to the mention to insert. */
  openPicker(picker: 'context' | 'model' | 'preset'): Promise<string | undefined>;
  /** The model and preset the next prompt uses, for the composer's pickers. */
  chatStatus(): { model: string; preset: string };
  /** "Open Diff" on a file of a turn's changes. */
  openTurnDiff(turn: number, path: string): Promise<void>;
  /** The review of a turn's edits: open a file at its hunks, keep or undo a file's or the turn's. */
  reviewEdits(action: 'open' | 'keep' | 'undo', turn: number, path?: string): Promise<void>;
  /** Resolves @mentions in prompts (@file:…, @selection, @problems, @terminal, @git). */
  resolveMention: MentionResolver;
  /** Local model servers running on this machine (first contact: offered when no model is set up). */
  findLocalServers(): Promise<LocalServer[]>;
  /** Makes `model` on `server` the model OpenAgent uses. */
  useLocalServer(server: LocalServer, model: string): Promise<void>;
  /** "Edit and resend": asks whether to restore the files the later turns changed (modal). Without it, they stay. */
  confirmRewind?(plan: RewindFilePlan): Promise<RewindAnswer>;
  /** An outcome shown as a notification (one the chat's reset would clear). Without it, a chat notice. */
  notify?(text: string): void;
  /** "Fork from here": asks where the fork goes (see ChatForkSurface.placeFork). Without it, here. */
  placeFork?: ChatForkSurface['placeFork'];
  /** Images (issue 36): the composer's prepared, previews from the store. Without it, images are refused. */
  images?: ChatImageDeps;
}

/** How many local servers a notice offers at most. */
const MAX_OFFERED_SERVERS = 4;

const TRACE_EVENTS = new Set<string>(['llm_request', 'llm_response']);

export class ChatController extends Disposable {
  private readonly feed: SessionFeed<HostToWebview>;
  private readonly queue: ChatQueueLink;
  private readonly forks: ChatForks;
  private readonly images: ChatImages | undefined;
  /** The local servers the last notice offered; a `use_local_server` choice indexes this list. */
  private offeredServers: LocalServer[] = [];
  private heardReady = false;
  /** The page's catch-up, while and after it runs. */
  private catching: Promise<void> | undefined;

  constructor(
    webview: ChatWebview,
    private readonly session: ConversationSession,
    private readonly actions: ChatActions,
    /** Keeps and reopens this window's chat (the chat that comes back); without it, every window starts fresh. */
    keeper?: ChatKeeper,
  ) {
    super();
    this.images = actions.images && new ChatImages(actions.images, (message) => this.post(message));
    // Streamed text is merged per batch, so the bytes posted stay close to the text itself; LLM
    // traces (whole request/response payloads) are for the developer panel, never shown here.
    this.feed = this._register(
      new SessionFeed<HostToWebview>(webview, session, {
        events: (events) => {
          // After this batch is posted: its images' previews, a notice if the model sees none.
          queueMicrotask(() => this.images?.shown(events));
          return { type: 'agent_events', events: coalesceTextDeltas(events) };
        },
        keep: (event) => !TRACE_EVENTS.has(event.type),
        reset: () => (this.images?.reset(), { type: 'chat_reset' }),
      }),
    );
    this.queue = new ChatQueueLink(
      session,
      (message) => {
        this.post(message);
        if (message.type === 'queue_state') this.images?.queued(message.items);
      },
      (problem) => this.showProblem(problem),
      keeper,
    );
    this._register(this.queue);
    this.forks = new ChatForks(session, {
      notice: (level, text) => this.post({ type: 'chat_notice', level, text, actions: [] }),
      ...(actions.confirmRewind ? { confirmRewind: (plan) => actions.confirmRewind!(plan) } : {}),
      ...(actions.notify ? { notify: (text) => actions.notify!(text) } : {}),
      ...(actions.placeFork ? { placeFork: (request) => actions.placeFork!(request) } : {}),
    });
    this._register(webview.onDidReceiveMessage((raw: unknown) => this.receive(raw)));
    // Side answers (/btw) go to their own block of the page, never into the transcript.
    this._register({ dispose: session.sideQuestions.onUpdate((answer) => this.post(sideAnswerMessage(answer))) });
  }

  /** The webview was hidden: an edit of a queued message it had open is over. */
  webviewHidden(): void {
    this.queue.webviewGone();
  }

  get isReady(): boolean {
    return this.feed.isReady;
  }

  /**
   * The page is ready for this controller: it said `webview_ready` to it, or it was caught up
   * (or is being caught up) for a page that had said so to an earlier one. Either way the page
   * will not say so again.
   */
  get pageSaidReady(): boolean {
    return this.heardReady || this.catching !== undefined;
  }

  onDidBecomeReady(listener: () => void): () => void {
    return this.feed.onDidBecomeReady(listener);
  }

  /**
   * The webview (re)loaded, or now shows this controller's session (another session was shown):
   * it catches up with the whole conversation in one batch — the only time all of it is posted
   * (streaming posts only what is new). The window's last chat is reopened first (the first time
   * a chat view shows), so the catch-up already has it.
   */
  catchUp(): Promise<void> {
    this.catching = this.catchUpNow();
    return this.catching;
  }

  private async catchUpNow(): Promise<void> {
    await this.queue.restore();
    // Another session was shown meanwhile: its controller speaks for the page now.
    if (this.isDisposed) return;
    this.feed.start();
    this.postStatus();
    this.queue.webviewReady();
  }

  private receive(raw: unknown): void {
    const message = parseWebviewMessage(raw);
    // A webview is untrusted input: anything that does not fit the protocol is dropped.
    if (!message) return;
    void this.handle(message);
  }

  private async handle(message: WebviewToHost): Promise<void> {
    // What the page asks while it is being caught up is answered after: an answer posted before
    // would be dropped (a refused prompt would not come back to the composer).
    if (message.type !== 'webview_ready' && this.catching) await this.catching;
    switch (message.type) {
      case 'webview_ready':
        this.heardReady = true;
        await this.catchUp();
        return;
      case 'picker_open': {
        const mention = await this.actions.openPicker(message.picker);
        if (mention) this.insertIntoComposer(mention);
        this.postStatus();
        return;
      }
      case 'prompt_submit': {
        const images = await this.attachedImages(message);
        if ('problem' in images) {
          // Nothing is sent: the prompt and its images go back to the composer, the reason shown.
          this.post({ type: 'prompt_result', requestId: message.requestId, problem: images.problem });
          this.post({ type: 'chat_notice', level: 'warning', text: images.problem, actions: [] });
          return;
        }
        // While the agent works a prompt is queued; "Send now" interrupts and redirects instead.
        const problem = message.sendNow
          ? await this.session.sendNow(message.text, this.actions.resolveMention, images)
          : await this.session.submitWithMentions(message.text, this.actions.resolveMention, 'chat', images);
        this.post({
          type: 'prompt_result',
          requestId: message.requestId,
          ...(problem ? { problem: problem.message } : {}),
        });
        this.showProblem(problem);
        return;
      }
      case 'run_stop':
        this.session.stop();
        return;
      case 'prompt_retry': {
        const outcome = await this.session.retryRun({
          conversationId: message.conversationId,
          errorSeq: message.errorSeq,
        });
        if (outcome?.reason === 'stale_retry')
          this.post({ type: 'chat_notice', level: 'info', text: outcome.message, actions: [] });
        else this.showProblem(outcome);
        return;
      }
      case 'message_fork':
        await this.forks.fork(message.conversationId, message.seq);
        return;
      case 'message_edit':
        await this.forks.edit(message.conversationId, message.seq, message.text);
        return;
      case 'chat_new':
        this.session.reset();
        return;
      case 'action_invoke':
        await this.invoke(message.action, message.choice);
        return;
      case 'link_open':
        await this.actions.openLink(message.href);
        return;
      case 'turn_revert':
        await this.actions.revertTurn(message.turn);
        return;
      case 'turn_diff_open':
        await this.actions.openTurnDiff(message.turn, message.path);
        return;
      case 'draft_change':
      case 'queue_edit':
      case 'queue_editing':
      case 'queue_remove':
      case 'queue_send_now':
      case 'queue_resume':
        await this.queue.handle(message);
        return;
      case 'edits_review':
        await this.actions.reviewEdits(message.action, message.turn, message.path);
        return;
      case 'side_question_ask':
        // Its answer reaches the page through onUpdate, like one asked from the palette.
        void this.session.sideQuestions.ask(message.text);
        return;
      case 'side_question_stop':
        this.session.sideQuestions.stop(message.id);
        return;
      default:
        return message satisfies never;
    }
  }

  private async attachedImages(message: Extract<WebviewToHost, { type: 'prompt_submit' }>) {
    if (!message.images) return [];
    if (!this.images) return { problem: 'The prompt was not sent: images cannot be attached here.' };
    return this.images.prepare(message.images);
  }

  private async invoke(action: WebviewAction, choice: number | undefined): Promise<void> {
    if (action === 'use_local_server') {
      // Only what this host offered: a webview cannot name a server of its own.
      const server = choice === undefined ? undefined : this.offeredServers[choice];
      if (!server?.models[0]) return;
      await this.actions.useLocalServer(server, server.models[0]);
      this.postStatus();
      this.showProblem(await this.session.retry());
      return;
    }
    if (action === 'set_api_key') await this.actions.setApiKey();
    else if (action === 'open_settings') await this.actions.openSettings();
    else if (action === 'open_walkthrough') await this.actions.openWalkthrough();
    else if (action === 'new_chat') this.session.reset();
    else this.showProblem(await this.session.retry());
  }

  /** Tells the composer which model and preset the next prompt uses. */
  postStatus(): void {
    if (this.feed.isReady) this.post({ type: 'chat_status', ...this.actions.chatStatus() });
  }

  /** Puts text into the chat's composer (after the ready handshake; dropped before it). */
  insertIntoComposer(text: string): boolean {
    if (!this.feed.isReady) return false;
    this.post({ type: 'composer_insert', text });
    return true;
  }

  private showProblem(problem: SubmitProblem | undefined): void {
    if (!problem) return;
    if (problem.reason === 'stopped') {
      // Stop while the run was being set up: the prompt is back in the composer (prompt_result).
      this.post({ type: 'chat_notice', level: 'info', text: problem.message, actions: [] });
      return;
    }
    if (problem.reason === 'queue_full' || problem.reason === 'too_long' || problem.reason === 'empty') {
      // The prompt went back into the composer (prompt_result); the notice says why it was not queued.
      this.post({ type: 'chat_notice', level: 'warning', text: problem.message, actions: [] });
      return;
    }
    if (problem.reason !== 'missing_api_key') {
      this.post({
        type: 'chat_notice',
        level: 'warning',
        text: problem.message,
        actions: [{ action: 'open_settings', label: 'Open Settings' }],
      });
      return;
    }
    const keyActions: Array<{ action: WebviewAction; label: string; choice?: number }> = [
      { action: 'set_api_key', label: 'Set API Key' },
      { action: 'open_settings', label: 'Choose a Provider' },
      { action: 'open_walkthrough', label: 'Get Started' },
    ];
    this.post({ type: 'chat_notice', level: 'warning', text: problem.message, actions: keyActions });
    // First contact: what already runs on this machine, offered beside the key (a moment later).
    void this.actions.findLocalServers().then((servers) => {
      this.offeredServers = servers.slice(0, MAX_OFFERED_SERVERS);
      if (this.offeredServers.length === 0) return;
      const found = this.offeredServers.map(
        (server) =>
          `${server.label} (${server.models
            .slice(0, 3)
            .map((model) => shortModelName(model))
            .join(', ')})`,
      );
      this.post({
        type: 'chat_notice',
        level: 'info',
        text: `${problem.message}\n\nFound on this machine: ${found.join('; ')}.`,
        actions: [
          ...this.offeredServers.map((server, choice) => ({
            action: 'use_local_server' as const,
            // The model is named in the text: a sidebar is too narrow for it on a button.
            label: `Use ${server.label}`,
            choice,
          })),
          ...keyActions,
        ],
      });
    });
  }

  private post(message: HostToWebview): void {
    this.feed.post(message);
  }
}
