/**
 * Replay of a run that used a team (SPEC 2.8). The team's coordination runs for real: a Team
 * on in-memory inboxes and task board, the real team tools (spawn_teammate starts a real
 * teammate loop, send_message and read_inbox move real messages). What touches the world comes
 * from the recording: each teammate is a Conversation whose model client answers from that
 * teammate's recorded model steps and whose file, bash and task tools return that teammate's
 * recorded results. Team tools are offered with their recorded definitions, as every replayed
 * tool is.
 *
 * Agents run concurrently, so steps are ordered by what the recording says happened before
 * what (replay-order.ts), and events are compared per agent (team-events.ts). A watchdog ends
 * the replay with a divergence when every agent is blocked or idle while one still waits for a
 * step that can no longer come (a recording whose teammate steps were removed or reordered).
 */
import { Conversation, type ConversationOptions } from '../agent/conversation';
import type { Inbox } from '../events/inbox';
import type { AgentEvent } from '../events/events';
import type { ToolDefinition } from '../llm/llm-client';
import type { TaskBoardData, TaskBoardStorage, TeamData, TeamStorage } from '../ports';
import { TaskBoard, emptyBoard } from '../tasks/task-board';
import { Team, type TeammateSpec } from '../teams/team';
import { emptyTeam, TeamBus } from '../teams/team-bus';
import { LEAD_TEAM_TOOLS } from '../teams/team-tools';
import type { AnyTool, ToolContext } from '../tools/tool';
import { preview } from './divergence';
import type { ModelStep, PromptStep } from './recording';
import { recordedApprovals } from './recorded-tools';
import { replayModelClient } from './replay-model-client';
import { ReplayOrder } from './replay-order';
import type { ReplayState } from './replay-state';

/** The team's tools the replay runs for real (a teammate's plan_review too). */
const TEAM_TOOLS: ReadonlySet<string> = new Set([...LEAD_TEAM_TOOLS, 'plan_review']);

/** Team tools that put messages in an inbox: they keep their recorded order (replay-order.ts). */
const INBOX_WRITERS: ReadonlySet<string> = new Set([
  'send_message',
  'broadcast',
  'shutdown_request',
  'plan_review',
  'spawn_teammate',
]);

/** Idle teammates look at their inbox this often; they never shut down by themselves in a replay. */
const POLL_MS = 10;
const IDLE_MS = 24 * 60 * 60 * 1000;
/** The watchdog looks this often for a replay that can no longer move. */
const WATCH_MS = 25;

/** Whether the recorded run had a team: its lead was offered spawn_teammate. */
export function recordedTeamOn(tools: readonly AnyTool[]): boolean {
  return tools.some((tool) => tool.name === 'spawn_teammate');
}

export interface ReplayTeamOptions {
  state: ReplayState;
  /** The replay's recorded tool set, in the recorded order. */
  tools: AnyTool[];
  /** The replay's lead conversation (made after the team: read when the team first reports). */
  lead: () => Conversation;
  /** How the lead is built: a teammate shares its limits, policy, hooks and retries. */
  shared: Pick<ConversationOptions, 'clock' | 'policy' | 'hooks' | 'limits' | 'retry'>;
  /** The lead's system prompt: a teammate's is it and its brief, as the product composes it. */
  system: string;
  provider: (work: string) => { provider: string; model: string };
  checkRequests?: boolean;
  maxTeammates?: number;
}

export class ReplayTeam {
  readonly order: ReplayOrder;
  readonly team: Team;
  /** The lead's tools: the recorded ones, the team's real tools in their recorded places. */
  readonly leadTools: AnyTool[];
  private readonly teams = new MemoryStorage<TeamData>(emptyTeam);
  private readonly teammates = new Map<string, Conversation>();
  private leadRunning = false;
  private watchdog: ReturnType<typeof setInterval> | undefined;
  private stuckBefore = false;

  constructor(private readonly options: ReplayTeamOptions) {
    const { state } = options;
    this.order = new ReplayOrder(state.loaded.recording.steps, INBOX_WRITERS);
    const boards = new MemoryStorage<TaskBoardData>(emptyBoard);
    const id = state.loaded.recording.manifest.conversationId;
    this.team = new Team({
      bus: new TeamBus(this.teams, id, state.now),
      board: () => new TaskBoard({ storage: boards, boardId: id, now: state.now, report: () => undefined }),
      report: (body, agentId) => options.lead().report(body, agentId),
      createTeammate: (spec) => this.createTeammate(spec),
      memberTools: () => this.leadTools.filter((tool) => tool.name !== 'present_plan' && !TEAM_TOOLS.has(tool.name)),
      maxTeammates: () => options.maxTeammates ?? 5,
      pollMs: POLL_MS,
      idleMs: IDLE_MS,
    });
    const real = new Map(this.team.leadTools().map((tool) => [tool.name, tool] as const));
    // A teammate's own tool (plan_review) is in the recorded set when a teammate was offered it: not the lead's.
    this.leadTools = options.tools
      .filter((tool) => tool.name !== 'plan_review')
      .map((tool) => this.ordered(asRecorded(real.get(tool.name), tool) ?? tool));
  }

