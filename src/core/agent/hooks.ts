/**
 * Hooks let other code steer the agent (SPEC 2.5): UserPromptSubmit may block or rewrite a
 * prompt, PreToolUse may block or rewrite a tool call's input, PostToolUse observes results.
 * Hooks run in the order they were added; a hook that throws aborts the turn (the loop reports
 * it as an `error` event). For prompts and tool calls every hook has its say: each sees the
 * prompt or input as the hooks before it left it, the first block wins, asks and context add
 * up. One hook's rewrite or "ask" never keeps a later hook from blocking (a repository's hook
 * must not silence another extension's guard); Stop and SessionStart take the first decision.
 *
 * A hook is waited on only until the run is stopped: Stop ends the wait at once, whatever the
 * hook is doing (a slow network check, a process it started). The run's signal is in the
 * context, so a hook can end its own work then (kill its process, cancel its request); what it
 * decides after the Stop is ignored.
 */
import { abortError, isAbortError, untilAborted } from '../abort';

/** Blocked; or rewritten (`prompt`), with `context` the model reads after the prompt (not shown as the user's words). */
export type PromptDecision = { block: string } | { prompt: string; context?: string };
/**
 * Blocked; or its input rewritten; `ask` puts the call to the user even where policy would
 * allow it (a hook can make a call ask, never let one through that would ask).
 */
export type ToolUseDecision = { block: string } | { input: unknown; ask?: string } | { ask: string };

export interface UserPromptSubmitContext {
  conversationId: string;
  prompt: string;
  /** Aborted when the user stops the run: end the hook's own work then. */
  signal?: AbortSignal;
}

export interface PreToolUseContext {
  conversationId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
  /** Aborted when the user stops the run: end the hook's own work then. */
  signal?: AbortSignal;
}

export interface PostToolUseContext extends PreToolUseContext {
  output: string;
  isError: boolean;
}

/** A note a PostToolUse hook adds to the result the model reads (the user saw the result as it was). */
export interface PostToolUseNote {
  note: string;
}

export interface StopContext {
  conversationId: string;
  agentId: string;
  /** How many times Stop hooks already made this run go on (bounded by the loop). */
  continuations: number;
  signal?: AbortSignal;
}

/** Keep working: the reason is given to the model as the next message. */
export interface StopDecision {
  continue: string;
}

export interface SessionStartContext {
  conversationId: string;
  signal?: AbortSignal;
}

/** What the model reads with the first prompt of the session. */
export interface SessionStartDecision {
  context: string;
}

type Maybe<T> = T | null | undefined | void;

export interface HookMap {
  UserPromptSubmit: (context: UserPromptSubmitContext) => Maybe<PromptDecision> | Promise<Maybe<PromptDecision>>;
  PreToolUse: (context: PreToolUseContext) => Maybe<ToolUseDecision> | Promise<Maybe<ToolUseDecision>>;
  PostToolUse: (context: PostToolUseContext) => Maybe<PostToolUseNote> | Promise<Maybe<PostToolUseNote>>;
  /** When the agent would end its turn: a decision makes it go on (the loop bounds how often). */
  Stop: (context: StopContext) => Maybe<StopDecision> | Promise<Maybe<StopDecision>>;
  /** Once per conversation in this process, before its first prompt is vetted. */
  SessionStart: (context: SessionStartContext) => Maybe<SessionStartDecision> | Promise<Maybe<SessionStartDecision>>;
}

export type HookName = keyof HookMap;

/** Raised when a hook throws: the run stops with an error naming the hook. */
export class HookError extends Error {
  constructor(hookName: HookName, cause: unknown) {
    super(`The ${hookName} hook failed: ${cause instanceof Error ? cause.message : String(cause)}`);
    this.name = 'HookError';
  }
}

export class Hooks {
  private readonly hooks: { [Name in HookName]: Array<HookMap[Name]> } = {
    UserPromptSubmit: [],
    PreToolUse: [],
    PostToolUse: [],
    Stop: [],
    SessionStart: [],
  };
  /** Conversations whose SessionStart hooks ran in this process. */
  private readonly started = new Set<string>();

