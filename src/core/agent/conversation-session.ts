/**
 * The conversation a surface is showing, and how a new one starts. Both the sidebar chat and
 * the developer panel attach to one session; the session keeps the events of the current
 * conversation so a surface that opens late (or reloads) shows the same thing as the others.
 */
import { Conversation } from './conversation';
import type { AgentEvent } from './events';
import { createLlmClient, type ConnectionOptions, type ModelSettings } from '../llm/create-llm-client';
import type { ConversationStore, SecretSource, StoredConversation, TranscriptSink } from '../ports';
import { restoreConversation, type RestoredConversation } from './restore';
import { resolveMentions, type MentionResolver, type ResolvedContext } from './mentions';
import type { RevertPlan } from '../workspace/checkpoints';
import type { RevertOutcome } from './turn-checkpoints';
import { ConversationParts, type ConversationPartsDeps } from './conversation-parts';
import { ConversationRecorder } from './conversation-recorder';
import type { ApprovalGate } from '../policy/approval';
import { AutoApprovalGate } from '../policy/auto-approval';
import type { AgentLimits } from './agent-loop';
import type { AnyTool } from '../tools/tool';
import type { BudgetGuard } from '../policy/budget';
import type { Hooks } from './hooks';
import { routeModel, type ModelPolicy, type WorkKind } from '../policy/model-routes';
import type { LlmClient } from '../llm/llm-client';
import type { ModelBinding } from './agent-loop';

/** The conversation's surroundings (see ConversationPartsDeps for workspace, tools, jobs, trust). */
export interface ConversationSessionDeps extends ConversationPartsDeps {
  readSettings(): ModelSettings;
  /** How clients talk to servers (the stream idle timeout), read at every prompt. */
  readConnection?(): ConnectionOptions;
  /** Limits for new conversations (unset values keep the defaults). */
  readLimits?(): Partial<AgentLimits>;
  transcripts?: TranscriptSink;
  /** Whether new conversations start in plan mode (a setting). */
  planModeDefault?: () => boolean;
  /** Asks the user about tool calls that need approval; without it they are denied. */
  approvals?: ApprovalGate;
  /** The store conversations are recorded in; opened on first use. Undefined: nothing is kept. */
  store?: () => Promise<ConversationStore | undefined>;
  /** A store failure (opening or writing), for the host to show. */
  onStoreError?: (error: unknown) => void;
  secrets: SecretSource;
  /** Which model serves which kind of work (policy as code), read at every prompt. */
  modelPolicy?: () => ModelPolicy | undefined;
  /** Addresses of providers other than the one in the settings, for model routes (provider → base URL). */
  providerBaseUrls?: () => Readonly<Record<string, string>>;
  /** Hooks every conversation runs (other extensions' through the extension API). */
  hooks?: Hooks;
  /** Budgets every model call of every conversation is checked against. */
  budget?: BudgetGuard;
  /** Runs before each new conversation starts: reloads what it depends on (the policy file). */
  prepare?: () => Promise<void>;
  /** Tools that take a moment to get (MCP servers'), fetched for each new conversation. */
  connectedTools?: () => Promise<AnyTool[]>;
  /** Built for each new conversation (rules, memory and skills are read then). */
  systemPrompt(): string | Promise<string>;
  newId(): string;
}

/** The models a prompt's run uses, one per kind of work. */
interface RoutedModels {
  main: ModelBinding;
  work: WorkKind;
  compaction: ModelBinding;
  finalSummary: ModelBinding;
  subagent: ModelBinding;
  /** For the stored conversation's settings. */
  providerId: string;
}

/** Why a prompt could not start a run, in words for the user. */
export interface SetupProblem {
  reason: 'unknown_provider' | 'missing_api_key' | 'missing_base_url';
  message: string;
}

export class ConversationSession {
  private conversation: Conversation | undefined;
  private unsubscribe: (() => void) | undefined;
  private events: AgentEvent[] = [];
  private readonly eventListeners = new Set<(event: AgentEvent) => void>();
  private readonly resetListeners = new Set<() => void>();
  private lastPrompt: string | undefined;
  private lastResolver: MentionResolver | undefined;
  private recorder: ConversationRecorder | undefined;
  private parts: ConversationParts | undefined;
  /** A conversation reopened from the store, continued at the next prompt. */
  private reopened: { conversation: StoredConversation; restored: RestoredConversation } | undefined;
  /** Plan mode chosen before the conversation exists. */
  private planModeNext: boolean | undefined;
  /** Runs, closing parts and flushes still going (a reset does not wait for them): dispose does. */
  private readonly ending = new Set<Promise<unknown>>();

