/**
 * The conversation a surface is showing, and how a new one starts. Both the sidebar chat and
 * the developer panel attach to one session; the session keeps the events of the current
 * conversation so a surface that opens late (or reloads) shows the same thing as the others.
 * Its helpers: model-routing (which model does which work), conversation-assembly (building a
 * conversation), session-switches (the panel's switches), conversation-library (history).
 */
import type { Conversation } from '../agent/conversation';
import type { AgentEvent, AgentEventBody } from '../events/events';
import type { Inbox } from '../events/inbox';
import type { ConversationStore, SecretSource, StoredConversation, TeamStamp } from '../ports';
import type { RestoredConversation } from './restore';
import { resolveMentions, type MentionResolver } from './mentions';
import { PromptRetries, requestOf, type PromptAttempt, type RetryRefusal, type RetryTarget } from './prompt-retries';
import type { ImagePart } from '../llm/llm-client';
import type { RevertPlan } from '../workspace/checkpoints';
import type { RevertOutcome } from '../agent/turn-checkpoints';
import type { ConversationParts } from './conversation-parts';
import { ConversationRecorder } from './conversation-recorder';
import type { ApprovalGate } from '../policy/approval';
import { AutoApprovalGate } from '../policy/auto-approval';
import type { AnyTool } from '../tools/tool';
import type { WorkKind } from '../policy/model-routes';
import {
  routeModels,
  STOPPED_IN_SETUP,
  type ModelRoutingDeps,
  type RoutedModels,
  type SetupProblem,
} from './model-routing';
import { untilAborted } from '../abort';
import { assembleConversation, type AssemblyDeps } from './conversation-assembly';
import { SessionSwitches } from './session-switches';
import { ConversationLibrary } from './conversation-library';
import type { SystemPrompt } from '../agent/system-prompt';
import { SessionQueue, type PromptRequest, type SubmitProblem } from './session-queue';
import { HeldSecrets } from '../llm/held-secrets';
import { SessionForks } from './session-forks';
import { createSessionRecorder, type SessionRecordingOptions } from '../replay/session-recording';
import { sideQuestionsOf, type SideQuestionContext, type SideQuestions } from './side-questions';

export type { SetupProblem } from './model-routing';
export type { RetryRefusal, RetryTarget } from './prompt-retries';
export type { SubmitProblem, RunEnd } from './session-queue';

/** The conversation's surroundings (see AssemblyDeps and ConversationPartsDeps for the rest). */
export interface ConversationSessionDeps extends AssemblyDeps, ModelRoutingDeps {
  /** Whether new conversations start in plan mode (a setting). */
  planModeDefault?: () => boolean;
  /** Asks the user about tool calls that need approval; without it they are denied. */
  approvals?: ApprovalGate;
  /** The store conversations are recorded in; opened on first use. Undefined: nothing is kept. */
  store?: () => Promise<ConversationStore | undefined>;
  /** A store failure (opening or writing), for the host to show. */
  onStoreError?: (error: unknown) => void;
  /** With a team database configured: who is working, so usage and audit records also reach it. */
  teamStamp?: () => TeamStamp | undefined;
  secrets: SecretSource;
  /**
   * Every secret the product holds (the composition root's): redacted from every event, the
   * store, traces and exports. The keys the routes use are added to it as they are read.
   */
  heldSecrets?: HeldSecrets;
  /** Runs before each new conversation starts: reloads what it depends on (the policy file). */
  prepare?: () => Promise<void>;
  /** Tools that take a moment to get (MCP servers'), fetched for each new conversation. */
  connectedTools?: () => Promise<AnyTool[]>;
  /** Built for each new conversation (rules, memory and skills are read then). */
  systemPrompt(): string | SystemPrompt | Promise<string | SystemPrompt>;
  /** Set: every run is recorded for replay in the store's recordings (what only the root knows). */
  recording?: SessionRecordingOptions;
}

