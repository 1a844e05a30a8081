/**
 * Side questions (`/btw`) of a session: each is answered by one model call on a snapshot of the
 * conversation on screen (side-question.ts), beside whatever the agent is doing. The running
 * turn never sees them: they take no part in its history, its events, its store messages, its
 * replay recording or its Stop — each has its own abort signal, stopped only through `stop`.
 *
 * They are still paid for: the call is checked against the budgets before it is sent (a spent
 * budget refuses it with the usual message), and its usage is recorded in the store — counted
 * in the conversation's, the day's and the month's spending — with an audit record of a model
 * call marked `sideQuestion: true`.
 *
 * At most MAX_ANSWERING are answered at once; up to MAX_WAITING more wait their turn, in order;
 * beyond that a question is refused (a burst of them must not become a burst of paid calls).
 */
import { isAbortError, throwIfAborted, untilAborted } from '../abort';
import type { ModelBinding } from '../agent/agent-loop';
import { OUTPUT_ALLOWANCE_TOKENS } from '../agent/conversation';
import { estimateInputTokens, withMetering, type MeteredCall } from '../agent/metered-llm';
import {
  answerSideQuestion,
  cleanSideAnswer,
  cleanSideQuestion,
  ignoredToolsNote,
  SIDE_ANSWER_MAX_OUTPUT_TOKENS,
  sideQuestionProblem,
} from '../agent/side-question';
import type { TokenUsage } from '../events/usage';
import { withCoalescedText } from '../llm/coalesce-text';
import type { ModelMessage } from '../llm/llm-client';
import { costOf, priceOf } from '../llm/model-info';
import { redactKnown } from '../llm/redact';
import { withRetry, type RetryOptions } from '../llm/retry';
import type { SecretMatcher } from '../llm/secret-matcher';
import { withSecretsWithheld } from '../llm/withheld-secrets';
import { BudgetExceededError, budgetMessage, type BudgetGuard } from '../policy/budget';
import type { Clock, ConversationStore, TeamStamp } from '../ports';
import type { HeldSecrets } from '../llm/held-secrets';
import { routeModels, type ModelRoutingDeps } from './model-routing';
import { totalTokens } from '../events/usage';

export const MAX_ANSWERING = 2;
export const MAX_WAITING = 8;
/** How much of a question a side answer repeats (surfaces show it above the answer). */
const SHOWN_QUESTION_CHARS = 500;

/** The conversation as it is when the question is asked. */
export interface SideQuestionContext {
  conversationId: string;
  system: string;
  history: ModelMessage[];
}

export interface SideQuestionsDeps {
  /** A copy of the conversation on screen; undefined when there is none yet. */
  context(): Promise<SideQuestionContext | undefined>;
  /** The model that answers (the chat's, routed now); a string: why there is none. */
  model(): Promise<ModelBinding | string>;
  budget?: BudgetGuard;
  store?: () => Promise<ConversationStore | undefined>;
  onStoreError?: (error: unknown) => void;
  team?: () => TeamStamp | undefined;
  /** Every secret the product holds: kept from the model and from the answer shown. */
  secrets: () => SecretMatcher;
  now(): number;
  retry?: Partial<RetryOptions>;
}

export type SideAnswerStatus = 'waiting' | 'answering' | 'answered' | 'refused' | 'failed' | 'stopped';

/** A side question and where its answer stands; every change goes to `onUpdate` listeners. */
export interface SideAnswer {
  id: string;
  /** The question as asked (cut when long). */
  question: string;
  status: SideAnswerStatus;
  /** The answer so far (secrets held by the product redacted). */
  text: string;
  /** Why it was refused or failed; a note on an answer (tool calls ignored, budget warnings). */
  note?: string;
  /** What the call used, once it ended. */
  usage?: { inputTokens: number; outputTokens: number; costUsd: number; model: string };
}

export class SideQuestions {
  private readonly listeners = new Set<(answer: SideAnswer) => void>();
  private readonly answering = new Map<string, AbortController>();
  private readonly waiting: Array<{
    answer: SideAnswer;
    question: string;
    resolve: (answer: SideAnswer | Promise<SideAnswer>) => void;
  }> = [];
  private readonly pending = new Set<Promise<unknown>>();
  private counter = 0;

  constructor(private readonly deps: SideQuestionsDeps) {}

