/**
 * Hooks in the shared JSON format, mapped onto our hook system (agent/hooks.ts):
 * - a repository's hooks (scope `workspace`) run only in a trusted workspace and only once the
 *   user allowed that exact hook (HookPermits: file, event, matcher, command, folder, env); the
 *   user's own (`~/.claude/settings.json`) need no allow. Both run confined (HookRunner);
 * - PreToolUse: matching hooks run in file order, each seeing the input as the previous one left
 *   it; the first block wins; "ask" makes the call ask whatever policy says; "allow" changes
 *   nothing (it can never turn our assessment's "ask" or "deny" into a yes);
 * - PostToolUse: a block reason or added context is a note the model reads with the result;
 * - UserPromptSubmit: exit 2 blocks the prompt (the user is told why); context joins the prompt;
 * - Stop: exit 2 (or `decision: "block"`) with a reason sends the agent back to work with it,
 *   at most MAX_STOP_CONTINUATIONS times a prompt (agent-loop.ts);
 * - SessionStart: context with the first prompt of the conversation.
 * Hooks never throw into the run: a failing hook is reported and does not block.
 */
import * as path from 'node:path';
import type { Hooks } from '../agent/hooks';
import { visibleText } from '../text/visible-text';
import { describeHook, type SharedHook, type SharedHookEvent } from './shared-hook-config';
import { readOutcome, type HookProcessResult, type HookVerdict } from './shared-hook-outcome';
import { callForHook, inputFromHook, matcherMatches, namesForMatching } from './shared-hook-tools';

export interface HookRunRequest {
  command: string;
  /** Absolute folder it runs in. */
  cwd: string;
  env: Record<string, string>;
  /** The event's JSON, written to its stdin. */
  stdin: string;
  timeoutMs: number;
  /**
   * A repository's hook: it runs confined or not at all (no sandbox here, or it is off: the
   * runner refuses rather than run the repository's code unconfined on a one-time allow).
   */
  confinedOnly?: boolean;
  signal?: AbortSignal;
}

/** Runs one hook command confined, killing its process tree on timeout or abort (node: SandboxedHookRunner). */
export interface HookRunner {
  run(request: HookRunRequest): Promise<HookProcessResult>;
}

/** Whether the user allowed a repository's hook; asks when not yet (and remembers a yes). */
export interface HookPermits {
  permit(hook: SharedHook, signal?: AbortSignal): Promise<boolean>;
}

export interface SharedHookDeps {
  /** The hooks of every file, read fresh (the node side caches on the files' state). */
  load(): Promise<{ hooks: readonly SharedHook[]; problems: readonly string[] }>;
  /** Whether the workspace is trusted now: untrusted, no repository hook runs (nor is asked about). */
  trusted(): boolean;
  /** The workspace's real path (hooks run there); undefined: no repository hooks. */
  root(): string | undefined;
  runner: HookRunner;
  permits: HookPermits;
  /** A notice for the user (a failing hook, a file that could not be read). */
  report(message: string): void;
}

export const DEFAULT_HOOK_TIMEOUT_SECONDS = 60;
export const MAX_HOOK_TIMEOUT_SECONDS = 600;

/** Adds the shared-format hooks to `hooks`; returns a function that removes them. */
export function installSharedHooks(hooks: Hooks, deps: SharedHookDeps): () => void {
  // A notice quotes file names, commands and what hooks printed: nothing in it may hide or fake text.
  const report = (message: string) => deps.report(visibleText(message, { keepNewlines: false }));
  const bridge = new SharedHookBridge({ ...deps, report });
  const removers = [
    hooks.add('PreToolUse', (context) => bridge.preToolUse(context)),
    hooks.add('PostToolUse', (context) => bridge.postToolUse(context)),
    hooks.add('UserPromptSubmit', (context) => bridge.userPromptSubmit(context)),
    hooks.add('Stop', (context) => bridge.stop(context)),
    hooks.add('SessionStart', (context) => bridge.sessionStart(context)),
  ];
  return () => removers.forEach((remove) => remove());
}

class SharedHookBridge {
  private reported = new Set<string>();

  constructor(private readonly deps: SharedHookDeps) {}

  async preToolUse(context: Parameters<Hooks['preToolUse']>[0]) {
    const root = this.deps.root() ?? '';
    let current = callForHook(context.toolName, context.input, root);
    let input: unknown = context.input;
    let rewritten = false;
    let ask: string | undefined;
    for (const hook of await this.hooksFor('PreToolUse', namesForMatching(context.toolName).concat(current.name))) {
      const verdict = await this.run(hook, context.signal, {
        session_id: context.conversationId,
        tool_name: current.name,
        tool_input: current.input,
        tool_use_id: context.toolCallId,
        ...(hook.dialect === 'copilot' ? { toolName: current.name, toolArgs: JSON.stringify(current.input) } : {}),
      });
      if (verdict.block !== undefined) return { block: verdict.block };
      if (verdict.ask !== undefined) ask ??= `${verdict.ask} (hook ${describeHook(hook)})`;
      if (verdict.updatedInput) {
        input = inputFromHook(context.toolName, current.input, verdict.updatedInput, root);
        rewritten = true;
        current = callForHook(context.toolName, input, root);
      }
    }
    if (rewritten) return { input, ...(ask !== undefined ? { ask } : {}) };
    return ask !== undefined ? { ask } : undefined;
  }