export class ConversationSession {
  private conversation: Conversation | undefined;
  private unsubscribe: (() => void) | undefined;
  private events: AgentEvent[] = [];
  /** How many times the chat started over (New Chat, another conversation opened). */
  private resets = 0;
  private readonly eventListeners = new Set<(event: AgentEvent) => void>();
  private readonly resetListeners = new Set<() => void>();
  /** Which prompt a Retry (or a fixed setup) sends. */
  private readonly retries = new PromptRetries();
  private recorder: ConversationRecorder | undefined;
  private parts: ConversationParts | undefined;
  /** A conversation reopened from the store, continued at the next prompt. */
  private reopened: { conversation: StoredConversation; restored: RestoredConversation } | undefined;
  /** Plan mode chosen before the conversation exists. */
  private planModeNext: boolean | undefined;
  /** Every secret the product holds: the root's, or the session's own. */
  readonly heldSecrets: HeldSecrets;
  /** The developer panel's per-conversation switches (plan mode is below). */
  readonly switches = new SessionSwitches();
  /** The saved conversations. */
  readonly library: ConversationLibrary;
  /**
   * Messages sent while the agent works, sent in order when a run ends normally; read its
   * state and change it here (edit, remove, resume…), whichever surface the user is on.
   */
  readonly queue: SessionQueue = new SessionQueue({
    start: (request, signal) => this.startRun(request, signal),
    isRunning: () => this.isRunning,
    redirect: (text) => this.redirect(text),
    stopRun: () => this.conversation?.stop(),
  });
  /** Fork from any message, and rewind to an earlier prompt (SPEC 5b), for the conversation on screen. */
  readonly forks: SessionForks = new SessionForks({
    store: () => this.openStore(),
    now: () => this.deps.clock.now(),
    newId: () => this.deps.newId(),
    currentId: () => this.currentId,
    isBusy: () => this.isBusy,
    flush: () => this.flush(),
    // Only a conversation that ran in this session has its checkpoints (a reopened one has none yet).
    checkpoints: () => (this.conversation ? this.parts?.checkpoints?.checkpoints : undefined),
    open: (id) => this.open(id),
    submit: (text) => this.submit(text),
    tell: (event) => this.eventListeners.forEach((listener) => listener(event)),
  });
  /** Runs, closing parts and flushes still going (a reset does not wait for them): dispose does. */
  private readonly ending = new Set<Promise<unknown>>();
  /** Drained at the top of each turn of every conversation, beside its own (the edit review's notes). */
  private readonly inboxes: Inbox[] = [];
  /** Events recorded into a reopened conversation (report), in order. */
  private besideWrites: Promise<unknown> = Promise.resolve();
  /** Records every run for replay (deps.recording). */
  private readonly runs: ReturnType<typeof createSessionRecorder> | undefined;
  private routed: RoutedModels | undefined;
  /** Side questions (/btw) about the conversation on screen, answered beside it (side-questions.ts). */
  readonly sideQuestions: SideQuestions;

  constructor(private readonly deps: ConversationSessionDeps) {
    this.library = new ConversationLibrary(() => this.openStore());
    this.heldSecrets = deps.heldSecrets ?? new HeldSecrets();
    this.runs = deps.recording && this.recordingOf(deps.recording);
    this.sideQuestions = sideQuestionsOf(
      deps,
      this.heldSecrets,
      () => this.sideContext(),
      () => this.openStore(),
    );
  }

  /** A copy of the conversation on screen (running or reopened) for a side question; none before the first prompt. */
  private async sideContext(): Promise<SideQuestionContext | undefined> {
    const { conversation, reopened } = this;
    if (conversation)
      return {
        conversationId: conversation.id,
        system: conversation.systemPrompt,
        history: [...conversation.messages],
      };
    if (!reopened) return undefined;
    const system = await this.deps.systemPrompt();
    const text = typeof system === 'string' ? system : system.text;
    return {
      conversationId: reopened.conversation.id,
      system: text,
      history: structuredClone(reopened.restored.history),
    };
  }

  get isRunning(): boolean {
    return this.conversation?.isRunning ?? false;
  }

