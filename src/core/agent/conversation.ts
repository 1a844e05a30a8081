/**
 * A conversation with the agent: its history, one run at a time, and the events it emits.
 * `submit` answers a prompt through the agent loop; `interrupt` stops the run and, with
 * feedback, redirects it; `compact` shrinks the history on request. Everything a surface shows
 * comes from `subscribe`.
 */
import type { ImagePart, LlmClient, LlmRequest, ModelMessage, ModelServerInfo } from '../llm/llm-client';
import { withRetry, type RetryOptions } from '../llm/retry';
import { withTracing } from '../llm/tracing';
import { withSecretsWithheld } from '../llm/withheld-secrets';
import { withCoalescedText } from '../llm/coalesce-text';
import { withTextToolCalls } from '../llm/text-tool-calls/with-text-tool-calls';
import type { ApprovalGate, ToolPolicy } from '../policy/approval';
import type { CallAssessor } from '../policy/call-risk';
import { defaultToolPolicy } from '../policy/approval';
import type { Clock, TranscriptSink } from '../ports';
import { createCompactTool } from '../tools/builtin/compact';
import { thinkTool } from '../tools/builtin/think';
import { ToolRegistry } from '../tools/registry';
import type { AnyTool } from '../tools/tool';
import {
  compactInPlace,
  DEFAULT_LIMITS,
  runAgentLoop,
  type AgentLimits,
  type LoopDeps,
  type ModelBinding,
} from './agent-loop';
import type { AgentEventBody } from '../events/events';
import type { TeamReport } from '../teams/team';
import type { Inbox } from '../events/inbox';
import { Hooks } from './hooks';
import { callFailure, describe, errorKind } from './run-errors';
import { vetPrompt } from './vet-prompt';
import { createSubagentTool } from './subagents';
import { appendUserText, promptWithContext } from './history';
import { appendUserImages } from '../images/user-images';
import { withImageSupport } from '../images/with-image-support';
import { totalTokens } from '../events/usage';
import { UsageMeter } from './usage-meter';
import { withMetering, estimateInputTokens, type MeteredCall } from './metered-llm';
import type { BudgetGuard } from '../policy/budget';
import type { WorkKind } from '../policy/model-routes';
import { costOf, priceOf } from '../llm/model-info';
import { ContextMeasure } from './context/context-measure';
import { CallInsights } from './call-insights';
import { redactValue, type KnownSecrets } from '../llm/redact';
import { matcherOfKnown } from '../llm/held-secrets';
import { ConversationEvents, type EventListener } from './conversation-events';
import type { RunRecorder } from '../replay/run-recorder';

export type { EventListener } from './conversation-events';

/**
 * The answer tokens a team budget reservation holds for a call (at most the request's maximum):
 * an answer longer than this is the only way a team budget can be passed, by its excess.
 */
export const OUTPUT_ALLOWANCE_TOKENS = 8_192;

export interface ConversationOptions {
  id: string;
  /** The model that answers. */
  model: ModelBinding;
  /** The kind of work the main model does here (a teammate: subagent); default chat. */
  work?: WorkKind;
  /** Models for other kinds of work (SPEC 2.3 model policy); default: the main model. */
  compactionModel?: ModelBinding;
  finalSummaryModel?: ModelBinding;
  subagentModel?: ModelBinding;
  /** Budgets checked before and after every model call (shared with sub-agents and teammates). */
  budget?: BudgetGuard;
  system: string;
  /** The project rules and memory sections of `system`, for the context meter to tell apart. */
  knowledge?: readonly string[];
  clock: Clock;
  /** Whether the agent may start sub-agents (the `task` tool); teammates may not. */
  subagents?: boolean;
  /** Tools beyond the built-in think, compact and task. */
  tools?: AnyTool[];
  hooks?: Hooks;
  policy?: ToolPolicy;
  /** Assesses each tool call before policy or anyone is asked (call-risk.ts). */
  assessor?: CallAssessor;
  approvals?: ApprovalGate;
  transcripts?: TranscriptSink;
  /** Limits, or a function read at each prompt so changed settings apply; unset keys keep defaults. */
  limits?: Partial<AgentLimits> | (() => Partial<AgentLimits>);
  /** Drained at the top of each turn (background jobs, teammate inbox). */
  inboxes?: Inbox[];
  /** Whether model calls are traced, read at each call; secrets to redact from traces. */
  tracing?: { enabled: () => boolean; secrets?: () => KnownSecrets };
  retry?: Partial<RetryOptions>;
  /** Records every model call attempt for replay (its tool calls and prompts come from the events). */
  recorder?: Pick<RunRecorder, 'wrapModel'>;
  /** Which tools the model is offered, read at each prompt (untrusted workspace, plan mode: read-only). */
  offerTool?: (tool: AnyTool) => boolean;
  agentId?: string;
  /** The user's say on whether a model takes images (a setting); undefined: model-info guesses. */
  acceptsImages?: (model: string) => boolean | undefined;
  /**
   * Keeps images in the store before an event names them (the prompt's, a tool result's): the
   * session's ImageKeeper, which never throws (a failing store is told once; the run goes on).
   */
  keepImages?: (images: readonly ImagePart[]) => Promise<void>;
  /** A reopened conversation: the history to continue from, and where its event numbers go on. */
  resume?: { history: ModelMessage[]; nextSeq: number };
}

