/**
 * The API OpenAgent's activate() returns to other extensions (SPEC 2.11):
 *
 *   const openagent = await vscode.extensions.getExtension('openagent.openagent')!.activate();
 *   context.subscriptions.push(openagent.registerTool({ name, description, inputSchema, handler }));
 *   context.subscriptions.push(openagent.registerHooks({ PreToolUse: (call) => … }));
 *   const conversation = await openagent.startConversation('Summarise the open issues');
 *   conversation.onDidEmitEvent((event) => …);
 *   const last = await conversation.finished;   // its done, error or interrupted event
 *
 * Tools are offered from the next conversation on, under the same policy, approvals, caps and
 * audit trail as the built-in ones. Hooks apply to every conversation. A conversation started
 * here is the chat's current one: the user sees it, approves its tool calls and can stop it.
 */
import * as vscode from 'vscode';
import type { ConversationSession } from '../core/session/conversation-session';
import type { AgentEvent } from '../core/events/events';
import type { HookMap, Hooks } from '../core/agent/hooks';
import type { ExtensionToolDefinition, ExtensionTools } from '../core/tools/extension-tools';

export type { AgentEvent } from '../core/events/events';
export type { HookMap } from '../core/agent/hooks';
export type { ExtensionToolContext, ExtensionToolDefinition } from '../core/tools/extension-tools';

export interface OpenAgentConversation {
  readonly id: string;
  /** Every event of this conversation from now on (the ones so far are in `events`). */
  readonly onDidEmitEvent: vscode.Event<AgentEvent>;
  /** The events so far. */
  readonly events: readonly AgentEvent[];
  /** Resolves with the run's last event: `done`, `error`, or `interrupted` (stopped). */
  readonly finished: Promise<AgentEvent>;
  /** Sends a follow-up prompt (while it runs: queued, sent when the run ends normally). */
  send(prompt: string): Promise<void>;
  stop(): void;
}

export interface OpenAgentExtensionApi {
  /** Adds a tool; dispose the result to remove it. Throws an Error saying what is wrong with the definition. */
  registerTool<Input>(definition: ExtensionToolDefinition<Input>): vscode.Disposable;
  /** Adds hooks (UserPromptSubmit, PreToolUse, PostToolUse); dispose the result to remove them. */
  registerHooks(hooks: Partial<HookMap>): vscode.Disposable;
  /** Starts a new conversation in the chat with `prompt`; rejects when OpenAgent is busy or has no model set up. */
  startConversation(prompt: string, options?: { work?: 'chat' | 'code' }): Promise<OpenAgentConversation>;
  /** Every event of every conversation. */
  readonly onDidEmitEvent: vscode.Event<AgentEvent>;
}

export interface ExtensionApiDeps {
  session: ConversationSession;
  hooks: Hooks;
  tools: ExtensionTools;
  /** Brings the chat forward, so the user sees what another extension started. */
  focusChat(): Thenable<unknown>;
}

const RUN_ENDS: ReadonlySet<AgentEvent['type']> = new Set(['done', 'error', 'interrupted']);

export function createExtensionApi(deps: ExtensionApiDeps): OpenAgentExtensionApi & vscode.Disposable {
  const { session } = deps;
  const allEvents = new vscode.EventEmitter<AgentEvent>();
  const stopForwarding = session.onEvent((event) => allEvents.fire(event));
  return {
    onDidEmitEvent: allEvents.event,
    registerTool(definition) {
      const remove = deps.tools.register(definition as ExtensionToolDefinition<never>);
      return new vscode.Disposable(remove);
    },
    registerHooks(hooks) {
      const removers: Array<() => void> = [];
      for (const name of ['UserPromptSubmit', 'PreToolUse', 'PostToolUse'] as const) {
        const hook = hooks?.[name];
        if (hook === undefined) continue;
        if (typeof hook !== 'function') throw new Error(`The ${name} hook must be a function.`);
        removers.push(deps.hooks.add(name, hook as never));
      }
      return new vscode.Disposable(() => removers.forEach((remove) => remove()));
    },
    async startConversation(prompt, options = {}) {
      if (typeof prompt !== 'string' || !prompt.trim()) throw new Error('startConversation needs a prompt.');
      if (session.isRunning) throw new Error('OpenAgent is working on another prompt: stop it first.');
      session.reset();
      await deps.focusChat();
      const events: AgentEvent[] = [];
      const emitter = new vscode.EventEmitter<AgentEvent>();
      // Known once the prompt has started the conversation; until then every event is its own.
      const current: { id?: string } = {};
      let settle: (event: AgentEvent) => void = () => undefined;
      const finished = new Promise<AgentEvent>((resolve) => (settle = resolve));
      // Subscribed before the prompt goes out, so its first events are not missed.
      const stop = session.onEvent((event) => {
        if (current.id !== undefined && event.conversationId !== current.id) return;
        events.push(event);
        emitter.fire(event);
        const redirected = event.type === 'interrupted' && event.feedback;
        if (event.agentId === 'lead' && RUN_ENDS.has(event.type) && !redirected) settle(event);
      });
      const problem = await session.submit(prompt, options.work ?? 'chat');
      if (problem) {
        stop();
        throw new Error(problem.message);
      }
      const id = (current.id = session.currentId!);
      return {
        id,
        onDidEmitEvent: emitter.event,
        events,
        finished,
        send: async (text) => {
          if (session.currentId !== id) throw new Error('This conversation is no longer the current one.');
          const again = await session.submit(text);
          if (again) throw new Error(again.message);
        },
        stop: () => {
          if (session.currentId === id) session.stop();
        },
      };
    },
    dispose() {
      stopForwarding();
      allEvents.dispose();
    },
  };
}