  /** Every secret the product holds (the keys in use among them): what any export must leave out. */
  get secretsInUse(): readonly string[] {
    return this.heldSecrets.list();
  }

  /** Events of the current conversation so far. */
  get history(): readonly AgentEvent[] {
    return this.events;
  }

  onEvent(listener: (event: AgentEvent) => void): () => void {
    this.eventListeners.add(listener);
    return () => this.eventListeners.delete(listener);
  }

  onReset(listener: () => void): () => void {
    this.resetListeners.add(listener);
    return () => this.resetListeners.delete(listener);
  }

  /**
   * Sends a prompt to the current conversation, starting one if there is none. While the agent
   * works the prompt is queued instead (sent when the run ends normally; see PromptQueue), and
   * after a Stop it waits for the run to end, then goes out. Returns a problem instead when no
   * model is set up or the queue refuses it; the run itself reports through events and this
   * resolves once it has started (or the prompt is queued).
   */
  async submit(prompt: string, work: WorkKind = 'chat'): Promise<SubmitProblem | undefined> {
    return this.queue.send({ text: prompt, work });
  }

  /**
   * Like submit, resolving the prompt's @mentions first through the host's `resolve` (a queued
   * prompt's when it is sent). `work` is the kind of work for the model policy: "code" for the
   * code actions on a selection.
   */
  async submitWithMentions(
    prompt: string,
    resolve: MentionResolver,
    work: WorkKind = 'chat',
    images?: readonly ImagePart[],
  ): Promise<SubmitProblem | undefined> {
    return this.queue.send({ text: prompt, resolve, work, ...(images?.length ? { images } : {}) });
  }

  /**
   * "Send now": interrupts the running agent and redirects it with `prompt` (SPEC 1.1, 2.6) —
   * the partial answer stays, the prompt is the next user message. Without a run, a prompt.
   */
  async sendNow(prompt: string, resolve?: MentionResolver, images?: readonly ImagePart[]) {
    return this.queue.sendNow(prompt, resolve, images);
  }

  /** Whether a run is going or being set up: a prompt sent now would be queued. */
  get isBusy(): boolean {
    return this.queue.isBusy;
  }

  /**
   * Starts a run of the request (the queue calls this when the agent is free). Every wait of the
   * setup (mentions, the policy file, the store, MCP servers connecting) ends at once when
   * `signal` aborts (Stop): the prompt is not sent, and what was still connecting goes on for
   * the next prompt.
   */
  private async startRun(request: PromptRequest, signal: AbortSignal): Promise<SetupProblem | undefined> {
    const attempt: PromptAttempt = {
      prompt: request.text,
      work: request.work,
      ...(request.resolve ? { resolver: request.resolve } : {}),
      ...(request.context ? { context: request.context } : {}),
      ...(request.retryOf !== undefined ? { retryOf: request.retryOf } : {}),
      ...(request.images ? { images: request.images } : {}),
    };
    // Remembered before the setup check, so "Set API Key" can send it once the key is there.
    this.retries.attempting(attempt, !request.queued);
    try {
      return await this.setUp(attempt, signal);
    } catch (error) {
      if (!signal.aborted) throw error;
      this.retries.stopped(attempt);
      return STOPPED_IN_SETUP;
    }
  }

