/**
 * The status bar item (SPEC 1.5): what the agent is doing (idle, thinking, running a tool,
 * waiting for approval), the model, and the cost of the current conversation — or its tokens,
 * when the model has no price (a local or unknown model), rather than a cost of $0. Clicking it
 * focuses the chat. It shows from activation (idle, the model of the settings) and follows the
 * session once there is one (the session loads on first use).
 */
import * as vscode from 'vscode';
import type { CommandSandbox, SandboxStatus } from '../core/ports';
import { describeSandbox } from '../core/policy/sandbox-status';
import { modelLabel } from '../core/llm/provider-presets';
import type { ConversationSession } from '../core/session/conversation-session';
import type { AgentEvent } from '../core/events/events';
import { readModelSettings } from './settings';

type SessionEvents = Pick<ConversationSession, 'onEvent' | 'onReset' | 'history'>;
type PeekableSandbox = CommandSandbox & { peek(): SandboxStatus | undefined };

export class AgentStatusBar implements vscode.Disposable {
  private readonly item = vscode.window.createStatusBarItem('openagent.status', vscode.StatusBarAlignment.Right, 100);
  private state = 'idle';
  private costUsd = 0;
  private tokens = 0;
  private readonly stops: Array<() => void> = [];
  private sandbox: PeekableSandbox | undefined;
  /** How many of the window's sessions run or wait for the user, of how many (the session list). */
  private counts = { running: 0, waiting: 0, sessions: 1 };

  constructor(focusCommand: string) {
    this.item.name = 'OpenAgent';
    this.item.command = focusCommand;
    this.render();
    this.item.show();
  }

  /** From now on shows what `session` does, and whether `sandbox` confines commands. */
  follow(session: SessionEvents, sandbox?: PeekableSandbox): void {
    // Another session shown: what the item says is that one's from now on.
    for (const stop of this.stops.splice(0)) stop();
    this.costUsd = 0;
    this.tokens = 0;
    this.state = 'idle';
    this.sandbox = sandbox;
    this.stops.push(
      session.onEvent((event) => this.apply(event)),
      session.onReset(() => {
        this.costUsd = 0;
        this.tokens = 0;
        this.state = 'idle';
        this.render();
      }),
    );
    for (const event of session.history) this.apply(event);
    this.render();
  }

  /** How many of the window's sessions (the one followed included) run and wait for the user. */
  countSessions(counts: { running: number; waiting: number; sessions: number }): void {
    const now = this.counts;
    if (counts.running === now.running && counts.waiting === now.waiting && counts.sessions === now.sessions) return;
    this.counts = { ...counts };
    this.render();
  }

  /** What the item says now (tests read it). */
  get text(): string {
    return this.item.text;
  }

  private apply(event: AgentEvent): void {
    switch (event.type) {
      case 'user_message':
      case 'text_delta':
      case 'tool_result':
        // Every streamed delta lands here: nothing to redraw while the state stays the same.
        if (this.state === 'thinking') return;
        this.state = 'thinking';
        break;
      case 'tool_call':
        this.state = `running ${event.toolName}`;
        break;
      case 'subagent_start':
        this.state = 'running a sub-agent';
        break;
      case 'tool_approval_request':
        this.state = 'waiting for approval';
        break;
      case 'usage':
        if (event.scope !== 'call') return;
        this.costUsd += event.costUsd;
        this.tokens += event.usage.inputTokens + event.usage.outputTokens;
        break;
      case 'done':
      case 'error':
      case 'interrupted':
        this.state = 'idle';
        break;
      default:
        return;
    }
    this.render();
  }

  private render(): void {
    const icon =
      this.state === 'idle' ? '$(hubot)' : this.state === 'waiting for approval' ? '$(bell-dot)' : '$(loading~spin)';
    const settings = readModelSettings();
    const model = modelLabel(settings.provider, settings.model);
    const sandbox = this.sandbox?.peek();
    const spent =
      this.costUsd === 0 && this.tokens > 0
        ? `${compactCount(this.tokens)} tokens`
        : `$${this.costUsd.toFixed(this.costUsd < 1 ? 4 : 2)}`;
    // With one session the item's state says it all; with several, how many run and wait.
    const busy = [
      this.counts.running > 0 ? `${this.counts.running} running` : '',
      this.counts.waiting > 0 ? `${this.counts.waiting} waiting` : '',
    ].filter(Boolean);
    const sessions = this.counts.sessions > 1 && busy.length > 0 ? ` · sessions: ${busy.join(', ')}` : '';
    this.item.text = `${icon}${sandbox?.confined ? ' $(shield)' : ''} ${this.state === 'idle' ? 'OpenAgent' : this.state} · ${model} · ${spent}${sessions}`;
    this.item.tooltip =
      `OpenAgent is ${this.state}. Model: ${model}. This conversation: ${groupDigits(this.tokens)} tokens, $${this.costUsd.toFixed(4)}.` +
      `${sandbox ? ` ${describeSandbox(sandbox)}` : ''} Click to open the chat.`;
  }

  dispose(): void {
    for (const stop of this.stops) stop();
    this.item.dispose();
  }
}

/**
 * 1,234,567. Not toLocaleString: its first call loads ICU's number formats, some 30 ms of CPU,
 * and the item is drawn during activation.
 */
function groupDigits(count: number): string {
  return String(Math.round(count)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** 950, 14.6k, 1.2M: short enough for the status bar. */
function compactCount(count: number): string {
  if (count < 1_000) return String(count);
  if (count < 1_000_000) return `${(count / 1_000).toFixed(count < 10_000 ? 1 : 0)}k`;
  return `${(count / 1_000_000).toFixed(1)}M`;
}