export class Conversation {
  readonly id: string;
  readonly hooks: Hooks;
  readonly tools: ToolRegistry;
  /** Usage and cost over the whole conversation. */
  readonly meter = new UsageMeter();
  private readonly history: ModelMessage[] = [];
  /** Every event, numbered, stamped, redacted and given to subscribers (conversation-events.ts). */
  private readonly events: ConversationEvents;
  private readonly agentId: string;
  /** The main model's window and the requests' sizes, as its server counts them. */
  private readonly context = new ContextMeasure(() => this.configuredLimits().contextWindow);
  /** Each call's context breakdown, cache breaks and cost warnings. */
  private readonly insights: CallInsights;
  private running: AbortController | undefined;
  private pendingFeedback: string[] = [];
  private compactionRequest: { focus?: string } | undefined;
  /** The loop dependencies of the run in progress (sub-agents derive theirs from them). */
  private runDeps: LoopDeps | undefined;
  private main!: ModelBinding;
  private compaction: ModelBinding | undefined;
  private finalSummaryModel: ModelBinding | undefined;
  private subagentModel: ModelBinding | undefined;
  /** The usage of the prompt being answered (its token budget, its `turn` usage event). */
  private runMeter: UsageMeter | undefined;
  constructor(private readonly options: ConversationOptions) {
    this.id = options.id;
    this.events = new ConversationEvents(options.id, options.clock, this.secrets);
    this.agentId = options.agentId ?? 'lead';
    this.hooks = options.hooks ?? new Hooks();
    this.insights = new CallInsights({
      context: this.context,
      knowledge: options.knowledge ?? [],
      warnAboveUsd: () => this.configuredLimits().callCostWarningUsd,
      emit: (body) => this.emit(body),
      now: () => this.options.clock.now(),
    });
    this.tools = new ToolRegistry([
      thinkTool,
      createCompactTool((focus) => (this.compactionRequest = { focus })),
      ...(options.subagents === false
        ? []
        : [
            createSubagentTool({
              runDeps: () => this.runDeps,
              emit: (body, agentId) => this.emit(body, agentId),
              nextSubagentId: () => `sub-${this.events.seq}`,
            }),
          ]),
      ...(options.tools ?? []),
    ]);
    if (options.resume) {
      this.history.push(...structuredClone(options.resume.history));
      this.events.seq = options.resume.nextSeq;
    }
    this.useModels({
      main: options.model,
      work: options.work,
      compaction: options.compactionModel,
      finalSummary: options.finalSummaryModel,
      subagent: options.subagentModel,
    });
  }

  get isRunning(): boolean {
    return this.running !== undefined;
  }

  /** A copy of the model-facing history. */
  get messages(): readonly ModelMessage[] {
    return structuredClone(this.history);
  }

  /** The system prompt (rules, memory), for a side question about this conversation. */
  get systemPrompt(): string {
    return this.options.system;
  }

  /** Switches the model for the next run; the history carries over. */
  useModel(model: ModelBinding, work: WorkKind = 'chat'): void {
    this.main = this.wrap(model, work);
  }

  /** Switches every model (model policy routes) for the next run; unset kinds use the main model. */
  useModels(models: {
    main: ModelBinding;
    work?: WorkKind;
    compaction?: ModelBinding;
    finalSummary?: ModelBinding;
    subagent?: ModelBinding;
  }): void {
    this.main = this.wrap(models.main, models.work ?? this.options.work ?? 'chat');
    this.compaction = this.wrap(models.compaction ?? models.main, 'compaction');
    this.finalSummaryModel = this.wrap(models.finalSummary ?? models.main, 'final_summary');
    this.subagentModel = this.wrap(models.subagent ?? models.main, 'subagent');
  }