  /** The lead's inbox: drained once the steps its next model call saw ended have ended. */
  readonly leadInbox: Inbox = () => this.drainBefore(this.options.state.leadId, this.team.drainLead);

  /**
   * An agent's inbox, drained once what its next model call came after has happened; that call
   * counts as started once the drain has taken the messages (a writer after it waits for that).
   */
  private async drainBefore(agentId: string, drain: Inbox): Promise<string[]> {
    const step = this.options.state.peekModelStep(agentId);
    await this.order.ready(step, false);
    // The drain takes the messages at once (the storage is in memory): then the call has started.
    const drained = drain();
    if (step) this.order.start(step.step);
    return drained;
  }

  /** Every event of the lead's stream (its teammates' tool calls among them). */
  observe(event: AgentEvent): void {
    if (event.type !== 'tool_result') return;
    const state = this.options.state;
    const step = state.toolStep(state.recordedAgent(event.agentId), event.toolCallId);
    if (step) this.order.finish(step.step);
  }

  /** Runs one lead prompt, with the watchdog on while it runs. */
  async lead<Result>(run: () => Promise<Result>): Promise<Result> {
    this.leadRunning = true;
    this.watch();
    try {
      return await run();
    } finally {
      this.leadRunning = false;
    }
  }

  /**
   * After the lead's last prompt: waits until no teammate can do more (each idle with nothing
   * in its inbox, or the replay ended, or it is blocked for good), then stops the team.
   */
  async finish(): Promise<void> {
    this.watch();
    const state = this.options.state;
    while (!state.ended && !this.settled()) await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
    await this.stop();
  }

  /** Stops every teammate and the watchdog (the replay ended or finished). */
  async stop(): Promise<void> {
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = undefined;
    this.order.release();
    await this.team.dispose();
  }

  /** A teammate: its own loop, its model and its world answered from its recorded steps. */
  private createTeammate(spec: TeammateSpec): Conversation {
    const { state } = this.options;
    const binding = (work: string) => ({
      model: this.options.provider(work).model,
      llm: this.gatedModel(
        spec.name,
        replayModelClient(state, {
          work,
          agentId: spec.name,
          provider: this.options.provider(work).provider,
          checkRequests: this.options.checkRequests,
        }),
      ),
    });
    const teammate = new Conversation({
      ...this.options.shared,
      id: state.loaded.recording.manifest.conversationId,
      agentId: spec.name,
      model: binding('subagent'),
      work: 'subagent',
      compactionModel: binding('compaction'),
      finalSummaryModel: binding('final_summary'),
      system: `${this.options.system}\n\n${spec.brief}`,
      tools: this.teammateTools(spec),
      inboxes: [() => this.drainBefore(spec.name, spec.inbox)],
      approvals: recordedApprovals(state, spec.name),
      subagents: false,
    });
    const prompts = state.loaded.recording.steps.filter(
      (step): step is PromptStep => step.kind === 'prompt' && step.agentId === spec.name,
    );
    teammate.subscribe((event) => {
      if (event.type === 'user_message') this.promptSeen(spec.name, prompts, event.text);
    });
    this.teammates.set(spec.name, teammate);
    return teammate;
  }

  /** A teammate's prompt (its brief's task, a message that woke it) against its next recorded one. */
  private promptSeen(agentId: string, prompts: PromptStep[], text: string): void {
    const state = this.options.state;
    const next = prompts.find((prompt) => !state.used.has(prompt.step));
    if (!next) {
      state.pastTheEnd({
        step: state.currentStep,
        agentId,
        what: `${agentId} was given work the recording does not have`,
        expected: 'no more prompts',
        actual: preview(text),
      });
      return;
    }
    if (!state.reach(next)) return;
    const recorded = state.loaded.content(next.text);
    if (recorded !== text)
      state.diverge({
        step: next.step,
        agentId,
        what: `${agentId} was given other work`,
        expected: preview(recorded),
        actual: preview(text),
      });
  }

  /** The teammate's tools in the order its first recorded call offered them, team tools real. */
  private teammateTools(spec: TeammateSpec): AnyTool[] {
    const state = this.options.state;
    const first = state.loaded.recording.steps.find(
      (step): step is ModelStep => step.kind === 'model' && step.agentId === spec.name,
    );
    const given = new Map(spec.tools.map((tool) => [tool.name, tool] as const));
    if (!first) return spec.tools.map((tool) => this.ordered(tool));
    const offered = (state.loaded.request(first).tools as unknown[]).filter(isDefinition);
    const tools: AnyTool[] = [];
    for (const definition of offered) {
      const tool = given.get(definition.name);
      // A tool every conversation makes itself (think, compact): the teammate's own adds it.
      if (!tool) continue;
      tools.push(TEAM_TOOLS.has(tool.name) ? this.ordered(asRecorded(tool, definition)!) : tool);
    }
    return tools;
  }

