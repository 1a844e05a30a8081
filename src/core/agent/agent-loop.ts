/**
 * The agent loop (SPEC 2.1), step for step:
 *
 *   while not done:
 *     micro-compact; drain background results and teammate messages; auto-compact if needed
 *     if near the turn limit: add a wrap-up hint
 *     stream the model (text out as events; a truncated answer continues, at most 3 times;
 *       a request the server refuses as too long for its window is compacted and sent once more)
 *     if the model called no tool: done
 *     run the tool calls (hooks, policy, approval) and add their results
 *   when the turns run out: one more call, tools forbidden, for a final summary
 *
 * The history is the caller's array and is kept valid at every exit, including interrupts and
 * failures: partial text stays, tool calls that did not run are dropped.
 */
import { linkedAbort, throwIfAborted } from '../abort';
import type { Inbox } from '../events/inbox';
import {
  LlmError,
  type LlmClient,
  type ModelMessage,
  type ToolDefinition,
  type ToolResultPart,
} from '../llm/llm-client';
import { tokensForChars } from '../llm/token-estimate';
import type { TranscriptSink } from '../ports';
import { compactHistory, SUMMARY_OUTPUT_TOKENS } from './context/compaction';
import { estimateHistoryTokens, toolDefinitionChars } from './context/request-size';
import { fitToolResults, refitAfterRefusal, type FitDeps } from './context/fit-tool-results';
import type { ContextMeasure } from './context/context-measure';
import { microCompact } from './context/micro-compact';
import { appendUserText, commitAssistant, dropToolCalls } from './history';
import { ModelTurn } from './model-turn';
import { executeToolCall, type ToolExecutorDeps } from './tool-executor';
import { totalTokens } from '../events/usage';
import type { UsageMeter } from './usage-meter';

export interface AgentLimits {
  /** Model calls per prompt before the forced final summary. */
  maxTurns: number;
  maxOutputTokens: number;
  /** Total tokens one prompt may use across all its model calls; undefined for no limit. */
  tokenBudget?: number;
  /** Auto-compact when the context passes this fraction of the model's window. */
  compactThreshold: number;
  /** Overrides the model's known context window (local models). */
  contextWindow?: number;
  /** A model call whose input is estimated to cost more than this (USD) is warned about first. */
  callCostWarningUsd?: number;
  maxToolOutputChars: number;
  maxAutoContinues: number;
  /** The wrap-up hint appears this many turns before the limit. */
  wrapUpTurns: number;
}

export const DEFAULT_LIMITS: AgentLimits = {
  maxTurns: 50,
  maxOutputTokens: 8_192,
  compactThreshold: 0.7,
  maxToolOutputChars: 30_000,
  maxAutoContinues: 3,
  wrapUpTurns: 3,
};

export interface ModelBinding {
  llm: LlmClient;
  model: string;
}

export interface LoopDeps extends ToolExecutorDeps {
  main: ModelBinding;
  compaction: ModelBinding;
  finalSummary: ModelBinding;
  system: string;
  limits: AgentLimits;
  /** Sources of messages injected at the top of each turn (background jobs, teammates). */
  inboxes: ReadonlyArray<Inbox>;
  transcripts?: TranscriptSink;
  /** A compaction asked for by the `compact` tool or command; taken once. */
  takeCompactionRequest: () => { focus?: string } | undefined;
  /** Usage of this prompt's run (the conversation's model clients record every call in it). */
  meter: UsageMeter;
  /** The model sub-agents run on (model policy: subagent). */
  subagent: ModelBinding;
  /** Sees each finished model call of this loop (a sub-agent adds up its own usage). */
  onUsage?: (binding: ModelBinding, turn: ModelTurn) => void;
  /** The model's window and the request's size as the server counts them. */
  context: ContextMeasure;
}

export interface LoopOutcome {
  stopReason: string;
  turns: number;
}

/** How often Stop hooks may make one prompt's run go on (a hook that always objects must not loop for ever). */
export const MAX_STOP_CONTINUATIONS = 3;