  private async setUp(attempt: PromptAttempt, signal: AbortSignal): Promise<SetupProblem | undefined> {
    const wait = <T>(work: Promise<T> | T) => untilAborted(Promise.resolve(work), signal);
    const context = attempt.resolver ? await wait(resolveMentions(attempt.prompt, attempt.resolver)) : attempt.context;
    const { work } = attempt;
    // A new conversation reads the policy file again first: its model routes decide the models.
    if (!this.conversation) await wait(this.deps.prepare?.());
    // Settings and the model policy are read at every prompt, so a provider, key or route
    // changed mid-chat applies to the next answer without losing the conversation.
    const routed = await wait(routeModels(this.deps, work));
    if ('reason' in routed) return routed;
    this.heldSecrets.add(...routed.apiKeys);
    this.routed = routed;
    if (this.conversation) {
      this.conversation.useModels(routed);
    } else {
      this.deps.budget?.refresh();
      const [store, system, connected] = await wait(
        Promise.all([
          this.openStore(),
          this.deps.systemPrompt(),
          // A server that fails is the MCP status's business; the conversation goes on without it.
          this.deps.connectedTools?.().catch(() => []) ?? [],
        ]),
      );
      const reopened = this.reopened;
      this.reopened = undefined;
      assembleConversation(
        this.deps,
        {
          routed,
          system: typeof system === 'string' ? { text: system, knowledge: [] } : system,
          connected,
          planModeOn: this.planModeNext ?? this.deps.planModeDefault?.() ?? false,
          teamsOn: () => this.switches.teams,
          approvals: this.approvalGate(),
          tracing: this.tracingSwitch,
          reopened,
          recorder: this.runs?.recorder,
          images: store?.images,
        },
        (conversation, parts) => {
          this.parts = parts;
          parts.inboxes.push(...this.inboxes);
          this.attach(
            conversation,
            store && {
              store,
              settings: { ...reopened?.conversation.settings, provider: routed.providerId, model: routed.main.model },
              resume: reopened && { conversation: reopened.conversation, nextSeq: reopened.restored.nextSeq },
            },
          );
        },
      );
    }
    this.parts?.beginTurn();
    this.retries.started(attempt);
    // Images attached in the composer, then those of @image mentions (issue 36).
    const images = [...(attempt.images ?? []), ...(context?.images ?? [])];
    const options = { ...(attempt.retryOf !== undefined ? { retryOf: attempt.retryOf } : {}), images };
    const run = this.conversation!.submit(attempt.prompt, context, options);
    this.track(this.queue.runStarted(run.finally(() => this.retries.ended(attempt))));
    return undefined;
  }

  /** "Send now" while a run goes: its words redirect the run, and a failure from now on is of them. */
  private redirect(text: string): void {
    if (!this.conversation) return;
    this.retries.redirected({ prompt: text, work: 'chat' });
    this.track(this.conversation.interrupt(text));
  }

  /**
   * Sends the prompt waiting for a fixed setup (refused for a missing key, or failed on its
   * credentials) once the user has fixed it; nothing when no prompt waits.
   */
  async retry(): Promise<SubmitProblem | undefined> {
    const attempt = this.retries.waitingForFix();
    return attempt ? this.queue.send(requestOf(attempt)) : undefined;
  }

  /**
   * The Retry of the error `target`: sends that run's prompt again, once, if it is the
   * conversation's last run; otherwise refuses, saying why.
   */
  async retryRun(target: RetryTarget): Promise<SubmitProblem | RetryRefusal | undefined> {
    const attempt = this.retries.take(target, {
      running: this.isBusy,
      conversationId: this.currentId,
      events: this.events,
    });
    return 'reason' in attempt ? attempt : this.queue.send(requestOf(attempt));
  }

  /** Stops the run; the queue is held until the user resumes it (or sends one of its messages). */
  stop(): void {
    this.queue.stop();
  }

  /** Starts over: the next prompt opens a new conversation with the settings of that moment. */
  reset(): void {
    this.resets++;
    // The old conversation's background jobs end with it.
    this.track(this.parts?.dispose());
    this.parts = undefined;
    this.planModeNext = undefined;
    this.switches.clear();
    this.reopened = undefined;
    this.track(this.recorder?.flush());
    this.recorder = undefined;
    this.conversation?.stop();
    this.unsubscribe?.();
    this.conversation = undefined;
    this.unsubscribe = undefined;
    this.events = [];
    this.retries.clear();
    // The queued messages and side questions were about the conversation that is gone.
    this.queue.reset();
    this.sideQuestions.stop();
    for (const listener of this.resetListeners) listener();
  }