  /** Subscribes to every event from now on; returns the unsubscribe function. */
  subscribe(listener: EventListener): () => void {
    return this.events.subscribe(listener);
  }

  /**
   * Answers a prompt: runs the agent loop until the model is done, the turns run out, the user
   * stops it or something fails. Resolves when the run has ended, whichever way; never rejects
   * (failures arrive as `error` events) except when a run is already in progress. `retryOf`:
   * the prompt is sent again by Retry, for the run that ended with that `error` event.
   */
  async submit(
    prompt: string,
    context?: { labels: string[]; text: string },
    options: { retryOf?: number; images?: ImagePart[] } = {},
  ): Promise<void> {
    if (this.running) throw new Error('A run is already in progress in this conversation.');
    let controller = new AbortController();
    this.running = controller;
    const meter = new UsageMeter();
    this.runMeter = meter;
    this.insights.beginRun();
    const mark = this.markHistory();
    let turns = 0;
    try {
      const vetted = await vetPrompt(prompt, controller, {
        hooks: this.hooks,
        conversationId: this.id,
        interrupted: () => this.interrupted(),
        restarted: (next) => (this.running = next),
      });
      if (!vetted) return;
      ({ controller } = vetted);
      const { decision } = vetted;
      if (decision && 'block' in decision) {
        this.emit({ type: 'error', kind: 'hook', message: `The prompt was blocked by a hook: ${decision.block}` });
        return;
      }
      const text = decision && 'prompt' in decision ? decision.prompt : prompt;
      // Attached context follows the prompt for the model (with what hooks added); the chat shows only its labels.
      const hookContext = decision && 'context' in decision ? decision.context : undefined;
      appendUserText(
        this.history,
        promptWithContext(text, [context?.text, hookContext].filter(Boolean).join('\n\n') || undefined),
      );
      const images = appendUserImages(this.history, options.images ?? []);
      if (images.length) await this.options.keepImages?.(options.images!);
      this.emit({
        type: 'user_message',
        text,
        ...(images.length ? { images } : {}),
        ...(context?.labels.length ? { attachments: context.labels } : {}),
        ...(context?.text ? { context: context.text } : {}),
        ...(hookContext ? { hookContext } : {}),
        ...(options.retryOf !== undefined ? { retryOf: options.retryOf } : {}),
      });
      for (;;) {
        try {
          this.runDeps = this.loopDeps(meter);
          const outcome = await runAgentLoop(this.history, this.runDeps, controller.signal);
          turns += outcome.turns;
          this.emitRunUsage(meter);
          this.emit({ type: 'done', stopReason: outcome.stopReason, turns });
          return;
        } catch (error) {
          if (!controller.signal.aborted) throw error;
          const feedback = this.interrupted(() => this.emitRunUsage(meter));
          if (!feedback) return;
          // Interrupt with feedback: the loop goes on with the user's words as the next message.
          appendUserText(this.history, feedback);
          this.emit({ type: 'user_message', text: feedback });
          controller = new AbortController();
          this.running = controller;
        }
      }
    } catch (error) {
      // A prompt that got no answer at all leaves no trace in the history, so Retry sends it once.
      this.rollBackIfUnanswered(mark);
      this.emitRunUsage(meter);
      this.emit({ type: 'error', message: describe(error), kind: errorKind(error) });
    } finally {
      this.running = undefined;
      this.runDeps = undefined;
      this.runMeter = undefined;
      this.pendingFeedback = [];
    }
  }

  /** Ends the run's wait as Stop or a redirect asked: the user's words, if any, go on. */
  private interrupted(beforeStop?: () => void): string {
    const feedback = this.pendingFeedback.splice(0).join('\n\n');
    // The run's usage first: the run's last event says how it ended.
    if (!feedback) beforeStop?.();
    this.emit({
      type: 'interrupted',
      reason: feedback ? 'Redirected by the user.' : 'Stopped by the user.',
      ...(feedback ? { feedback } : {}),
    });
    return feedback;
  }

  private markHistory(): { length: number; lastParts: number } {
    return { length: this.history.length, lastParts: this.history.at(-1)?.content.length ?? 0 };
  }

  private rollBackIfUnanswered(mark: { length: number; lastParts: number }): void {
    const added = this.history.slice(mark.length);
    if (added.some((message) => message.role === 'assistant')) return;
    this.history.splice(mark.length);
    const last = this.history.at(-1);
    // A new array, never an edit in place: conversions and size estimates are cached per array.
    if (last?.role === 'user') last.content = last.content.slice(0, mark.lastParts);
  }

