/**
 * Hooks let other code steer the agent (SPEC 2.5): UserPromptSubmit may block or rewrite a
 * prompt, PreToolUse may block or rewrite a tool call's input, PostToolUse observes results.
 * Hooks run in the order they were added; the first one that returns a decision wins; a hook
 * that throws aborts the turn (the loop reports it as an `error` event).
 */

export type PromptDecision = { block: string } | { prompt: string };
export type ToolUseDecision = { block: string } | { input: unknown };

export interface UserPromptSubmitContext {
  conversationId: string;
  prompt: string;
}

export interface PreToolUseContext {
  conversationId: string;
  agentId: string;
  toolCallId: string;
  toolName: string;
  input: unknown;
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
        await hook(context);
      } catch (error) {
        throw new HookError('PostToolUse', error);
      }
    }
  }

  private async firstDecision<Context, Decision>(
    name: HookName,
    hooks: Array<(context: Context) => Maybe<Decision> | Promise<Maybe<Decision>>>,
    context: Context,
  ): Promise<Decision | undefined> {
    for (const hook of [...hooks]) {
      let decision: Maybe<Decision>;
      try {
        decision = await hook(context);
      } catch (error) {
        throw new HookError(name, error);
      }
      if (decision !== null && decision !== undefined) return decision;
    }
    return undefined;
  }
}