  private attach(
    conversation: Conversation,
    storage:
      | {
          store: ConversationStore;
          settings: Record<string, unknown>;
          resume?: { conversation: StoredConversation; nextSeq: number };
        }
      | undefined,
  ): void {
    this.conversation = conversation;
    const recorder =
      storage &&
      new ConversationRecorder({
        store: storage.store,
        conversationId: conversation.id,
        now: () => this.deps.clock.now(),
        settings: storage.settings,
        resume: storage.resume,
        secrets: this.heldSecrets.matcher,
        onError: (error) => this.deps.onStoreError?.(error),
        team: this.deps.teamStamp,
      });
    this.recorder = recorder;
    this.runs?.follow({ id: conversation.id, stored: storage?.resume?.conversation });
    this.unsubscribe = conversation.subscribe((event) => {
      this.events.push(event);
      this.retries.observe(event);
      this.queue.observe(event);
      recorder?.record(event);
      this.runs?.recorder.observe(event);
      for (const listener of this.eventListeners) listener(event);
      this.parts?.observe(event);
    });
  }

  /**
   * Reopens a saved conversation: surfaces show it as it was (after a reset), and the next
   * prompt continues it with its history. False when it is not in the store (or, with
   * `ifUntouchedSince` a `generation`, when the session shows something or started over since).
   */
  async open(id: string, options: { ifUntouchedSince?: number } = {}): Promise<boolean> {
    const loaded = await this.library.load(id);
    if (!loaded) return false;
    // Reopening a window's last chat must not replace one the user started meanwhile, nor undo
    // a New Chat chosen while it was being read.
    const since = options.ifUntouchedSince;
    if (
      since !== undefined &&
      (since !== this.resets || this.currentId !== undefined || this.isBusy || this.events.length > 0)
    )
      return false;
    // Reopening the conversation on screen (a rewind took it back) keeps what waits to be sent to it.
    const waiting = id === this.currentId ? this.queue.setAside() : undefined;
    this.reset();
    this.reopened = loaded;
    this.events = [...loaded.restored.events];
    this.retries.reopened(id, this.events);
    for (const event of loaded.restored.events) for (const listener of this.eventListeners) listener(event);
    if (waiting) this.queue.bringBack(waiting);
    return true;
  }

  /** Deletes a saved conversation; deleting the one on screen starts a new chat. */
  async deleteConversation(id: string): Promise<void> {
    if (this.currentId === id) this.reset();
    await this.library.delete(id);
  }

  /** Changes whenever the chat starts over: what was read before it may no longer be shown. */
  get generation(): number {
    return this.resets;
  }

  /** The id of the conversation on screen (running or reopened), if any. */
  get currentId(): string | undefined {
    return this.conversation?.id ?? this.reopened?.conversation.id;
  }

  /** Adds an inbox every conversation (this one and those after it) drains at the top of each turn. */
  addInbox(inbox: Inbox): void {
    this.inboxes.push(inbox);
    this.parts?.inboxes.push(inbox);
  }

  /**
   * Records an event from beside the agent (the user's review of its edits) in the conversation
   * on screen — a reopened one too, before it is continued. False when there is none.
   */
  report(body: Extract<AgentEventBody, { type: 'review_decision' | 'review_note' }>): boolean {
    if (this.conversation) {
      this.conversation.report(body);
      return true;
    }
    const reopened = this.reopened;
    if (!reopened) return false;
    const { id } = reopened.conversation;
    // Numbered on from the stored events; the conversation continued later numbers on from here.
    const seq = reopened.restored.nextSeq++;
    const event = { ...body, conversationId: id, agentId: 'lead', seq, time: this.deps.clock.now() } as AgentEvent;
    this.events.push(event);
    for (const listener of this.eventListeners) listener(event);
    const message = {
      id: `${id}-${seq}`,
      conversationId: id,
      seq,
      role: 'event' as const,
      content: event,
      createdAt: event.time,
    };
    this.besideWrites = this.besideWrites
      .then(() => this.openStore())
      .then((store) => store?.putMessage(message))
      .catch((error: unknown) => this.deps.onStoreError?.(error));
    return true;
  }