  async postToolUse(context: Parameters<Hooks['postToolUse']>[0]) {
    const root = this.deps.root() ?? '';
    const call = callForHook(context.toolName, context.input, root);
    const notes: string[] = [];
    for (const hook of await this.hooksFor('PostToolUse', namesForMatching(context.toolName).concat(call.name))) {
      const verdict = await this.run(hook, context.signal, {
        session_id: context.conversationId,
        tool_name: call.name,
        tool_input: call.input,
        tool_response: { output: context.output, is_error: context.isError },
        tool_use_id: context.toolCallId,
        ...(hook.dialect === 'copilot'
          ? {
              toolName: call.name,
              toolArgs: JSON.stringify(call.input),
              toolResult: { textResultForLlm: context.output },
            }
          : {}),
      });
      const said = verdict.block ?? verdict.context;
      if (said) notes.push(`[PostToolUse hook from ${hook.source}] ${said}`);
    }
    return notes.length > 0 ? { note: notes.join('\n') } : undefined;
  }

  async userPromptSubmit(context: Parameters<Hooks['userPromptSubmit']>[0]) {
    const contexts: string[] = [];
    for (const hook of await this.hooksFor('UserPromptSubmit')) {
      const verdict = await this.run(hook, context.signal, {
        session_id: context.conversationId,
        prompt: context.prompt,
      });
      if (verdict.block !== undefined) return { block: `${verdict.block} (hook ${describeHook(hook)})` };
      if (verdict.context) contexts.push(verdict.context);
    }
    return contexts.length > 0 ? { prompt: context.prompt, context: contexts.join('\n\n') } : undefined;
  }

  async stop(context: Parameters<Hooks['stop']>[0]) {
    // The lead agent's turn only: a sub-agent's end is not the turn's.
    if (context.agentId !== 'lead') return undefined;
    for (const hook of await this.hooksFor('Stop')) {
      const verdict = await this.run(hook, context.signal, {
        session_id: context.conversationId,
        stop_hook_active: context.continuations > 0,
      });
      if (verdict.block !== undefined)
        return { continue: `[A Stop hook from ${hook.source} asks you to go on:] ${verdict.block}` };
    }
    return undefined;
  }

  async sessionStart(context: Parameters<Hooks['sessionStart']>[0]) {
    const contexts: string[] = [];
    for (const hook of await this.hooksFor('SessionStart')) {
      const verdict = await this.run(hook, context.signal, { session_id: context.conversationId, source: 'startup' });
      if (verdict.context) contexts.push(verdict.context);
    }
    return contexts.length > 0 ? { context: contexts.join('\n\n') } : undefined;
  }

  /** The event's hooks that may run now: trusted (or the user's own), matching, allowed. */
  private async hooksFor(event: SharedHookEvent, names?: readonly string[]): Promise<SharedHook[]> {
    let loaded: Awaited<ReturnType<SharedHookDeps['load']>>;
    try {
      loaded = await this.deps.load();
    } catch (error) {
      this.once(`Hook files could not be read: ${(error as Error).message}`);
      return [];
    }
    for (const problem of loaded.problems) this.once(problem);
    const trusted = this.deps.trusted() && this.deps.root() !== undefined;
    return loaded.hooks.filter(
      (hook) =>
        hook.event === event &&
        (hook.scope === 'user' || trusted) &&
        (names === undefined || matcherMatches(hook.matcher, names)),
    );
  }

  /** Runs one hook (asking first for a repository's) and reads what it said; never throws but for a Stop. */
  private async run(
    hook: SharedHook,
    signal: AbortSignal | undefined,
    fields: Record<string, unknown>,
  ): Promise<HookVerdict> {
    if (hook.scope === 'workspace' && !(await this.deps.permits.permit(hook, signal))) {
      signal?.throwIfAborted();
      this.once(`The hook ${describeHook(hook)} is not allowed, so it did not run.`);
      return {};
    }
    signal?.throwIfAborted();
    const root = this.deps.root();
    // Hooks run in the workspace folder: without one there is nowhere to confine them to.
    if (root === undefined) return {};
    const timeoutSeconds = Math.min(hook.timeoutSeconds ?? DEFAULT_HOOK_TIMEOUT_SECONDS, MAX_HOOK_TIMEOUT_SECONDS);
    const stdin = JSON.stringify({
      ...fields,
      cwd: root,
      hook_event_name: hook.event,
      ...(hook.dialect === 'copilot' ? { timestamp: Date.now() } : {}),
    });
    const result = await this.deps.runner.run({
      command: hook.command,
      cwd: hook.cwd ? resolveInside(root, hook.cwd) : root,
      env: { ...hook.env, CLAUDE_PROJECT_DIR: root },
      stdin,
      timeoutMs: timeoutSeconds * 1000,
      ...(hook.scope === 'workspace' ? { confinedOnly: true } : {}),
      ...(signal ? { signal } : {}),
    });
    signal?.throwIfAborted();
    const verdict = readOutcome(hook.event, result, timeoutSeconds);
    if (verdict.notice) this.deps.report(`The hook ${describeHook(hook)} ${verdict.notice}.`);
    return verdict;
  }

  /** A problem with the files is said once per bridge, not at every tool call. */
  private once(message: string): void {
    if (this.reported.has(message)) return;
    if (this.reported.size > 1_000) this.reported.clear();
    this.reported.add(message);
    this.deps.report(message);
  }
}

/** A hook's own folder, inside the workspace (one climbing out runs at the root instead). */
function resolveInside(root: string, cwd: string): string {
  const resolved = path.resolve(root, cwd);
  return resolved === root || resolved.startsWith(`${root}${path.sep}`) ? resolved : root;
}
