/**
 * Teams (SPEC 2.8, opt-in per conversation): the lead spawns named teammates, each its own
 * agent loop running concurrently with the lead's, sharing the conversation's task board and
 * talking through the team's persisted inboxes. A teammate works on its prompt, then idles:
 * every `pollMs` it reads its inbox and tries to claim an unowned, unblocked task; after
 * `idleMs` with nothing to do it shuts down. The lead stops one gracefully with a shutdown
 * request the teammate approves; a teammate can ask the lead to approve its plan.
 */
import type { Inbox } from '../events/inbox';
import type { AgentEvent, AgentEventBody } from '../events/events';
import type { TaskBoard } from '../tasks/task-board';
import type { AnyTool } from '../tools/tool';
import { formatMessages, LEAD, TeamError, type TeamBus } from './team-bus';
import { createLeadTools, createMemberTools } from './team-tools';

/** What a teammate's loop is to the team: a conversation of its own. */
export interface TeammateLoop {
  submit(prompt: string): Promise<void>;
  stop(): void;
  subscribe(listener: (event: AgentEvent) => void): () => void;
}

export interface TeammateSpec {
  name: string;
  role: string;
  /** Appended to the lead's instructions for this teammate. */
  brief: string;
  tools: AnyTool[];
  inbox: Inbox;
}

export type TeamReport = Extract<
  AgentEventBody,
  {
    type:
      | 'teammate_status'
      | 'usage'
      | 'tool_call'
      | 'tool_approval_result'
      | 'tool_result'
      | 'cache_break'
      | 'cost_warning';
  }
>;

export interface TeamOptions {
  bus: TeamBus;
  /** The conversation's task board, as `owner` changes it. */
  board: () => TaskBoard;
  /**
   * Into the lead's event stream: teammate_status, each teammate model call's usage, and the
   * teammate's tool calls and approval decisions under its own name (`agentId`).
   */
  report: (body: TeamReport, agentId?: string) => void;
  createTeammate: (spec: TeammateSpec) => TeammateLoop;
  /** The tools a teammate gets beside its messaging tools (files, bash, tasks). */
  memberTools: () => AnyTool[];
  maxTeammates: () => number;
  pollMs?: number;
  idleMs?: number;
}

export const DEFAULT_POLL_MS = 5_000;
export const DEFAULT_IDLE_MS = 60_000;

export class Team {
  private readonly teammates = new Map<string, Teammate>();
  private disposed = false;

  constructor(readonly options: TeamOptions) {}

  get bus(): TeamBus {
    return this.options.bus;
  }

  /** The lead's team tools. */
  leadTools(): AnyTool[] {
    return createLeadTools(this);
  }

  /** Messages for the lead, drained at the top of its turns. */
  readonly drainLead: Inbox = async () => {
    const messages = await this.bus.drain(LEAD);
    return messages.length ? [formatMessages(messages)] : [];
  };

  /** Starts a teammate on `prompt`; resolves once it is running. */
  async spawn(name: string, role: string, prompt: string): Promise<void> {
    if (this.disposed) throw new TeamError('The team has ended.');
    await this.bus.addMember(name, role, this.options.maxTeammates());
    // Disposed while the member was being added: no teammate outlives its team.
    if (this.disposed) throw new TeamError('The team has ended.');
    const teammate = new Teammate(this, name, role);
    this.teammates.set(name, teammate);
    void teammate.live(prompt);
  }

  /** Names and states, for list_teammates. */
  states(): Array<{ name: string; state: TeammateState }> {
    return [...this.teammates.values()].map((teammate) => ({ name: teammate.name, state: teammate.state }));
  }

  /** A teammate approved its shutdown: it stops once the current tool call is done. */
  approveShutdown(name: string): void {
    this.teammates.get(name)?.stopSoon();
  }

  /** Resolves when every teammate has shut down (tests, and closing the conversation). */
  async settled(): Promise<void> {
    await Promise.all([...this.teammates.values()].map((teammate) => teammate.done));
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    for (const teammate of this.teammates.values()) teammate.stopSoon();
    await this.settled();
  }

  get isDisposed(): boolean {
    return this.disposed;
  }
}

export type TeammateState = 'working' | 'idle' | 'shutdown';

class Teammate {
  state: TeammateState = 'working';
  readonly done: Promise<void>;
  private finish!: () => void;
  private loop: TeammateLoop | undefined;
  private stopping = false;
  private wake: (() => void) | undefined;