  /** A file as a turn of the current conversation found it, for "Open Diff" (undefined: not kept). */
  turnFileBefore(turn: number, relativePath: string): { absolute: string; text: string | null } | undefined {
    return this.parts?.checkpoints?.before(turn, relativePath);
  }

  /** Compacts the current conversation now (or at the next turn, while it runs). False when there is none. */
  async compact(focus?: string): Promise<boolean> {
    if (!this.conversation) return false;
    await this.conversation.compact(focus);
    // Messages queued while it compacted go out now.
    this.queue.freed();
    return true;
  }

  /** Whether the current (or next) conversation is in plan mode. */
  get planModeActive(): boolean {
    return this.parts?.planMode.active ?? this.planModeNext ?? this.deps.planModeDefault?.() ?? false;
  }

  /** Switches plan mode for this conversation (or the next one, before it starts). Applies at the agent's next turn. */
  setPlanMode(on: boolean): void {
    if (this.parts) this.parts.planMode.set(on, 'user');
    else this.planModeNext = on;
    this.switches.notify();
  }

  /**
   * "Revert This Turn": restores the files a turn changed (default: the newest such turn) and
   * deletes those it created. Not while the agent works. `confirm` is asked when a file was
   * changed again since the agent wrote it.
   */
  async revertTurn(
    turn?: number,
    confirm?: (plan: RevertPlan) => Promise<boolean>,
  ): Promise<RevertOutcome | { status: 'busy' }> {
    if (this.isRunning) return { status: 'busy' };
    return (await this.parts?.checkpoints?.revert(turn, confirm)) ?? { status: 'nothing_to_revert' };
  }

  /**
   * Ends the session: stops the run, every background job and teammate, and resolves once all
   * of them have ended, those of conversations a reset left behind included (nothing writes after).
   */
  async dispose(): Promise<void> {
    this.conversation?.stop();
    this.sideQuestions.stop();
    await Promise.all([this.parts?.dispose(), ...this.ending, this.sideQuestions.settled()]);
    await this.flush();
  }

  /** Keeps `work` until it settles, for dispose. */
  private track(work: Promise<unknown> | undefined): void {
    if (!work) return;
    const settled: Promise<unknown> = work.catch(() => undefined).finally(() => this.ending.delete(settled));
    this.ending.add(settled);
  }

  /** Resolves when everything recorded so far is in the store. */
  async flush(): Promise<void> {
    await this.besideWrites;
    await this.recorder?.flush();
    await this.runs?.recorder.flush();
  }

  private recordingOf(options: SessionRecordingOptions): ReturnType<typeof createSessionRecorder> {
    return createSessionRecorder(options, {
      store: () => this.openStore(),
      routed: () => this.routed,
      limits: () => this.deps.readLimits?.() ?? {},
      root: () => this.deps.workspaceRoot?.(),
      secrets: this.heldSecrets.matcher,
      now: () => this.deps.clock.now(),
      onError: (error) => this.deps.onStoreError?.(error),
      changedFiles: () => {
        const checkpoints = this.parts?.checkpoints?.checkpoints;
        return (
          checkpoints && {
            turn: checkpoints.currentTurn,
            root: checkpoints.root,
            paths: checkpoints.changes(checkpoints.currentTurn).map((change) => change.path),
          }
        );
      },
    });
  }

  /** The host's gate, auto-approving while the switch is on for the conversation on screen. */
  private approvalGate(): ApprovalGate | undefined {
    const gate = this.deps.approvals;
    return gate && new AutoApprovalGate(gate, (id) => this.switches.autoApprove && id === this.currentId);
  }

  /** Read at each model call, so the switch applies live; every held secret is redacted from traces and events. */
  private get tracingSwitch() {
    return { enabled: () => this.switches.tracing, secrets: this.heldSecrets.matcher };
  }

  private async openStore(): Promise<ConversationStore | undefined> {
    try {
      return await this.deps.store?.();
    } catch (error) {
      this.deps.onStoreError?.(error);
      return undefined;
    }
  }
}