const CONTINUE_PROMPT =
  'Your answer was cut off by the output limit. Continue exactly where you stopped, without repeating anything.';
const FINAL_SUMMARY_PROMPT =
  'You have reached the turn limit for this request, so stop working now. Give the user a final summary: what you did, ' +
  'what you found, and what is left to do. Do not call tools.';

export async function runAgentLoop(history: ModelMessage[], deps: LoopDeps, signal: AbortSignal): Promise<LoopOutcome> {
  const offered = new OfferedTools(deps);
  let turns = 0;
  let stopContinuations = 0;
  while (turns < deps.limits.maxTurns) {
    turns++;
    // Re-read each turn: approving a plan mid-run (leaving plan mode) offers the writing tools.
    const { tools, toolTokens } = offered.current();
    await prepareContext(history, deps, { tools, toolTokens }, signal);
    if (deps.limits.tokenBudget !== undefined && totalTokens(deps.meter.usage) >= deps.limits.tokenBudget) {
      return { stopReason: 'token_budget', turns: turns - 1 };
    }
    const remaining = deps.limits.maxTurns - turns + 1;
    const hint = remaining <= deps.limits.wrapUpTurns ? wrapUpHint(remaining) : undefined;
    const turn = await callModel(history, deps, tools, signal, hint);
    const assistant = history.at(-1);
    if (turn.toolCalls.length === 0 || assistant?.role !== 'assistant') {
      // Stop hooks may send the agent back to work, a bounded number of times per prompt.
      const again =
        stopContinuations < MAX_STOP_CONTINUATIONS && assistant?.role === 'assistant'
          ? await deps.hooks.stop({
              conversationId: deps.conversationId,
              agentId: deps.agentId,
              continuations: stopContinuations,
              signal,
            })
          : undefined;
      if (!again) return { stopReason: turn.stopReason, turns };
      stopContinuations++;
      appendUserText(history, again.continue);
      continue;
    }
    await runToolCalls(turn, assistant, history, deps, { tools, toolTokens }, signal);
  }
  await finalSummary(history, deps, offered.current().tools, signal);
  return { stopReason: 'max_turns', turns };
}

/** The tool definitions offered now; the same array (and estimate) while the offer is unchanged. */
class OfferedTools {
  private key: string | undefined;
  private value = { tools: [] as ToolDefinition[], toolTokens: 0 };

  constructor(private readonly deps: LoopDeps) {}

  current(): { tools: ToolDefinition[]; toolTokens: number } {
    const tools = this.deps.tools.definitions(this.deps.isOffered);
    const key = tools.map((tool) => tool.name).join('\n');
    if (key !== this.key) {
      this.key = key;
      this.value = { tools, toolTokens: tokensForChars(toolDefinitionChars(tools)) };
    }
    return this.value;
  }
}

/** Micro-compact, inbox messages, then auto or requested compaction. */
async function prepareContext(
  history: ModelMessage[],
  deps: LoopDeps,
  offered: { tools: ToolDefinition[]; toolTokens: number },
  signal: AbortSignal,
): Promise<void> {
  const micro = microCompact(history);
  if (micro.replaced > 0) {
    const after = estimateHistoryTokens(deps.system, history);
    deps.emit({
      type: 'compact',
      kind: 'micro',
      tokensBefore: after + Math.ceil(micro.charsSaved / 4),
      tokensAfter: after,
    });
  }
  const requested = deps.takeCompactionRequest();
  const conversationTokens = estimateHistoryTokens('', history);
  const used = await deps.context.size(
    deps.main,
    {
      model: deps.main.model,
      system: deps.system,
      messages: history,
      tools: offered.tools,
      maxOutputTokens: deps.limits.maxOutputTokens,
      signal,
    },
    conversationTokens + tokensForChars(deps.system.length) + offered.toolTokens,
  );
  const limit = deps.limits.compactThreshold * (await deps.context.window(deps.main, signal));
  throwIfAborted(signal);
  // A window that barely holds the instructions and tools (a small local default) is not helped
  // by summarising a short history before every call; the server says if it does not fit.
  const conversationPart = deps.context.scale(deps.main.llm.provider, deps.main.model, conversationTokens);
  const worthIt = conversationPart >= limit / 4;
  if (requested || (used > limit && worthIt))
    await compactInPlace(history, deps, requested ? 'manual' : 'auto', requested?.focus, signal);
  // Drained after compaction: what arrived (a finished job, the task board after a compaction)
  // reaches the model word for word.
  for (const drain of deps.inboxes) {
    const messages = await drain();
    if (messages.length > 0) appendUserText(history, messages.join('\n\n'));
  }
  throwIfAborted(signal);
}