  constructor(
    private readonly team: Team,
    readonly name: string,
    readonly role: string,
  ) {
    this.done = new Promise((resolve) => (this.finish = resolve));
  }

  /** Works on the prompt, then idles and picks up work until there is none or it is stopped. */
  async live(prompt: string): Promise<void> {
    const options = this.team.options;
    try {
      this.loop = options.createTeammate({
        name: this.name,
        role: this.role,
        brief: teammateBrief(this.name, this.role),
        tools: [...options.memberTools(), ...createMemberTools(this.team, this.name)],
        inbox: async () => {
          const messages = await this.team.bus.drain(this.name);
          return messages.length ? [formatMessages(messages)] : [];
        },
      });
      const stop = this.loop.subscribe((event) => {
        if (
          event.type === 'tool_call' ||
          event.type === 'tool_approval_result' ||
          event.type === 'tool_result' ||
          // The teammate's money is the user's too: its cost warnings reach the chat.
          event.type === 'cache_break' ||
          event.type === 'cost_warning'
        ) {
          const { conversationId: _conversation, agentId: _agent, seq: _seq, time: _time, ...body } = event;
          options.report(body, this.name);
        } else if (event.type === 'usage' && event.scope === 'call')
          options.report({
            type: 'usage',
            scope: 'call',
            model: event.model,
            ...(event.provider ? { provider: event.provider } : {}),
            ...(event.work ? { work: event.work } : {}),
            ...(event.durationMs !== undefined ? { durationMs: event.durationMs } : {}),
            usage: event.usage,
            costUsd: event.costUsd,
            reported: event.reported,
            ...(event.failure ? { failure: event.failure } : {}),
          });
      });
      let work: string | undefined = prompt;
      while (work !== undefined && !this.stopping) {
        this.setState('working');
        await this.loop.submit(work);
        if (this.stopping) break;
        this.setState('idle');
        work = await this.waitForWork();
      }
      stop();
    } catch (error) {
      // A teammate that fails (its board or inbox unreadable) says so to the lead, then stops.
      const reason = error instanceof Error ? error.message : String(error);
      await this.team.bus
        .send({ from: this.name, to: LEAD, text: `I stopped after an error: ${reason}`, kind: 'message' })
        .catch(() => undefined);
    } finally {
      this.setState('shutdown');
      this.finish();
    }
  }

  stopSoon(): void {
    this.stopping = true;
    // Stopped after the tool call in progress (the approving send_message) has returned.
    setTimeout(() => this.loop?.stop(), 0);
    this.wake?.();
  }

  /** Polls the inbox and the task board; undefined after idleMs with nothing to do. */
  private async waitForWork(): Promise<string | undefined> {
    const options = this.team.options;
    const deadline = Date.now() + (options.idleMs ?? DEFAULT_IDLE_MS);
    while (!this.stopping && Date.now() < deadline) {
      const messages = await this.team.bus.drain(this.name);
      if (messages.length) return formatMessages(messages);
      // Stopped while reading: claim no task it would leave owned by no one working.
      if (this.stopping) break;
      const task = await options.board().claimNext(this.name);
      if (task)
        return (
          `You claimed task #${task.id}: ${task.subject}` +
          (task.description ? `\n\n${task.description}` : '') +
          '\n\nDo it, mark it completed with task_update, and tell the lead with send_message.'
        );
      // Stopped meanwhile, its wake-up came before there was a wait to end: do not wait a poll.
      if (this.stopping) break;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(
          resolve,
          Math.min(options.pollMs ?? DEFAULT_POLL_MS, Math.max(0, deadline - Date.now())),
        );
        this.wake = () => (clearTimeout(timer), resolve());
      });
      this.wake = undefined;
    }
    return undefined;
  }

  private setState(state: TeammateState): void {
    if (this.state === state && state !== 'working') return;
    this.state = state;
    this.team.options.report({ type: 'teammate_status', name: this.name, status: state });
  }
}

function teammateBrief(name: string, role: string): string {
  return [
    `# You are "${name}", a teammate`,
    `You work in a team led by "${LEAD}". Your role: ${role}.`,
    'You share the task board with the team: claim work with task_update (owner, status) and mark it completed when it is done and verified.',
    'Talk with send_message (to "lead" or a teammate by name); read_inbox shows what you were sent. When your work is done, tell the lead, then stop: you will be given more work if there is any.',
    'You cannot start teammates or sub-agents.',
  ].join('\n');
}
