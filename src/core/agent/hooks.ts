/**
 * Hooks let other code steer the agent (SPEC 2.5): UserPromptSubmit may block or rewrite a
 * prompt, PreToolUse may block or rewrite a tool call's input, PostToolUse observes results.
 * Hooks run in the order they were added; the first one that returns a decision wins; a hook
 * that throws aborts the turn (the loop reports it as an `error` event).
 *
 * A hook is waited on only until the run is stopped: Stop ends the wait at once, whatever the
 * hook is doing (a slow network check, a process it started). The run's signal is in the
 * context, so a hook can end its own work then (kill its process, cancel its request); what it
 * decides after the Stop is ignored.
 */
import { abortError, isAbortError, untilAborted } from '../abort';

export type PromptDecision = { block: string } | { prompt: string };
export type ToolUseDecision = { block: string } | { input: unknown };

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

type Maybe<T> = T | null | undefined | void;

export interface HookMap {
  UserPromptSubmit: (context: UserPromptSubmitContext) => Maybe<PromptDecision> | Promise<Maybe<PromptDecision>>;
  PreToolUse: (context: PreToolUseContext) => Maybe<ToolUseDecision> | Promise<Maybe<ToolUseDecision>>;
  PostToolUse: (context: PostToolUseContext) => void | Promise<void>;
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
  };

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
    return this.firstDecision('UserPromptSubmit', this.hooks.UserPromptSubmit, context);
  }

  async preToolUse(context: PreToolUseContext): Promise<ToolUseDecision | undefined> {
    return this.firstDecision('PreToolUse', this.hooks.PreToolUse, context);
  }

  async postToolUse(context: PostToolUseContext): Promise<void> {
    for (const hook of [...this.hooks.PostToolUse]) {
      try {
        await untilAborted(call(hook, context), context.signal);
      } catch (error) {
        throw stoppedOr('PostToolUse', error, context.signal);
      }
    }
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