  /** Stops the current run at once (aborts the HTTP stream and the running tool). Idempotent. */
  stop(): void {
    this.running?.abort();
  }

  /**
   * Stops the current run and continues it with `feedback` as the user's next message: the
   * partial answer stays, unfinished tool calls are dropped. Without a run, it is a prompt.
   */
  interrupt(feedback: string): Promise<void> | undefined {
    if (!this.running) return this.submit(feedback);
    this.pendingFeedback.push(feedback);
    this.running.abort();
    return undefined;
  }

  /** Compacts now if idle, or at the start of the next turn if a run is in progress. */
  async compact(focus?: string): Promise<void> {
    if (this.running) {
      this.compactionRequest = { focus };
      return;
    }
    if (this.history.length === 0) return;
    const controller = new AbortController();
    this.running = controller;
    try {
      await compactInPlace(this.history, this.compactionDeps(), 'manual', focus, controller.signal);
    } catch (error) {
      this.emit({ type: 'error', message: describe(error), kind: errorKind(error) });
    } finally {
      this.running = undefined;
    }
  }

  /** The limits as configured now (unset keys absent). */
  private configuredLimits(): Partial<AgentLimits> {
    return typeof this.options.limits === 'function' ? this.options.limits() : (this.options.limits ?? {});
  }

  private loopDeps(meter: UsageMeter): LoopDeps {
    const configured = this.configuredLimits();
    const limits: AgentLimits = { ...DEFAULT_LIMITS };
    for (const [key, value] of Object.entries(configured) as Array<[keyof AgentLimits, number | undefined]>) {
      if (value !== undefined) limits[key] = value;
    }
    return {
      ...this.compactionDeps(),
      agentId: this.agentId,
      main: this.main,
      finalSummary: this.finalSummaryModel ?? this.main,
      subagent: this.subagentModel ?? this.main,
      system: this.options.system,
      limits,
      tools: this.tools,
      isOffered: (tool) => this.options.offerTool?.(tool) ?? true,
      hooks: this.hooks,
      policy: this.options.policy ?? defaultToolPolicy,
      ...(this.options.assessor ? { assess: this.assessCall } : {}),
      approvals: this.options.approvals,
      maxToolOutputChars: limits.maxToolOutputChars,
      inboxes: this.options.inboxes ?? [],
      takeCompactionRequest: () => {
        const request = this.compactionRequest;
        this.compactionRequest = undefined;
        return request;
      },
      meter,
      now: () => this.options.clock.now(),
      keepImages: this.options.keepImages,
    };
  }

  private readonly assessCall = (tool: AnyTool, input: unknown) => this.options.assessor!.assess(tool, input, this.id);

  private compactionDeps() {
    const sink = this.options.transcripts;
    return {
      conversationId: this.id,
      compaction: this.compaction ?? this.main,
      // A transcript is a file on disk: keys in use, key-shaped strings and secret assignments go.
      transcripts: sink && {
        save: (id: string, messages: readonly unknown[]) =>
          sink.save(id, redactValue(messages, this.options.tracing?.secrets?.() ?? [])),
      },
      emit: (body: AgentEventBody) => this.emit(body),
      context: this.context,
    };
  }

  /** Before every model call: a budget that would be passed stops it (BudgetExceededError). */
  private async checkBudget(
    request: LlmRequest,
    provider: string,
    server: ModelServerInfo | undefined,
  ): Promise<string | undefined> {
    const estimate = estimateInputTokens(request);
    // The first call to a model that can count tokens calibrates every later estimate.
    await this.context.countOnce(provider, server, request, estimate);
    const budget = this.options.budget;
    if (!budget?.active) return undefined;
    const inputTokens = this.context.scale(provider, request.model, estimate);
    const price = priceOf(provider, request.model);
    const usd = costOf(price, { inputTokens, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 });
    // A team reservation also holds room for the answer, which is not known yet.
    const answerTokens = Math.min(request.maxOutputTokens, OUTPUT_ALLOWANCE_TOKENS);
    const allowance = {
      usd: costOf(price, { inputTokens: 0, outputTokens: answerTokens, cacheReadTokens: 0, cacheWriteTokens: 0 }),
      tokens: answerTokens,
    };
    return budget.beforeCall(this.id, { usd, tokens: inputTokens }, (body) => this.emit(body), allowance);
  }