  /** A tool that starts once the steps its recorded call came after have ended. */
  private ordered(tool: AnyTool): AnyTool {
    const state = this.options.state;
    const order = this.order;
    return {
      ...tool,
      async execute(input: unknown, context: ToolContext) {
        await order.ready(state.toolStep(state.recordedAgent(context.agentId), context.toolCallId));
        return tool.execute(input, context);
      },
    };
  }

  /** A teammate's model client that waits its turn, and marks its step ended once answered. */
  private gatedModel(agentId: string, client: ReturnType<typeof replayModelClient>) {
    const order = this.order;
    const state = this.options.state;
    return {
      ...client,
      async *stream(request: Parameters<typeof client.stream>[0]) {
        const step = state.peekModelStep(agentId);
        await order.ready(step);
        try {
          yield* client.stream(request);
        } finally {
          if (step) order.finish(step.step);
        }
      },
    };
  }

  /** Wraps the lead's model client the same way (its calls wait for the teammates' steps). */
  leadModel(client: ReturnType<typeof replayModelClient>): ReturnType<typeof replayModelClient> {
    const order = this.order;
    const state = this.options.state;
    return {
      ...client,
      async *stream(request) {
        const step = state.peekModelStep(state.currentAgent());
        await order.ready(step);
        try {
          yield* client.stream(request);
        } finally {
          if (step) order.finish(step.step);
        }
      },
    };
  }

  /** No teammate can do more: each idle with an empty inbox, or shut down, and none blocked. */
  private settled(): boolean {
    const blocked = this.order.blocked();
    if (blocked.size > 0) return this.deadlocked();
    return this.team
      .states()
      .every(({ name, state }) => state === 'shutdown' || (state === 'idle' && this.quiet(name)));
  }

  private quiet(name: string): boolean {
    const data = this.teams.peek(this.options.state.loaded.recording.manifest.conversationId);
    return (data?.inboxes[name]?.length ?? 0) === 0;
  }

  /** Every agent blocked or idle, one still waiting: twice in a row, it ends the replay. */
  private deadlocked(): boolean {
    const blocked = this.order.blocked();
    const state = this.options.state;
    const stuck =
      blocked.size > 0 &&
      (blocked.has(state.leadId) || !this.leadRunning) &&
      this.team
        .states()
        .every(
          ({ name, state: now }) => now === 'shutdown' || blocked.has(name) || (now === 'idle' && this.quiet(name)),
        );
    if (!stuck) return (this.stuckBefore = false);
    if (!this.stuckBefore) return !(this.stuckBefore = true);
    const [agentId, { step, waitsFor }] = [...blocked.entries()][0]!;
    state.diverge({
      step: step.step,
      agentId,
      what: `${agentId} waits for a step of another agent that never came`,
      expected: waitsFor
        ? `step ${waitsFor.step.step} of ${waitsFor.step.agentId} (${waitsFor.step.kind === 'tool' ? waitsFor.step.toolName : 'a model call'}) ${waitsFor.until} before step ${step.step}`
        : `step ${step.step}`,
      actual: 'every agent is blocked or idle',
    });
    return true;
  }

  private watch(): void {
    if (this.watchdog) return;
    this.watchdog = setInterval(() => {
      if (this.options.state.ended) return;
      this.deadlocked();
    }, WATCH_MS);
  }
}

/** A team tool the replay runs for real, offered with its recorded definition. */
function asRecorded(
  real: AnyTool | undefined,
  recorded: Pick<ToolDefinition, 'description'> & { inputJsonSchema?: unknown; inputSchema?: unknown },
): AnyTool | undefined {
  if (!real) return undefined;
  const schema = recorded.inputJsonSchema ?? (isObject(recorded.inputSchema) ? recorded.inputSchema : undefined);
  return {
    ...real,
    description: recorded.description,
    ...(isObject(schema) ? { inputJsonSchema: schema } : {}),
  };
}

/** Atomic in-memory storage for the replay's team and task board (nothing of a replay persists). */
class MemoryStorage<Data> implements TeamStorage, TaskBoardStorage {
  private readonly documents = new Map<string, Data>();

  constructor(private readonly empty: () => Data) {}

  peek(id: string): Data | undefined {
    return this.documents.get(id);
  }

  read(id: string): Promise<never> {
    return Promise.resolve(structuredClone(this.documents.get(id) ?? this.empty()) as never);
  }

  update<Result>(
    id: string,
    change: (data: never) => { team?: unknown; board?: unknown; result: Result },
  ): Promise<Result> {
    // Synchronous between reading and writing: nothing else runs in between.
    const outcome = change(structuredClone(this.documents.get(id) ?? this.empty()) as never);
    this.documents.set(id, (outcome.team ?? outcome.board) as Data);
    return Promise.resolve(outcome.result);
  }
}

function isDefinition(value: unknown): value is ToolDefinition {
  return isObject(value) && typeof value.name === 'string';
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