  onUpdate(listener: (answer: SideAnswer) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** How many are being answered or wait. */
  get active(): number {
    return this.answering.size + this.waiting.length;
  }

  /**
   * Asks a side question; resolves with its final state (answered, refused, failed or stopped).
   * Never rejects: every problem is a status with a note.
   */
  ask(raw: string): Promise<SideAnswer> {
    const question = cleanSideQuestion(raw);
    const answer: SideAnswer = {
      id: `side-${++this.counter}`,
      question: question.length > SHOWN_QUESTION_CHARS ? `${question.slice(0, SHOWN_QUESTION_CHARS)}…` : question,
      status: 'waiting',
      text: '',
    };
    const problem = sideQuestionProblem(question);
    if (problem) return Promise.resolve(this.finish(answer, 'refused', problem));
    if (this.answering.size >= MAX_ANSWERING && this.waiting.length >= MAX_WAITING)
      return Promise.resolve(
        this.finish(
          answer,
          'refused',
          `Too many side questions at once (${MAX_ANSWERING} being answered, ${MAX_WAITING} waiting): ask again when one is answered.`,
        ),
      );
    const done = new Promise<SideAnswer>((resolve) => {
      if (this.answering.size < MAX_ANSWERING) resolve(this.answer(answer, question));
      else {
        this.waiting.push({ answer, question, resolve });
        this.tell(answer);
      }
    });
    this.track(done);
    return done;
  }

  /** Stops one side question (waiting or being answered), or all of them. The main turn is untouched. */
  stop(id?: string): void {
    for (const [key, controller] of this.answering) if (id === undefined || key === id) controller.abort();
    for (let index = this.waiting.length - 1; index >= 0; index--) {
      const entry = this.waiting[index]!;
      if (id !== undefined && entry.answer.id !== id) continue;
      this.waiting.splice(index, 1);
      entry.resolve(this.finish(entry.answer, 'stopped', 'Stopped before it was sent.'));
    }
  }

  /** Resolves once every side question asked so far has ended. */
  async settled(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }

  private async answer(answer: SideAnswer, question: string): Promise<SideAnswer> {
    const controller = new AbortController();
    this.answering.set(answer.id, controller);
    const notes: string[] = [];
    try {
      answer.status = 'answering';
      this.tell(answer);
      const [context, model] = await untilAborted(
        Promise.all([this.deps.context(), this.deps.model()]),
        controller.signal,
      );
      if (!context)
        return this.finish(
          answer,
          'refused',
          'There is no conversation yet to ask about: a side question is answered from the conversation in progress. Send a prompt first.',
        );
      if (typeof model === 'string') return this.finish(answer, 'refused', model);
      throwIfAborted(controller.signal);
      const reply = await answerSideQuestion({
        llm: this.metered(model, context.conversationId, answer, notes),
        model: model.model,
        system: context.system,
        history: context.history,
        question,
        signal: controller.signal,
        maxOutputTokens: SIDE_ANSWER_MAX_OUTPUT_TOKENS,
        onText: (text) => {
          answer.text = this.redact(text);
          this.tell(answer);
        },
      });
      answer.text = this.redact(reply.text);
      const ignored = ignoredToolsNote(reply.ignoredToolCalls);
      if (ignored) notes.push(ignored);
      if (!reply.text && !ignored) notes.push('The model gave no answer.');
      if (reply.stopReason === 'max_tokens') notes.push('The answer was cut at its length limit.');
      return this.finish(answer, 'answered', notes.join(' ') || undefined);
    } catch (error) {
      if (controller.signal.aborted || isAbortError(error)) return this.finish(answer, 'stopped', 'Stopped.');
      const message = this.redact(error instanceof Error ? error.message : String(error));
      // A spent budget: its own message says which limit and how to raise it.
      if (error instanceof BudgetExceededError) return this.finish(answer, 'refused', message);
      return this.finish(answer, 'failed', [...notes, message].join(' '));
    } finally {
      this.answering.delete(answer.id);
      const next = this.waiting.shift();
      if (next) next.resolve(this.answer(next.answer, next.question));
    }
  }

  /** The answering model behind the budget check and the usage record, with held secrets withheld. */
  private metered(model: ModelBinding, conversationId: string, answer: SideAnswer, notes: string[]) {
    const { budget } = this.deps;
    const budgetNote = (body: Parameters<typeof budgetMessage>[0]) => notes.push(budgetMessage(body));
    const client = withRetry(withSecretsWithheld(withCoalescedText(model.llm), this.deps.secrets), this.deps.retry);
    return withMetering(client, 'chat', {
      before: async (request, call) => {
        if (!budget?.active) return undefined;
        const tokens = estimateInputTokens(request);
        const price = priceOf(call.provider, request.model);
        const usd = costOf(price, usageOf(tokens, 0));
        const answerTokens = Math.min(request.maxOutputTokens, OUTPUT_ALLOWANCE_TOKENS);
        const allowance = { usd: costOf(price, usageOf(0, answerTokens)), tokens: answerTokens };
        return budget.beforeCall(conversationId, { usd, tokens }, budgetNote, allowance);
      },
      after: (call, reservation) => this.record(call, reservation, conversationId, answer, budgetNote),
      now: () => this.deps.now(),
    });
  }

  /** The call's usage: the answer shows it, the store counts it, the budgets add it up. */
  private async record(
    call: MeteredCall,
    reservationId: string | undefined,
    conversationId: string,
    answer: SideAnswer,
    budgetNote: (body: Parameters<typeof budgetMessage>[0]) => void,
  ): Promise<void> {
    const costUsd = costOf(priceOf(call.provider, call.model), call.usage);
    answer.usage = {
      inputTokens: call.usage.inputTokens + call.usage.cacheReadTokens + call.usage.cacheWriteTokens,
      outputTokens: call.usage.outputTokens,
      costUsd,
      model: call.model,
    };
    const time = this.deps.now();
    // Unique across sessions and windows writing to one store.
    const id = `${conversationId}-side-${time}-${this.counter}-${Math.random().toString(36).slice(2, 10)}`;
    const team = this.deps.team?.();
    const writes = async () => {
      const store = await this.deps.store?.();
      if (!store) return;
      await store.recordUsage({
        id: `${id}-usage`,
        conversationId,
        provider: call.provider,
        model: call.model,
        ...call.usage,
        costUsd,
        time,
        ...(reservationId ? { reservationId } : {}),
        ...(team ? { team } : {}),
      });
      await store.recordAudit({
        id: `${id}-audit`,
        conversationId,
        time,
        kind: 'model_call',
        data: {
          agentId: 'lead',
          provider: call.provider,
          model: call.model,
          work: call.work,
          sideQuestion: true,
          ...call.usage,
          costUsd,
          reported: call.reported,
          latencyMs: call.durationMs,
          ...(call.error !== undefined ? { failure: isAbortError(call.error) ? 'interrupted' : 'failed' } : {}),
        },
        ...(team ? { team } : {}),
      });
    };
    await writes().catch((error: unknown) => this.deps.onStoreError?.(error));
    await this.deps.budget?.afterCall(conversationId, { usd: costUsd, tokens: totalTokens(call.usage) }, budgetNote);
  }

  private finish(answer: SideAnswer, status: SideAnswerStatus, note: string | undefined): SideAnswer {
    answer.status = status;
    if (note) answer.note = note;
    else delete answer.note;
    this.tell(answer);
    return answer;
  }

  private tell(answer: SideAnswer): void {
    const copy: SideAnswer = { ...answer, ...(answer.usage ? { usage: { ...answer.usage } } : {}) };
    for (const listener of this.listeners) {
      try {
        listener(copy);
      } catch {
        // A faulty surface must not break the answer or the other surfaces.
      }
    }
  }

  private redact(text: string): string {
    return cleanSideAnswer(redactKnown(text, this.deps.secrets()));
  }

  private track(work: Promise<unknown>): void {
    const settled: Promise<unknown> = work.finally(() => this.pending.delete(settled));
    this.pending.add(settled);
  }
}

/** A session's side questions: the chat's model routed at each question, the session's budget, store and secrets. */
export function sideQuestionsOf(
  deps: ModelRoutingDeps & {
    budget?: BudgetGuard;
    onStoreError?: (error: unknown) => void;
    teamStamp?: () => TeamStamp | undefined;
    clock: Clock;
  },
  heldSecrets: HeldSecrets,
  context: () => Promise<SideQuestionContext | undefined>,
  store: () => Promise<ConversationStore | undefined>,
): SideQuestions {
  return new SideQuestions({
    context,
    model: async () => {
      // Read now, as for a prompt: a provider, key or route changed mid-chat applies.
      const routed = await routeModels(deps, 'chat');
      if ('reason' in routed) return routed.message;
      heldSecrets.add(...routed.apiKeys);
      return routed.main;
    },
    budget: deps.budget,
    store,
    onStoreError: (error) => deps.onStoreError?.(error),
    team: () => deps.teamStamp?.(),
    secrets: heldSecrets.matcher,
    now: () => deps.clock.now(),
  });
}

function usageOf(inputTokens: number, outputTokens: number): TokenUsage {
  return { inputTokens, outputTokens, cacheReadTokens: 0, cacheWriteTokens: 0 };
}