export async function compactInPlace(
  history: ModelMessage[],
  deps: Pick<LoopDeps, 'conversationId' | 'compaction' | 'transcripts' | 'emit' | 'context'>,
  kind: 'auto' | 'manual',
  focus: string | undefined,
  signal: AbortSignal,
): Promise<void> {
  // The summariser reads the history as text: it must fit the compaction model's window too,
  // with room for its answer (three characters a token: safe for code and numbers).
  const window = await deps.context.window(deps.compaction, signal);
  const result = await compactHistory({
    conversationId: deps.conversationId,
    messages: history,
    llm: deps.compaction.llm,
    model: deps.compaction.model,
    focus,
    transcripts: deps.transcripts,
    signal,
    maxInputChars: Math.max(8_000, (window - SUMMARY_OUTPUT_TOKENS - 1_000) * 3),
  });
  history.splice(0, history.length, ...result.messages);
  deps.emit({
    type: 'compact',
    kind,
    tokensBefore: result.tokensBefore,
    tokensAfter: result.tokensAfter,
    ...(result.transcript ? { transcript: result.transcript } : {}),
  });
}

/** Streams one answer, continuing it (at most maxAutoContinues times) while it is cut off by the output limit. */
async function callModel(
  history: ModelMessage[],
  deps: LoopDeps,
  tools: ToolDefinition[],
  signal: AbortSignal,
  hint: string | undefined,
): Promise<ModelTurn> {
  for (let continuation = 0; ; continuation++) {
    const turn = await streamFitting(history, deps, tools, hint, signal);
    commitAssistant(history, turn, true);
    if (turn.stopReason !== 'max_tokens' || turn.toolCalls.length > 0 || continuation >= deps.limits.maxAutoContinues)
      return turn;
    appendUserText(history, CONTINUE_PROMPT);
  }
}

/**
 * Streams the main model's answer. A server that refuses the request as too long for its window
 * (the window was unknown, set wrong, or a tool result was larger than the estimate) gets the
 * conversation compacted and the request once more; a second refusal is the user's to resolve.
 */
async function streamFitting(
  history: ModelMessage[],
  deps: LoopDeps,
  tools: ToolDefinition[],
  hint: string | undefined,
  signal: AbortSignal,
): Promise<ModelTurn> {
  try {
    return await streamTurn(history, deps, deps.main, { tools, hint, signal });
  } catch (error) {
    if (!(error instanceof LlmError) || error.kind !== 'context_overflow' || signal.aborted) throw error;
    if (error.contextWindow) deps.context.learnWindow(deps.main.llm.provider, deps.main.model, error.contextWindow);
    // Tool results the model has not read yet are cut again first: summarised, it never would.
    const offered = { tools, toolTokens: tokensForChars(toolDefinitionChars(tools)) };
    if (await refitAfterRefusal(history, offered, fitDeps(deps), error, signal)) {
      try {
        return await streamTurn(history, deps, deps.main, { tools, hint, signal });
      } catch (again) {
        if (!(again instanceof LlmError) || again.kind !== 'context_overflow' || signal.aborted) throw again;
      }
    }
    await compactInPlace(history, deps, 'auto', undefined, signal);
  }
  try {
    return await streamTurn(history, deps, deps.main, { tools, hint, signal });
  } catch (error) {
    if (!(error instanceof LlmError) || error.kind !== 'context_overflow') throw error;
    const window = error.contextWindow ? ` (${error.contextWindow.toLocaleString('en-US')} tokens)` : '';
    throw new LlmError(
      `The conversation does not fit the model's context window${window} even after compacting it. ` +
        'Start a new conversation, or give the model a larger window (llama.cpp: --ctx-size; Ollama: num_ctx) ' +
        `and set it in OpenAgent. The server said: ${error.message}`,
      'context_overflow',
      error.status,
      undefined,
      error.contextWindow,
    );
  }
}