  /** After every model call (finished or not): its usage event, the meters, the budgets. */
  private async recordCall(call: MeteredCall, reservationId: string | undefined): Promise<void> {
    const served = call.usage.inputTokens + call.usage.cacheReadTokens + call.usage.cacheWriteTokens;
    if (call.reported && served > 0) this.context.observe(call.provider, call.model, call.estimatedInputTokens, served);
    // An estimate (the server said nothing, or the stream was cut) is scaled to the server's count too.
    if (!call.reported)
      call = {
        ...call,
        usage: { ...call.usage, inputTokens: this.context.scale(call.provider, call.model, call.usage.inputTokens) },
      };
    const { context, cacheBreak } = this.insights.after(call);
    const { costUsd, priced } = this.meter.record(call.provider, call.model, call.usage, call.reported);
    this.runMeter?.record(call.provider, call.model, call.usage, call.reported);
    this.emit({
      type: 'usage',
      scope: 'call',
      model: call.model,
      provider: call.provider,
      work: call.work,
      durationMs: call.durationMs,
      usage: call.usage,
      costUsd,
      reported: call.reported && priced,
      ...(reservationId ? { reservationId } : {}),
      ...(call.error !== undefined ? { failure: callFailure(call.error) } : {}),
      ...(context ? { context } : {}),
    });
    if (cacheBreak) this.emit(cacheBreak);
    await this.options.budget?.afterCall(this.id, { usd: costUsd, tokens: totalTokens(call.usage) }, (body) =>
      this.emit(body),
    );
  }

  private emitRunUsage(meter: UsageMeter): void {
    if (meter.calls === 0) return;
    this.emit({
      type: 'usage',
      scope: 'turn',
      model: this.main.model,
      usage: meter.usage,
      costUsd: meter.costUsd,
      reported: meter.reported,
    });
  }

  private wrap(binding: ModelBinding, work: WorkKind): ModelBinding {
    // Calls a local server left in the text become tool calls before anything else sees the
    // answer, so traces, approvals, policy and the audit trail treat them as the server's own.
    // Innermost: a held secret never reaches the server, whatever part of the context carried it.
    // Below everything: text deltas received together go on as one part (coalesce-text.ts).
    let llm: LlmClient = withTextToolCalls(withSecretsWithheld(withCoalescedText(binding.llm), this.secrets));
    if (this.options.tracing) {
      llm = withTracing(llm, {
        emit: (body) => this.emit(body),
        enabled: this.options.tracing.enabled,
        knownSecrets: this.options.tracing.secrets,
        now: () => this.options.clock.now(),
        // Named after the seq its llm_request event is about to get: unique in the conversation
        // across every model it uses, and after it is reopened.
        nextRequestId: () => `llm-${this.events.seq}`,
      });
    }
    const call = { conversationId: this.id, agentId: this.agentId, work };
    if (this.options.recorder) llm = this.options.recorder.wrapModel(llm, call);
    // Tracing and recording inside retry: every attempt, failed ones included, is kept. Metering
    // outside it: one budget check and one usage record per call, however many attempts it took.
    // Images outermost: the trace, the meter and the budget see what is sent (an image, or its note).
    const metered = withMetering(withRetry(llm, this.options.retry), work, {
      before: async (request, call) => {
        const reservation = await this.checkBudget(request, call.provider, call.server);
        await this.insights.before(request, call);
        return reservation;
      },
      after: (call, reservation) => this.recordCall(call, reservation),
      now: () => this.options.clock.now(),
    });
    return { llm: withImageSupport(metered, this.options.acceptsImages), model: binding.model };
  }

  /** Events from beside the loop (a background job, checkpoints, the task board), in the same numbered stream. */
  report(
    body: Extract<
      AgentEventBody,
      {
        type:
          | 'background_result'
          | 'files_changed'
          | 'turn_reverted'
          | 'review_hunks'
          | 'review_decision'
          | 'review_note'
          | 'plan_mode'
          | 'task_update'
          // What a teammate reports to the lead's stream.
          | TeamReport['type'];
      }
    >,
    /** Whose event it is, when not this conversation's agent (a teammate's tool call). */
    agentId?: string,
  ): void {
    this.emit(body, agentId);
  }

  private emit(body: AgentEventBody, agentId = this.agentId): void {
    this.events.emit(body, agentId);
  }

  /** Every secret the product holds (the session's HeldSecrets, through the tracing options). */
  private readonly secrets = matcherOfKnown(() => this.options.tracing?.secrets?.() ?? []);
}