  constructor(private readonly deps: ConversationSessionDeps) {}

  get isRunning(): boolean {
    return this.conversation?.isRunning ?? false;
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
   * Sends a prompt to the current conversation, starting one if there is none. Returns a problem instead when no model is set up; the run itself reports
   * through events and this resolves once it has started.
   */
  async submit(prompt: string, work: WorkKind = 'chat'): Promise<SetupProblem | undefined> {
    if (!this.isRunning) this.lastResolver = undefined;
    return this.submitWith(prompt, undefined, work);
  }

  /**
   * Like submit, resolving the prompt's @mentions first through the host's `resolve`. `work` is
   * the kind of work for the model policy: "code" for the code actions on a selection.
   */
  async submitWithMentions(
    prompt: string,
    resolve: MentionResolver,
    work: WorkKind = 'chat',
  ): Promise<SetupProblem | undefined> {
    if (this.isRunning) return this.submit(prompt);
    this.lastResolver = resolve;
    return this.submitWith(prompt, await resolveMentions(prompt, resolve), work);
  }

  private async submitWith(
    prompt: string,
    context: ResolvedContext | undefined,
    work: WorkKind,
  ): Promise<SetupProblem | undefined> {
    // A prompt typed while the agent works interrupts it and redirects it (SPEC 1.1, 2.6).
    if (this.isRunning && this.conversation) {
      this.track(this.conversation.interrupt(prompt));
      return undefined;
    }
    // Remembered before the setup check, so "Set API Key" can send it once the key is there.
    this.lastPrompt = prompt;
    this.lastWork = work;
    // A new conversation reads the policy file again first: its model routes decide the models.
    if (!this.conversation) await this.deps.prepare?.();
    // Settings and the model policy are read at every prompt, so a provider, key or route
    // changed mid-chat applies to the next answer without losing the conversation.
    const routed = await this.routeModels(work);
    if ('reason' in routed) return routed;
    if (this.conversation) {
      this.conversation.useModels(routed);
    } else {
      this.deps.budget?.refresh();
      const [store, system, connected] = await Promise.all([
        this.openStore(),
        this.deps.systemPrompt(),
        // A server that fails is the MCP status's business; the conversation goes on without it.
        this.deps.connectedTools?.().catch(() => []) ?? [],
      ]);
      const parts = new ConversationParts(
        this.deps,
        this.planModeNext ?? this.deps.planModeDefault?.() ?? false,
        connected,
        () => this.teams,
      );
      const reopened = this.reopened;
      this.reopened = undefined;
      // What the lead and its teammates share: limits, approvals, tracing, policy and budgets.
      const shared = {
        compactionModel: routed.compaction,
        finalSummaryModel: routed.finalSummary,
        clock: this.deps.clock,
        budget: this.deps.budget,
        hooks: this.deps.hooks,
        limits: () => this.deps.readLimits?.() ?? {},
        approvals: this.approvalGate(),
        tracing: this.tracingSwitch,
        policy: this.deps.toolPolicy,
        assessor: parts.assessor,
      };
      const conversation = new Conversation({
        ...shared,
        model: routed.main,
        work: routed.work,
        subagentModel: routed.subagent,
        id: reopened?.conversation.id ?? this.deps.newId(),
        resume: reopened && { history: reopened.restored.history, nextSeq: reopened.restored.nextSeq },
        system,
        transcripts: this.deps.transcripts,
        tools: parts.tools,
        inboxes: parts.inboxes,
        offerTool: parts.offerTool,
      });
      this.parts = parts;
      this.attach(
        conversation,
        store && {
          store,
          settings: { ...reopened?.conversation.settings, provider: routed.providerId, model: routed.main.model },
          resume: reopened && { conversation: reopened.conversation, nextSeq: reopened.restored.nextSeq },
        },
      );
      parts.bind(
        conversation,
        (spec) =>
          new Conversation({
            ...shared,
            // Teammates do delegated work: the model policy's sub-agent model.
            model: routed.subagent,
            work: 'subagent',
            id: conversation.id,
            agentId: spec.name,
            system: `${system}\n\n${spec.brief}`,
            tools: spec.tools,
            inboxes: [spec.inbox],
            offerTool: parts.offerTeammateTool,
            subagents: false,
          }),
      );
    }
    this.parts?.beginTurn();
    this.track(this.conversation!.submit(prompt, context));
    return undefined;
  }

  /** Sends the last prompt again (after an error the user fixed). */
  async retry(): Promise<SetupProblem | undefined> {
    if (this.lastPrompt === undefined) return undefined;
    const resolve = this.lastResolver;
    return resolve
      ? this.submitWithMentions(this.lastPrompt, resolve, this.lastWork)
      : this.submit(this.lastPrompt, this.lastWork);
  }

  /**
   * The model for each kind of work (SPEC 2.3): the policy's route for the kind, else its
   * default, else the settings. Servers are shared between kinds that use the same one. A route
   * that cannot be set up (a key missing for its provider) is a problem, named after the route.
   */
  private async routeModels(work: WorkKind): Promise<RoutedModels | SetupProblem> {
    const settings = this.deps.readSettings();
    const policy = this.deps.modelPolicy?.();
    const baseUrls = this.deps.providerBaseUrls?.() ?? {};
    const clients = new Map<string, LlmClient>();
    const keys = new Set<string>();
    let providerId = settings.provider;
    const bind = async (kind: WorkKind): Promise<ModelBinding | SetupProblem> => {
      const route = routeModel(kind, settings, policy, baseUrls);
      const provider = route.settings.provider.trim();
      const apiKey = await this.deps.secrets.getApiKey(provider);
      const setup = createLlmClient(route.settings, apiKey, this.deps.readConnection?.());
      if (!setup.ok) {
        const why =
          route.source === 'settings'
            ? setup.message
            : `The model policy sends ${kind.replace('_', ' ')} work to ${provider}/${route.settings.model}: ${setup.message}`;
        return { reason: setup.reason, message: why };
      }
      if (apiKey) keys.add(apiKey);
      if (kind === work) providerId = setup.preset.id;
      const server = `${setup.preset.id}\n${setup.baseUrl ?? ''}`;
      if (!clients.has(server)) clients.set(server, setup.client);
      return { llm: clients.get(server)!, model: setup.model };
    };
    const main = await bind(work);
    if ('reason' in main) return main;
    const compaction = await bind('compaction');
    if ('reason' in compaction) return compaction;
    const finalSummary = await bind('final_summary');
    if ('reason' in finalSummary) return finalSummary;
    const subagent = await bind('subagent');
    if ('reason' in subagent) return subagent;
    this.apiKeysInUse = [...keys];
    return { main, work, compaction, finalSummary, subagent, providerId };
  }

  stop(): void {
    this.conversation?.stop();
  }

  /** Starts over: the next prompt opens a new conversation with the settings of that moment. */
  reset(): void {
    // The old conversation's background jobs end with it.
    this.track(this.parts?.dispose());
    this.parts = undefined;
    this.planModeNext = undefined;
    this.clearSwitches();
    this.reopened = undefined;
    this.track(this.recorder?.flush());
    this.recorder = undefined;
    this.conversation?.stop();
    this.unsubscribe?.();
    this.conversation = undefined;
    this.unsubscribe = undefined;
    this.events = [];
    this.lastPrompt = undefined;
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
        secrets: () => this.apiKeysInUse,
        onError: (error) => this.deps.onStoreError?.(error),
      });
    this.recorder = recorder;
    this.unsubscribe = conversation.subscribe((event) => {
      this.events.push(event);
      recorder?.record(event);
      for (const listener of this.eventListeners) listener(event);
      this.parts?.observe(event);
    });
  }

  /** Saved conversations, newest first; `search` matches titles and text. */
  async listConversations(options: { search?: string; limit?: number } = {}): Promise<StoredConversation[]> {
    const store = await this.openStore();
    return (await store?.listConversations({ limit: options.limit ?? 200, search: options.search || undefined })) ?? [];
  }

  /**
   * Reopens a saved conversation: surfaces show it as it was (after a reset), and the next
   * prompt continues it with its history. False when it is not in the store.
   */
  async open(id: string): Promise<boolean> {
    const store = await this.openStore();
    const stored = await store?.getConversation(id);
    if (!store || !stored) return false;
    const restored = restoreConversation(id, await store.listMessages(id));
    this.reset();
    this.reopened = { conversation: stored, restored };
    this.events = [...restored.events];
    for (const event of restored.events) for (const listener of this.eventListeners) listener(event);
    return true;
  }

  async renameConversation(id: string, title: string): Promise<void> {
    const store = await this.openStore();
    const stored = await store?.getConversation(id);
    if (store && stored) await store.saveConversation({ ...stored, title: title.trim() || stored.title });
  }

  /** Deletes a saved conversation; deleting the one on screen starts a new chat. */
  async deleteConversation(id: string): Promise<void> {
    if (this.currentId === id) this.reset();
    const store = await this.openStore();
    await store?.deleteConversation(id);
  }

  /** The id of the conversation on screen (running or reopened), if any. */
  get currentId(): string | undefined {
    return this.conversation?.id ?? this.reopened?.conversation.id;
  }

  /** A file as a turn of the current conversation found it, for "Open Diff" (undefined: not kept). */
  turnFileBefore(turn: number, relativePath: string): { absolute: string; text: string | null } | undefined {
    return this.parts?.checkpoints?.before(turn, relativePath);
  }

  /** Compacts the current conversation now (or at the next turn, while it runs). False when there is none. */
  async compact(focus?: string): Promise<boolean> {
    if (!this.conversation) return false;
    await this.conversation.compact(focus);
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
    this.notifySwitches();
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
    await Promise.all([this.parts?.dispose(), ...this.ending]);
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
    await this.recorder?.flush();
  }

  // Per-conversation switches of the developer panel (plan mode is above). A new conversation
  // starts with them off.
  private autoApprove = false;
  private tracing = false;
  private teams = false;
  private apiKeysInUse: string[] = [];
  private lastWork: WorkKind = 'chat';
  private readonly switchListeners = new Set<() => void>();

  /** Whether the current conversation's tool calls are approved without asking (protected paths still ask). */
  get autoApproveActive(): boolean {
    return this.autoApprove;
  }

  setAutoApprove(on: boolean): void {
    this.autoApprove = on;
    this.notifySwitches();
  }

  /** Whether the lead may start teammates in the current conversation (SPEC 2.8, opt-in). */
  get teamsActive(): boolean {
    return this.teams;
  }

  /** Offers the team tools from the next model call on; switching off leaves running teammates be. */
  setTeams(on: boolean): void {
    this.teams = on;
    this.notifySwitches();
  }

  /** Whether the current conversation's model calls are traced (llm_request / llm_response events). */
  get tracingActive(): boolean {
    return this.tracing;
  }

  /** Applies from the next model call on, mid-run included. */
  setTracing(on: boolean): void {
    this.tracing = on;
    this.notifySwitches();
  }

  /** Fires when plan mode, auto-approve or tracing is switched, or a new conversation resets them. */
  onSwitchesChange(listener: () => void): () => void {
    this.switchListeners.add(listener);
    return () => this.switchListeners.delete(listener);
  }

  private notifySwitches(): void {
    for (const listener of this.switchListeners) listener();
  }

  private clearSwitches(): void {
    this.autoApprove = false;
    this.tracing = false;
    this.teams = false;
    this.notifySwitches();
  }

  /** The host's gate, auto-approving while the switch is on for the conversation on screen. */
  private approvalGate(): ApprovalGate | undefined {
    const gate = this.deps.approvals;
    return gate && new AutoApprovalGate(gate, (id) => this.autoApprove && id === this.currentId);
  }

  /** Read at each model call, so the switch applies live; the key in use is redacted from traces. */
  private readonly tracingSwitch = {
    enabled: () => this.tracing,
    secrets: () => this.apiKeysInUse,
  };

  private async openStore(): Promise<ConversationStore | undefined> {
    try {
      return await this.deps.store?.();
    } catch (error) {
      this.deps.onStoreError?.(error);
      return undefined;
    }
  }
}