async function streamTurn(
  history: ModelMessage[],
  deps: LoopDeps,
  binding: ModelBinding,
  options: { tools: ToolDefinition[]; hint?: string; toolChoice?: 'none'; signal: AbortSignal },
): Promise<ModelTurn> {
  const turn = new ModelTurn(binding.llm, deps.emit);
  // Each call gets its own signal, linked to the run's: SDKs attach a listener per request,
  // and hundreds of calls must not pile listeners onto one long-lived signal. Linked even when
  // the run was stopped already (during a probe or a count): the call must not start then.
  const { controller: call, unlink } = linkedAbort(options.signal);
  try {
    await turn.run({
      model: binding.model,
      system: deps.system,
      messages: options.hint ? withHint(history, options.hint) : history,
      tools: options.tools,
      ...(options.toolChoice ? { toolChoice: options.toolChoice } : {}),
      maxOutputTokens: deps.limits.maxOutputTokens,
      signal: call.signal,
    });
  } catch (error) {
    // Keep what the user already saw; the calls of a broken or interrupted answer never run.
    commitAssistant(history, turn, false);
    throw options.signal.aborted ? (options.signal.reason ?? error) : error;
  } finally {
    unlink();
  }
  deps.onUsage?.(binding, turn);
  return turn;
}

async function runToolCalls(
  turn: ModelTurn,
  assistant: Extract<ModelMessage, { role: 'assistant' }>,
  history: ModelMessage[],
  deps: LoopDeps,
  offered: { tools: ToolDefinition[]; toolTokens: number },
  signal: AbortSignal,
): Promise<void> {
  const results: ToolResultPart[] = [];
  let sent: ToolResultPart[] | undefined;
  try {
    for (const call of turn.toolCalls) results.push(await executeToolCall(call, deps, signal));
    // The model's copy, cut to what is left of its window (the user's copy was emitted whole).
    const inputs = turn.toolCalls.map((call) => (call.valid ? call.input : undefined));
    sent = await fitToolResults(history, results, inputs, offered, fitDeps(deps), signal);
  } finally {
    // Calls that did not finish (interrupt, a throwing hook) are dropped, never left orphaned.
    dropToolCalls(history, assistant, new Set(turn.toolCalls.slice(results.length).map((call) => call.id)));
    if (results.length > 0) history.push({ role: 'user', content: sent ?? results });
  }
}

function fitDeps(deps: LoopDeps): FitDeps {
  return {
    main: deps.main,
    system: deps.system,
    context: deps.context,
    compactThreshold: deps.limits.compactThreshold,
    maxOutputTokens: deps.limits.maxOutputTokens,
  };
}

async function finalSummary(
  history: ModelMessage[],
  deps: LoopDeps,
  tools: ToolDefinition[],
  signal: AbortSignal,
): Promise<void> {
  appendUserText(history, FINAL_SUMMARY_PROMPT);
  const turn = await streamTurn(history, deps, deps.finalSummary, { tools, toolChoice: 'none', signal });
  commitAssistant(history, turn, false);
}

function wrapUpHint(remaining: number): string {
  return `[Note from OpenAgent: ${remaining} turn${remaining === 1 ? '' : 's'} left before the turn limit. Finish the current step, check your work, and wrap up.]`;
}

/** The history with a hint added to its last user message, for one request only. */
function withHint(history: ModelMessage[], hint: string): ModelMessage[] {
  const last = history.at(-1);
  if (last?.role !== 'user') return [...history, { role: 'user', content: [{ type: 'text', text: hint }] }];
  return [...history.slice(0, -1), { role: 'user', content: [...last.content, { type: 'text', text: hint }] }];
}