  /** Adds a hook; returns a function that removes it. */
  add<Name extends HookName>(name: Name, hook: HookMap[Name]): () => void {
    const list = this.hooks[name] as Array<HookMap[Name]>;
    list.push(hook);
    return () => {
      const index = list.indexOf(hook);
      if (index >= 0) list.splice(index, 1);
    };
  }

  async userPromptSubmit(context: UserPromptSubmitContext): Promise<PromptDecision | undefined> {
    let prompt = context.prompt;
    let rewritten = false;
    const contexts: string[] = [];
    for (const hook of [...this.hooks.UserPromptSubmit]) {
      const decision = await this.oneDecision('UserPromptSubmit', hook, { ...context, prompt });
      if (!decision) continue;
      if ('block' in decision) return decision;
      rewritten ||= decision.prompt !== prompt;
      prompt = decision.prompt;
      if (decision.context) contexts.push(decision.context);
    }
    if (contexts.length > 0) return { prompt, context: contexts.join('\n\n') };
    return rewritten ? { prompt } : undefined;
  }

  async preToolUse(context: PreToolUseContext): Promise<ToolUseDecision | undefined> {
    let input = context.input;
    let rewritten = false;
    let ask: string | undefined;
    for (const hook of [...this.hooks.PreToolUse]) {
      const decision = await this.oneDecision('PreToolUse', hook, { ...context, input });
      if (!decision) continue;
      if ('block' in decision) return decision;
      if ('input' in decision) {
        input = decision.input;
        rewritten = true;
      }
      if (decision.ask !== undefined) ask ??= decision.ask;
    }
    if (rewritten) return { input, ...(ask !== undefined ? { ask } : {}) };
    return ask !== undefined ? { ask } : undefined;
  }

  private async oneDecision<Context extends { signal?: AbortSignal }, Decision>(
    name: HookName,
    hook: (context: Context) => Maybe<Decision> | Promise<Maybe<Decision>>,
    context: Context,
  ): Promise<Decision | undefined> {
    try {
      return (await untilAborted(call(hook, context), context.signal)) ?? undefined;
    } catch (error) {
      throw stoppedOr(name, error, context.signal);
    }
  }

  /** Runs every PostToolUse hook; returns the notes they added for the model (none: []). */
  async postToolUse(context: PostToolUseContext): Promise<string[]> {
    const notes: string[] = [];
    for (const hook of [...this.hooks.PostToolUse]) {
      try {
        const added = await untilAborted(call(hook, context), context.signal);
        if (added && typeof added.note === 'string' && added.note) notes.push(added.note);
      } catch (error) {
        throw stoppedOr('PostToolUse', error, context.signal);
      }
    }
    return notes;
  }

  async stop(context: StopContext): Promise<StopDecision | undefined> {
    return this.firstDecision('Stop', this.hooks.Stop, context);
  }

  /** The SessionStart hooks' context, the first time a conversation asks in this process; after, undefined. */
  async sessionStart(context: SessionStartContext): Promise<SessionStartDecision | undefined> {
    if (this.started.has(context.conversationId)) return undefined;
    this.started.add(context.conversationId);
    return this.firstDecision('SessionStart', this.hooks.SessionStart, context);
  }

  private async firstDecision<Context extends { signal?: AbortSignal }, Decision>(
    name: HookName,
    hooks: Array<(context: Context) => Maybe<Decision> | Promise<Maybe<Decision>>>,
    context: Context,
  ): Promise<Decision | undefined> {
    for (const hook of [...hooks]) {
      let decision: Maybe<Decision>;
      try {
        decision = await untilAborted(call(hook, context), context.signal);
      } catch (error) {
        throw stoppedOr(name, error, context.signal);
      }
      if (decision !== null && decision !== undefined) return decision;
    }
    return undefined;
  }
}

/** The hook's outcome as a promise: one that throws at once is a rejection like any other. */
function call<Context, Result>(
  hook: (context: Context) => Result | Promise<Result>,
  context: Context,
): Promise<Result> {
  return new Promise<Result>((resolve) => resolve(hook(context)));
}

/** After a Stop, whatever the hook threw is the cancellation; before it, the hook failing. */
function stoppedOr(name: HookName, error: unknown, signal: AbortSignal | undefined): Error {
  if (!signal?.aborted) return new HookError(name, error);
  return isAbortError(error) ? (error as Error) : abortError();
}
